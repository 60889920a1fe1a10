// @ts-check
// Noughts and crosses' table screen, its controller (js/games.js): the grid, whose turn and
// which mark you play, the players, the log (each move also said through the live region),
// refusals, resigning and leaving, the end and its rematch. The client holds no rule: a mark
// is sent as pressed and the server judges it (docs/noughts.md), so a refusal is the server's
// and only its actor sees it.
import { $, clear, el, show } from "../../dom.js";
import { currentLanguage, t, tNodes } from "../../i18n.js";
import { announce } from "../../announce.js";
import { confirmDialog } from "../../dialogs.js";
import { bdi } from "../../text.js";
import { NoughtsBoard, cellName } from "./board.js";

/** N1: the host, seat 0, plays X; the other seat O. */
const MARKS = ["X", "O"];

/** @typedef {import("./board.js").Cell} Cell */

/**
 * How the game ended (docs/noughts.md): a draw on a full board, or a seat's win.
 * @typedef {{cause: "full_board", winner: null, line: Cell[], at: number}
 *   | {cause: "line" | "resign", winner: number, line: Cell[], at: number}} Ending
 */

/**
 * A seat's view (docs/noughts.md, "A view"): the board row by row ("", "X" or "O").
 * @typedef {object} NoughtsView
 * @property {number} seat
 * @property {string} mark      yours
 * @property {string[]} board
 * @property {number} turn      the seat to move
 * @property {Ending | null} ending
 * @property {number} now
 */

/**
 * A log entry (docs/noughts.md, "A log entry").
 * @typedef {{number: number, at: number, kind: "mark", seat: number, cell: Cell, ending: null}
 *   | {number: number, at: number, kind: "resign", seat: number, cell: null, ending: null}
 *   | {number: number, at: number, kind: "result", seat: null, cell: null, ending: Ending}} NoughtsEntry
 */

/** @typedef {{kind: "refusal" | "error", text: () => string}} Message */

export class NoughtsGame {
  // What the screen knows of the table it shows: reset() forgets it (a new table, or none).
  /** @type {string | null} the id of the action awaiting its answer: one mark at a time */
  acting;
  /** @type {Message | null} for this player only */
  message;
  /** @type {{message: Message | null, text: string} | null} the message last drawn */
  shown;
  /** @type {number | null} the last log number the live region has said (null: none at this table) */
  heard;
  /** @type {number | "over" | null} whose turn the live region said last ("over" once it has said the end) */
  turnKey;
  /** @type {string} what the end panel shows ("": not drawn) */
  endKey;
  /** @type {string | null} the rematch code the live region has said */
  offered;

  /** @param {import("../../games.js").Context} ctx */
  constructor(ctx) {
    this.ctx = ctx;
    this.board = new NoughtsBoard($("#noughts-board"), (row, col) => this.mark(row, col));
    $("#noughts-resign").addEventListener("click", () => this.resign());
    $("#noughts-leave").addEventListener("click", () => this.leave());
    this.reset();
  }

  reset() {
    this.acting = null;
    this.message = null;
    this.shown = null;
    this.heard = null;
    this.turnKey = null;
    this.endKey = "";
    this.offered = null;
    this.board.reset();
  }

  get app() {
    return this.ctx.app;
  }

  /** This game's view: the table's game is noughts, so the server sent its shape. */
  get view() {
    return /** @type {NoughtsView | null} */ (this.app.view);
  }

  get log() {
    return /** @type {NoughtsEntry[]} */ (this.app.log);
  }

  get over() {
    return Boolean(this.view?.ending);
  }

  get myTurn() {
    const view = this.view;
    return Boolean(view) && !this.over && view?.turn === view?.seat;
  }

  /** @param {number} seat */
  name(seat) {
    return this.app.table?.seats?.[seat]?.name ?? MARKS[seat];
  }

  // Server frames -------------------------------------------------------------------------

  update() {
    if (!this.view) return;
    // A refusal changes nothing: a new view means a move was accepted since, the refusal is past.
    this.message = null;
    this.hear();
    this.render();
  }

  reconnected() {
    this.acting = null;
  }

  /** Say each move since the last frame, then whose turn it is or the end; nothing of the past
   *  when the page (re)opens a game. */
  hear() {
    const view = this.view;
    if (!view) return;
    const log = this.log;
    const heard = this.heard;
    const first = heard === null;
    if (!first) {
      for (const entry of log) {
        // The result is said once, below, as the end.
        if (entry.number > heard && entry.kind !== "result") announce(this.entryNode(entry));
      }
    }
    this.heard = Math.max(this.heard ?? 0, log.length ? log[log.length - 1].number : 0);
    const key = this.over ? "over" : view.turn;
    if (key === this.turnKey) return;
    this.turnKey = key;
    if (view.ending) {
      announce([t("say.end_title"), " ", this.endingNode(view.ending)]);
      return;
    }
    const turn = this.myTurn ? t("game.your_turn") : tNodes("say.turn_of", { name: bdi(this.name(view.turn)) });
    if (first && !log.length) announce([t("say.game_start"), " ", t("noughts.you_play", { mark: view.mark }), " ", turn]);
    else announce(turn);
  }

  // Words ---------------------------------------------------------------------------------

  /** @param {NoughtsEntry} entry */
  entryNode(entry) {
    if (entry.kind === "result") return this.endingNode(entry.ending);
    const name = bdi(this.name(entry.seat));
    if (entry.kind === "mark") {
      const { row, col } = entry.cell;
      return tNodes("noughts.log.mark", { name, mark: bdi(MARKS[entry.seat]), cell: cellName(row, col) });
    }
    return tNodes("noughts.log.resign", { name });
  }

  /**
   * Why the game ended and who won: "Three in a row: … Ana wins!", or a draw.
   * @param {Ending} ending
   */
  endingNode(ending) {
    const node = el("span");
    if (ending.cause === "full_board") {
      node.append(t("noughts.end.full_board"));
      return node;
    }
    if (ending.cause === "line") {
      const cells = ending.line.map(({ row, col }) => cellName(row, col)).join(t("sep.comma"));
      node.append(t("noughts.end.line", { cells }));
    } else {
      node.append(tNodes("noughts.log.resign", { name: bdi(this.name(1 - ending.winner)) }));
    }
    node.append(" ", tNodes("end.winner", { name: bdi(this.name(ending.winner)) }));
    return node;
  }

  /** @param {string} reason */
  reasonText(reason) {
    const key = `noughts.reason.${reason}`;
    const text = t(key);
    return text === key ? t("reason.unspecified") : text;
  }

  // Drawing -------------------------------------------------------------------------------

  render() {
    const view = this.view;
    if (!view) return;
    this.board.render({ board: view.board, over: this.over, line: view.ending?.line ?? [] });
    const turn = $("#noughts-turn");
    if (this.over) turn.textContent = t("end.title");
    else if (this.myTurn) turn.textContent = t("game.your_turn");
    else turn.textContent = t("game.turn_of", { name: this.name(view.turn) });
    turn.classList.toggle("mine", this.myTurn);
    $("#noughts-you").textContent = t("noughts.you_play", { mark: view.mark });
    this.renderPlayers();
    this.renderLog();
    this.renderMessage();
    this.renderEnd();
    show($("#noughts-actions"), !this.over);
    show($("#noughts-leave-box"), !this.over);
  }

  renderPlayers() {
    const table = this.app.table;
    const list = clear($("#noughts-players"));
    const view = this.view;
    MARKS.forEach((mark, seat) => {
      const connected = table?.seats?.[seat]?.connected !== false;
      const item = el("li", { class: `noughts-player ${connected ? "online" : "offline"}` }, [
        el("span", { class: "conn-dot", attrs: { "aria-hidden": "true" } }),
        el("span", { class: "noughts-player-mark", text: mark, data: { mark } }),
        bdi(this.name(seat), "player-name"),
      ]);
      if (seat === view?.seat) item.append(el("span", { class: "badge", text: t("game.you") }));
      if (!connected) item.append(el("span", { class: "badge offline-badge", text: t("seat.disconnected") }));
      list.append(item);
    });
  }

  renderLog() {
    const root = clear($("#noughts-log"));
    const log = this.log;
    if (!log.length) root.append(el("li", { class: "log-empty", text: t("game.log_empty") }));
    for (const entry of log) {
      root.append(
        el("li", { class: `log-entry kind-${entry.kind}` }, [
          el("span", { class: "log-num", text: String(entry.number) }),
          el("span", { class: "log-body" }, [this.entryNode(entry)]),
        ]),
      );
    }
    root.scrollTop = root.scrollHeight;
  }

  renderMessage() {
    // An alert: drawn again only when it changes (a new refusal, a new language), or each
    // render would say it again.
    const text = this.message?.text() ?? "";
    if (this.shown && this.shown.message === this.message && this.shown.text === text) return;
    this.shown = { message: this.message, text };
    const box = clear($("#noughts-message"));
    box.className = this.message ? `message message-${this.message.kind}` : "message";
    if (this.message) box.append(el("p", { text }));
  }

  renderEnd() {
    const panel = $("#noughts-end");
    const ending = this.view?.ending;
    if (!ending) {
      show(panel, false);
      this.endKey = "";
      return;
    }
    const table = this.app.table;
    const rematch = this.app.rematch;
    const key = [currentLanguage(), rematch?.code, JSON.stringify(table?.seats?.map((seat) => seat.name))].join("|");
    if (key === this.endKey) return;
    const first = this.endKey === "";
    const hadFocus = panel.contains(document.activeElement);
    this.endKey = key;
    show(panel, true);
    const heading = el("h2", { text: t("end.title"), attrs: { tabindex: "-1" } });
    clear(panel).append(heading, el("p", { class: "end-winners" }, [this.endingNode(ending)]));
    // The shared rematch (docs/protocol.md): the host opens a new table, the other joins it.
    const actions = el("div", { class: "actions" });
    const host = this.name(0);
    /** @type {(id: string, text: string, onClick: () => void, primary?: boolean) => HTMLButtonElement} */
    const button = (id, text, onClick, primary = false) =>
      el("button", { class: primary ? "primary" : "", text, attrs: { type: "button", id }, on: { click: onClick } });
    if (table?.you === 0) {
      const again = () =>
        this.ctx.request({ type: "rematch" }, (reply) => {
          if (reply.type === "error") this.ctx.toast(this.ctx.errorText(reply));
        });
      actions.append(button("noughts-rematch", t("end.rematch"), again, true));
    } else if (rematch) {
      const offer = () => tNodes("end.rematch_offer", { host: bdi(rematch.host || host) });
      panel.append(el("p", { class: "end-offer" }, [offer()]));
      // Said when it comes: it appears in a panel the player may have finished reading.
      if (!first && rematch.code !== this.offered) announce(offer());
      this.offered = rematch.code;
      actions.append(button("noughts-join-new", t("end.join_new"), () => this.ctx.joinNewTable(rematch.code), true));
    } else {
      panel.append(el("p", { class: "muted end-offer" }, [tNodes("end.wait_host", { host: bdi(host) })]));
    }
    actions.append(button("noughts-home", t("end.home"), () => this.ctx.goHome()));
    panel.append(actions);
    // The keyboard lands on the result once, and stays in the panel when it is drawn again.
    if (first || hadFocus) heading.focus();
  }

  // Acting --------------------------------------------------------------------------------

  /**
   * @param {number} row
   * @param {number} col
   */
  mark(row, col) {
    if (this.view && !this.over) this.act({ mark: { row, col } });
  }

  /**
   * @param {import("../../protocol.js").Action} action
   * @param {{always?: boolean}} [options] always: also while another action awaits its answer
   */
  act(action, { always = false } = {}) {
    if (this.acting && !always) return;
    const id = this.ctx.request({ type: "act", action }, (reply) => this.replied(id, reply));
    if (!id) return;
    this.acting = id;
    this.message = null;
    this.render();
  }

  /**
   * @param {string | null} id
   * @param {import("../../protocol.js").Reply} reply
   */
  replied(id, reply) {
    if (this.acting === id) this.acting = null;
    if (reply.type === "refused") this.message = { kind: "refusal", text: () => this.reasonText(reply.reason) };
    else if (reply.type === "error") this.message = { kind: "error", text: () => this.ctx.errorText(reply) };
    this.render();
  }

  /** N7: at any moment, also out of turn; asked first, since it ends the game. */
  async resign() {
    const view = this.view;
    if (!view || this.over) return;
    const ok = await confirmDialog({
      title: t("noughts.confirm.resign_title"),
      text: t("noughts.confirm.resign_text", { name: this.name(1 - view.seat) }),
      ok: t("noughts.confirm.resign_ok"),
    });
    if (ok && this.view && !this.over) this.act({ resign: {} }, { always: true });
  }

  /** No clock: the seat stays and the game waits for its player (or a resignation). */
  async leave() {
    if (!this.view || this.over) return;
    const ok = await confirmDialog({ title: t("confirm.leave_title"), text: t("noughts.confirm.leave_text"), ok: t("confirm.leave_ok") });
    if (ok && this.view && !this.over) this.ctx.leaveGame();
  }
}
