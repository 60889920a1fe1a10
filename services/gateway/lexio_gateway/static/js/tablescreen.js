// @ts-check
// The table before the start: its code (copy, share link), the seats in arrival order with
// the host marked, "start" for the host once enough are seated, "leave" (R2).
import { $, clear, el, show } from "./dom.js";
import { t, tNodes } from "./i18n.js";
import { bdi } from "./text.js";
import { announce } from "./announce.js";
import { gameModule } from "./games.js";

/** @param {string} code */
export function shareLink(code) {
  return `${location.origin}/?join=${encodeURIComponent(code)}`;
}

/**
 * @param {string} text
 * @param {HTMLInputElement} input where the text shows (selected for the old command)
 */
async function copy(text, input) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Not a secure context, or no permission: select the text and use the old command.
    input.focus();
    input.select();
    try {
      return document.execCommand("copy");
    } catch {
      return false;
    }
  }
}

export class TableScreen {
  /** @param {import("./games.js").Context} ctx */
  constructor(ctx) {
    this.ctx = ctx;
    /** @type {(() => string) | null} */
    this.error = null;
    /** @type {string | null} what was copied last ("code" or "link") */
    this.copied = null;
    /** @type {{table: string, names: string[]} | null} who the live region last knew at this table */
    this.heard = null;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.copyTimer = undefined;
    $("#copy-code").addEventListener("click", () => this.copy("code", this.ctx.app.table?.code ?? "", this.codeText));
    $("#copy-link").addEventListener("click", () => this.copy("link", this.linkText.value, this.linkText));
    $("#start-game").addEventListener("click", () => {
      this.error = null;
      this.ctx.request({ type: "start" }, (reply) => {
        if (reply.type === "error") {
          this.error = () => this.ctx.errorText(reply);
          this.render();
        }
      });
    });
    $("#leave-table").addEventListener("click", () => {
      this.ctx.request({ type: "leave" }, (reply) => {
        if (reply.type === "error") {
          this.error = () => this.ctx.errorText(reply);
          this.render();
        }
      });
    });
  }

  /** @returns {HTMLInputElement} */
  get codeText() {
    return $("#table-code-text");
  }

  /** @returns {HTMLInputElement} */
  get linkText() {
    return $("#share-link");
  }

  /**
   * Say who came to the table or left it since the last frame (not who was already there).
   * @param {import("./protocol.js").TableFrame} table
   */
  hearSeats(table) {
    const now = table.seats.map((seat) => seat.name);
    const before = this.heard?.table === table.table_id ? [...this.heard.names] : null;
    this.heard = { table: table.table_id, names: now };
    if (!before) return;
    const left = [...before];
    for (const name of now) {
      const at = left.indexOf(name);
      if (at >= 0) left.splice(at, 1);
      else announce(tNodes("say.joined", { name: bdi(name) }));
    }
    for (const name of left) announce(tNodes("say.left_table", { name: bdi(name) }));
  }

  /**
   * A game with table options: its name, and the options everyone agreed to.
   * @param {import("./protocol.js").TableFrame} table
   */
  renderGame(table) {
    const module = gameModule(table.game);
    const renderOptions = module?.renderOptions;
    show($("#table-game"), Boolean(renderOptions));
    if (!module || !renderOptions) return;
    $("#table-game-name").textContent = t(module.name);
    renderOptions($("#table-options"), table.options, { names: table.seats.map((seat) => seat.name) });
  }

  /**
   * @param {string} what "code" or "link"
   * @param {string} text
   * @param {HTMLInputElement} input
   */
  async copy(what, text, input) {
    const ok = await copy(text, input);
    this.copied = ok ? what : null;
    $("#copy-status").textContent = ok ? t("table.copied") : "";
    clearTimeout(this.copyTimer);
    this.copyTimer = setTimeout(() => {
      $("#copy-status").textContent = "";
    }, 2500);
  }

  render() {
    const table = this.ctx.app.table;
    if (!table) return;
    this.hearSeats(table);
    this.codeText.value = table.code;
    this.linkText.value = shareLink(table.code);
    this.renderGame(table);
    const list = clear($("#seat-list"));
    table.seats.forEach((seat, index) => {
      const item = el("li", { class: `seat ${seat.connected ? "online" : "offline"}`, data: { seat: String(index) } }, [
        el("span", { class: "conn-dot", attrs: { "aria-hidden": "true" } }),
        el("span", { class: "player-name" }, [bdi(seat.name)]),
      ]);
      if (seat.host) item.append(el("span", { class: "badge host", text: t("table.host") }));
      if (index === table.you) item.append(el("span", { class: "badge", text: t("game.you") }));
      item.append(el("span", { class: "visually-hidden", text: t(seat.connected ? "seat.connected" : "seat.disconnected") }));
      list.append(item);
    });
    for (let i = table.seats.length; i < table.max_seats; i += 1) {
      list.append(el("li", { class: "seat free", text: t("table.free") }));
    }
    $("#seat-count").textContent = t("table.seat_count", { count: table.seats.length, max: table.max_seats });
    // The first to arrive hosts; if the host leaves, the lobby hands over to the next one.
    const hostSeat = table.seats.find((seat) => seat.host) ?? table.seats[0];
    const host = Boolean(table.seats[table.you]?.host);
    const enough = table.seats.length >= table.min_seats;
    /** @type {HTMLButtonElement} */
    const start = $("#start-game");
    show(start, host);
    start.disabled = !enough;
    const hint = clear($("#table-hint"));
    if (host) hint.append(t(enough ? "table.host_can_start" : "table.wait_players", { min: table.min_seats }));
    else hint.append(tNodes("table.wait_host", { host: bdi(hostSeat?.name ?? "") }));
    $("#table-error").textContent = this.error ? this.error() : "";
  }
}
