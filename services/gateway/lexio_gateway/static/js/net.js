// The WebSocket to the gateway (docs/protocol.md): hello on every (re)connection, reconnect
// with backoff, a liveness ping, and request ids.

const BACKOFF = [0.5, 1, 2, 4, 8, 15]; // seconds, then 15 s forever (with jitter)
const PING_EVERY = 15_000;
const PONG_WITHIN = 10_000;
const CLOSE_REPLACED = 4001;

export class Net {
  /**
   * @param {object} hooks
   *   hello(): the hello frame to send (with token and last_seq when the page has them)
   *   onFrame(frame): every frame from the server
   *   onStatus(status, detail): "connecting" | "open" | "lost" | "replaced"
   */
  constructor(hooks) {
    this.hooks = hooks;
    this.ws = null;
    this.attempt = 0;
    this.retryTimer = null;
    this.pingTimer = null;
    this.pongTimer = null;
    this.counter = 0;
    this.status = "connecting";
    this.stopped = false;
    window.addEventListener("online", () => this.retryNow());
    document.addEventListener("visibilitychange", () => {
      if (!document.hidden) this.retryNow();
    });
  }

  get url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}/ws`;
  }

  get isOpen() {
    return this.status === "open";
  }

  nextId(prefix = "r") {
    this.counter += 1;
    return `${prefix}${Date.now().toString(36)}${this.counter}`;
  }

  connect() {
    this.stopped = false;
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this._setStatus(this.attempt === 0 ? "connecting" : "lost");
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch {
      this._lost(null);
      return;
    }
    this.ws = ws;
    ws.addEventListener("open", () => {
      if (this.ws !== ws) return;
      ws.send(JSON.stringify(this.hooks.hello()));
      this._armPing();
    });
    ws.addEventListener("message", (message) => {
      if (this.ws !== ws) return;
      this._alive();
      let frame;
      try {
        frame = JSON.parse(message.data);
      } catch {
        return;
      }
      if (frame.type === "welcome") {
        this.attempt = 0;
        this._setStatus("open");
      } else if (frame.type === "replaced") {
        this.stopped = true;
      }
      this.hooks.onFrame(frame);
    });
    ws.addEventListener("close", (event) => {
      if (this.ws !== ws) return;
      if (event.code === CLOSE_REPLACED) this.stopped = true;
      this._lost(event.code);
    });
  }

  /** Send one frame; false when there is no open connection (the caller says so). */
  send(frame) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN || this.status !== "open") return false;
    this.ws.send(JSON.stringify(frame));
    return true;
  }

  /** Start again on a new connection now (e.g. to resume another seat or none). */
  restart() {
    this._detach();
    this.attempt = 0;
    this.connect();
  }

  retryNow() {
    if (this.stopped || this.status === "open" || this.status === "connecting") return;
    if (this.ws && this.ws.readyState === WebSocket.CONNECTING) return;
    this.connect();
  }

  _setStatus(status, detail) {
    this.status = status;
    this.hooks.onStatus(status, detail);
  }

  _detach() {
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    clearTimeout(this.pongTimer);
    this.retryTimer = this.pingTimer = this.pongTimer = null;
    const ws = this.ws;
    this.ws = null;
    if (ws && ws.readyState <= WebSocket.OPEN) {
      try {
        ws.close(1000);
      } catch {
        // already closing
      }
    }
  }

  _lost(code) {
    this._detach();
    if (this.stopped) {
      this._setStatus("replaced", code);
      return;
    }
    const base = BACKOFF[Math.min(this.attempt, BACKOFF.length - 1)];
    const delay = base * (0.8 + Math.random() * 0.4) * 1000;
    this.attempt += 1;
    this._setStatus("lost", { retryIn: delay });
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  _armPing() {
    clearInterval(this.pingTimer);
    this.pingTimer = setInterval(() => {
      if (!this.send({ type: "ping" })) return;
      clearTimeout(this.pongTimer);
      // A dead peer (no frame at all within the delay): give the socket up and reconnect.
      this.pongTimer = setTimeout(() => this._lost(null), PONG_WITHIN);
    }, PING_EVERY);
  }

  _alive() {
    clearTimeout(this.pongTimer);
    this.pongTimer = null;
  }
}
