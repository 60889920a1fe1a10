// Home: create a table with a display name, or join one by its invite code (R2, R18); and
// the way back to a game the player left on purpose.
import { $, show } from "./dom.js";
import { t } from "./i18n.js";
import { load, save } from "./store.js";
import { retryAfter } from "./errors.js";

const MAX_NAME = 24;

/** An invite code as typed: any case, spaces and dashes ignored. */
export function normalizeCode(raw) {
  return raw.toUpperCase().replace(/[^A-Z0-9]/g, "");
}

export function invitedCode() {
  return new URLSearchParams(location.search).get("join") || "";
}

export class Home {
  /** ctx: { app, request(frame, onReply), errorText(frame, options), comeBack() } */
  constructor(ctx) {
    this.ctx = ctx;
    this.waiting = false;
    this.error = null;
    this.errorTimer = null;
    const name = $("#home-name");
    name.value = load("name") || "";
    $("#home-code").value = invitedCode();
    $("#form-create").addEventListener("submit", (event) => {
      event.preventDefault();
      this.submit("create");
    });
    $("#form-join").addEventListener("submit", (event) => {
      event.preventDefault();
      this.submit("join");
    });
    $("#home-come-back").addEventListener("click", () => this.ctx.comeBack());
  }

  name() {
    return $("#home-name").value.normalize("NFC").trim();
  }

  submit(kind) {
    if (this.waiting) return;
    const name = this.name();
    if (!name || name.length > MAX_NAME) {
      this.fail(() => t("error.invalid_name"), "#home-name");
      return;
    }
    const frame = { type: kind, name };
    if (kind === "join") {
      const code = normalizeCode($("#home-code").value);
      if (!code) {
        this.fail(() => t("home.need_code"), "#home-code");
        return;
      }
      frame.code = code;
    }
    save("name", name);
    const id = this.ctx.request(frame, (reply) => {
      this.waiting = false;
      if (reply.type === "error") this.refused(reply, kind);
      else this.fail(null);
      this.render();
    });
    if (!id) {
      this.fail(() => t("conn.offline_action"));
      return;
    }
    this.waiting = true;
    this.fail(null);
  }

  /** The server's refusal; a wait it names (rate_limited) counts down until it is over. */
  refused(reply, kind) {
    const receivedAt = Date.now();
    this.fail(() => this.ctx.errorText(reply, { request: kind, receivedAt }));
    const wait = retryAfter(reply);
    if (wait === null) return;
    const over = receivedAt + wait * 1000;
    this.errorTimer = setInterval(() => {
      if (Date.now() >= over) this.fail(null);
      else this.render();
    }, 1000);
  }

  fail(message, focus) {
    clearInterval(this.errorTimer);
    this.errorTimer = null;
    this.error = message;
    this.render();
    if (focus) $(focus).focus();
  }

  render() {
    const app = this.ctx.app;
    const games = app.games;
    const known = Boolean(games);
    const available = Boolean(games && games.lexio);
    // R18: without the lexicon no table can be created, but the lobby still seats players at
    // tables already open (lobby.join checks no readiness): an invitee may still join.
    show($("#home-unavailable"), known && !available);
    show($("#home-forms"), known);
    show($("#form-create"), available);
    show($("#home-invited"), known && Boolean(invitedCode()));
    show($("#home-away"), app.away && Boolean(app.token));
    for (const button of document.querySelectorAll("#home-forms button")) button.disabled = this.waiting;
    $("#home-error").textContent = this.error ? this.error() : "";
  }
}
