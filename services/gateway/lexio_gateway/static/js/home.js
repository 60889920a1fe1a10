// Home: create a table with a display name, or join one by its invite code (R2, R18).
import { $, show } from "./dom.js";
import { t } from "./i18n.js";
import { load, save } from "./store.js";

const MAX_NAME = 24;

/** An invite code as typed: any case, spaces and dashes ignored. */
export function normalizeCode(raw) {
  return raw.toUpperCase().replace(/[^A-Z0-9]/g, "");
}

export function invitedCode() {
  return new URLSearchParams(location.search).get("join") || "";
}

export class Home {
  /** ctx: { app, request(frame, onReply), errorText(frame) } */
  constructor(ctx) {
    this.ctx = ctx;
    this.waiting = false;
    this.error = null;
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
      if (reply.type === "error") this.fail(() => this.ctx.errorText(reply));
      else this.error = null;
      this.render();
    });
    if (!id) {
      this.fail(() => t("conn.offline_action"));
      return;
    }
    this.waiting = true;
    this.error = null;
    this.render();
  }

  fail(message, focus) {
    this.error = message;
    this.render();
    if (focus) $(focus).focus();
  }

  render() {
    const games = this.ctx.app.games;
    const available = Boolean(games && games.lexio);
    show($("#home-unavailable"), Boolean(games) && !available);
    show($("#home-forms"), available);
    show($("#home-invited"), available && Boolean(invitedCode()));
    for (const button of document.querySelectorAll("#home-forms button")) button.disabled = this.waiting;
    $("#home-error").textContent = this.error ? this.error() : "";
  }
}
