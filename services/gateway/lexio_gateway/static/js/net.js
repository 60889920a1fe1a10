// @ts-check
// The WebSocket to the gateway (docs/protocol.md): hello on every (re)connection, reconnect
// with backoff, a liveness ping, and request ids.

const BACKOFF = [0.5, 1, 2, 4, 8, 15]; // seconds, then 15 s forever (full jitter below)
const PING_EVERY = 15_000;
const PONG_WITHIN = 10_000;
const CLOSE_REPLACED = 4001;

/** @typedef {import("./protocol.js").ClientFrame} ClientFrame */
/** @typedef {import("./protocol.js").ServerFrame} ServerFrame */

/**
 * "lost" comes with {retryIn} (ms until the next try), "replaced" with the close code (or
 * null).
 * @typedef {"connecting" | "open" | "lost" | "replaced"} Status
 */

/**
 * @typedef {object} NetHooks
 * @property {() => import("./protocol.js").HelloFrame} hello  the hello frame to send (with
 *   token and last_seq when the page has them)
 * @property {(frame: ServerFrame) => void} onFrame  every frame from the server
 * @property {(status: Status, detail?: {retryIn: number} | number | null) => void} onStatus
 */

export class Net {
  /** @param {NetHooks} hooks */
  constructor(hooks) {
    this.hooks = hooks;
    /** @type {WebSocket | null} */
    this.ws = null;
    this.attempt = 0;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.retryTimer = undefined;
    /** @type {ReturnType<typeof setInterval> | undefined} */
    this.pingTimer = undefined;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.pongTimer = undefined;
    this.counter = 0;
    /** The server's word on when to come back (a resume refused as busy), in ms; 0 if none. */
    this.retryAfter = 0;
    /** @type {Status} */
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

  /** A fresh request id (``prefix``: the request's first letter, for reading logs). */
  nextId(prefix = "r") {
    this.counter += 1;
    return `${prefix}${Date.now().toString(36)}${this.counter}`;
  }

  connect() {
    this.stopped = false;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
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
      /** @type {ServerFrame} */
      let frame;
      try {
        frame = JSON.parse(message.data);
      } catch {
        return;
      }
      if (frame.type === "welcome") {
        this.attempt = 0;
        this._setStatus("open");
      } else if (frame.type === "reconnect" && frame.retry_after) {
        // The replica is busy resuming others (another one died): the socket closes next.
        this.retryAfter = frame.retry_after * 1000;
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

  /**
   * Send one frame; false when there is no open connection (the caller says so).
   * @param {ClientFrame} frame
   */
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

  /**
   * @param {Status} status
   * @param {{retryIn: number} | number | null} [detail]
   */
  _setStatus(status, detail) {
    this.status = status;
    this.hooks.onStatus(status, detail);
  }

  _detach() {
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    clearTimeout(this.pongTimer);
    this.retryTimer = this.pingTimer = this.pongTimer = undefined;
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

  /** @param {number | null} code the close code, null when the socket never opened or died */
  _lost(code) {
    this._detach();
    if (this.stopped) {
      this._setStatus("replaced", code);
      return;
    }
    const base = BACKOFF[Math.min(this.attempt, BACKOFF.length - 1)];
    // Full jitter (anywhere from 0 to the step): when a gateway replica dies, all its players
    // lose it in the same instant, and their first tries must not all land together on the
    // replicas left (lexio_client's Backoff draws the same way).
    const delay = Math.max(Math.random() * base * 1000, this.retryAfter);
    this.retryAfter = 0;
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
    this.pongTimer = undefined;
  }
}
