// @ts-check
// A turn-based game's table controller, as every game of the site shares it: its view and
// whose turn it is, the action channel (kit/actions.js: one action in flight, its reply, the
// refusal's message), the narrator (kit/narrator.js: each move said, then whose turn it is, or
// the end), the keys that ask to hear the last move again and the game's state (kit/ask.js),
// leaving and resigning (asked first), the help open on a first game. A game
// subclasses it with its board, its own actions and its words (the hooks below); its drawing
// is a TurnScreen's (kit/turnscreen.js). The tile games' editor (kit/editor.js) is one such
// subclass.
import { currentLanguage, onLanguageChange, t, tNodes } from "../i18n.js";
import { confirmDialog } from "../dialogs.js";
import { answer } from "../announce.js";
import { bdi } from "../text.js";
import { askedFor } from "./ask.js";
import { openHelpOnFirstGame } from "./firstgame.js";
import { ActionChannel } from "./actions.js";
import { Narrator } from "./narrator.js";

/**
 * What the message box says to this player only: a refusal, an error, or a hint ("info").
 * @typedef {{ kind: string, reason?: string, lines: () => Array<string | Node> }} Message
 * @typedef {{ game: string, screen: string, help: string, leave?: string, resign?: string,
 *   catalog?: string }} TurnIds the game's id and where its screen keeps its parts (help: its
 *   help's <details>; leave, resign: its buttons, if it has them); catalog: its catalog keys'
 *   prefix, if not its id
 * @typedef {{ title: string, text: string, ok: string }} Confirmation
 */

export class TurnGame {
  /**
   * @param {import("../games.js").Context} ctx
   * @param {TurnIds} ids
   */
  constructor(ctx, ids) {
    this.ctx = ctx;
    this.ids = ids;
    /** @type {Message | null} */ this.message = null;
    /** @type {any} the screen's drawing (a TurnScreen), given by start() */ this.ui = null;
    this.actions = new ActionChannel({
      request: (frame, onReply) => this.ctx.request(frame, onReply),
      seq: () => this.app.seq,
      placedShown: () => this.placedShown(),
      acked: (kind) => this.acked(kind),
      refused: (frame) => this.refused(frame),
      failed: (frame) => {
        this.message = { kind: "error", lines: () => [this.ctx.errorText(frame)] };
      },
      replied: () => this.ui.render(),
    });
    this.narrator = new Narrator(this, ids.game);
  }

  /**
   * Start the screen: its drawing, a first reset, the wiring, the clocks' ticks.
   * @param {any} ui
   */
  start(ui) {
    this.ui = ui;
    this.reset();
    this.wire();
    onLanguageChange(() => this.languageChanged());
    document.addEventListener("visibilitychange", () => this.ui.renderAttention());
    setInterval(() => this.ui.tickIfShown(), 250);
  }

  /** A new table (or none): forget everything of the previous one. */
  reset() {
    this.resetTurns();
    this.ui.reset();
  }

  /** What every turn-based screen forgets of the table before. */
  resetTurns() {
    this.message = null;
    this.actions.reset();
    this.narrator.reset();
    openHelpOnFirstGame(this.ids.help, this.ids.game);
  }

  /** Wire the screen's own controls (a game adds its own, after calling this). */
  wire() {
    const click = (/** @type {string | undefined} */ selector, /** @type {() => void} */ then) => {
      if (selector) document.querySelector(selector)?.addEventListener("click", then);
    };
    click(this.ids.leave, () => this.leave());
    click(this.ids.resign, () => this.resign());
    // Anywhere on the screen (the board, the rack, a button, the log), not only on the board.
    document.addEventListener("keydown", (event) => this.askKey(event));
  }

  /** @returns {boolean} whether the screen is in sight with its game, a modal dialog closed
   *  (the page behind a modal dialog is inert: a reader would not hear its live regions) */
  get answering() {
    const screen = document.querySelector(this.ids.screen);
    return Boolean(this.view) && screen instanceof HTMLElement && !screen.hidden && !document.querySelector("dialog[open]");
  }

  /** Alt+L, Alt+P (kit/ask.js): the last move again, the game's state; held down, said once.
   *  @param {KeyboardEvent} event */
  askKey(event) {
    const asked = askedFor(event);
    if (!asked || !this.answering) return;
    event.preventDefault();
    if (event.repeat) return;
    if (asked === "last") this.sayLastMove();
    else this.sayState();
  }

  languageChanged() {
    this.ui.reset();
    this.ui.render();
  }

  get app() {
    return this.ctx.app;
  }

  get table() {
    return this.app.table;
  }

  /** @returns {number} the player's seat (-1: none) */
  get seat() {
    return this.app.table?.you ?? -1;
  }

  /**
   * The view, when the table is this game's (another game's is not this screen's): its shape
   * is the game's (docs/<game>.md).
   * @type {any}
   */
  get view() {
    return this.app.table?.game === this.ids.game ? this.app.view : null;
  }

  get over() {
    return Boolean(this.view?.ending);
  }

  /** @returns {boolean} whether the player is to move (the view's turn is a seat: a game
   *  whose turn is named otherwise says so) */
  get myTurn() {
    return Boolean(this.view) && !this.over && this.view.turn === this.seat;
  }

  /** @returns {string | null} the id of the action in flight, if any */
  get acting() {
    return this.actions.acting;
  }

  /** @param {number} seat @returns {string} a seat's player's name */
  seatName(seat) {
    return this.table?.seats?.[seat]?.name ?? "";
  }

  // Server frames -----------------------------------------------------------------------

  /** A new snapshot or view (or table): what the game keeps of it, then said and drawn. */
  update() {
    if (!this.view) return;
    this.viewArrived();
    if (this.message?.kind === "refusal" && this.refusalPast()) this.message = null;
    this.hear();
    this.ui.render();
  }

  /** A view arrived (before anything is said or drawn from it). */
  viewArrived() {}

  /** @returns {boolean} whether a refusal shown is past (a new view: a move was accepted
   *  since, or the turn went on) */
  refusalPast() {
    return true;
  }

  render() {
    this.ui.render();
  }

  /** The connection came back: whatever was in flight is over; the view tells the truth. */
  reconnected() {
    this.actions.reconnected();
  }

  // Acting ------------------------------------------------------------------------------

  /** @param {any} action @param {string} kind @param {{ always?: boolean }} options */
  act(action, kind, { always = false } = {}) {
    if (!this.actions.send(action, kind, { always })) return;
    this.message = null;
    this.ui.render();
  }

  /** An action of this kind was accepted. @param {string} _kind */
  acked(_kind) {
    this.message = null;
  }

  /** The move an ack answered is on the board now (kit/actions.js). */
  placedShown() {}

  /** @param {any} frame a refusal of an act */
  refused(frame) {
    this.message = { kind: "refusal", reason: frame.reason, lines: () => this.refusalLines(frame) };
  }

  /** @param {any} frame @returns {Array<string | Node>} a refusal's lines */
  refusalLines(frame) {
    return [this.reasonText(frame.reason)];
  }

  /** A refusal's reason in words: the game's catalog first, the site's, else "unspecified".
   *  @param {string} reason */
  reasonText(reason) {
    for (const key of [`${this.ids.catalog ?? this.ids.game}.reason.${reason}`, `reason.${reason}`]) {
      const text = t(key);
      if (text !== key) return text;
    }
    return t("reason.unspecified");
  }

  /** @param {string} key @param {Record<string, any>} params a hint for this player */
  info(key, params = {}) {
    this.message = { kind: "info", lines: () => [t(key, params)] };
    this.ui.renderMessage();
  }

  /** The keyboard to the board (its cell that takes the focus). */
  focusBoard() {
    /** @type {HTMLElement | null} */ (document.querySelector(`${this.ids.screen} [role="grid"] [tabindex="0"]`))?.focus();
  }

  /** @returns {string} the leave dialog's text */
  get leaveText() {
    return t("confirm.leave_text");
  }

  /** @returns {Confirmation} what resigning asks first: the others win at once */
  resignConfirmation() {
    const others = (this.table?.seats ?? []).map((_, seat) => this.seatName(seat)).filter((_, seat) => seat !== this.seat);
    const names = new Intl.ListFormat(currentLanguage(), { type: "conjunction" }).format(others);
    return { title: t("confirm.resign_title"), text: t("confirm.resign_text", { name: names }), ok: t("confirm.resign_ok") };
  }

  /** Away from a game in progress: the seat stays (a game's policy says what its absence
   *  does); coming back is from home. */
  async leave() {
    if (!this.view || this.over) return;
    const ok = await confirmDialog({ title: t("confirm.leave_title"), text: this.leaveText, ok: t("confirm.leave_ok") });
    if (ok && this.view && !this.over) this.ctx.leaveGame();
  }

  /** At any moment, also out of turn: asked first, since it ends the game. */
  async resign() {
    if (!this.view || this.over) return;
    const ok = await confirmDialog(this.resignConfirmation());
    if (ok && this.view && !this.over) this.act({ resign: {} }, "resign", { always: true });
  }

  // What the player asks to hear (kit/ask.js) -------------------------------------------

  /** Alt+L: the last move again, as the narrator said it (who, the words and points, the
   *  tiles exchanged, a pass and why…), or that there is none yet. */
  sayLastMove() {
    const log = this.app.log;
    for (let i = log.length - 1; i >= 0; i -= 1) {
      if (!this.isMove(log[i])) continue;
      const spoken = this.spokenEntry(log[i]);
      if (spoken) {
        answer(spoken);
        return;
      }
    }
    answer(t("game.log_empty"));
  }

  /** @param {any} _entry a log entry @returns {boolean} whether it is a move (what the last
   *  move is: a game's log may hold other events, such as pauses) */
  isMove(_entry) {
    return true;
  }

  /** Alt+P: the game's state as its screen shows it (the game's spokenState). */
  sayState() {
    answer(this.spokenState());
  }

  /** @returns {any} the game's state in words: the end, else whose turn it is (a game adds
   *  what its screen shows: scores, clocks) */
  spokenState() {
    return this.over ? this.spokenEnding() : this.spokenTurn();
  }

  /** @returns {any} "À vous de jouer !" or "Au tour de Ana." */
  spokenTurn() {
    return this.myTurn ? t("game.your_turn") : tNodes("say.turn_of", { name: bdi(this.moverName()) });
  }

  // What the live region says: the narrator's hooks ------------------------------------

  /** Say what happened since the last frame (kit/narrator.js). */
  hear() {
    this.narrator.hear();
  }

  /** @param {any} _entry a log entry @returns {any} it as the live region says it, or null */
  spokenEntry(_entry) {
    return null;
  }

  /** @returns {boolean} whether what is said now is said at once (the last seconds) */
  urgent() {
    return false;
  }

  /** @returns {boolean} whether the log's entries are said at once */
  entriesUrgent() {
    return false;
  }

  /** @param {any} _entry @returns {boolean} whether the end's own sentence says this entry */
  endingSays(_entry) {
    return false;
  }

  /** @returns {string} what changes when another player is to move (or a new turn starts) */
  currentTurnKey() {
    return String(this.view.turn);
  }

  /** A new turn (or the end). */
  turnChanged() {}

  /** @returns {string} the name of the player to move */
  moverName() {
    return this.seatName(this.view.turn);
  }

  /** @returns {any} the end as the live region says it */
  spokenEnding() {
    return "";
  }

  /** @returns {any[] | null} what is said before whose turn it is when a game starts, or null */
  startWords() {
    return this.app.log.length ? null : [t("say.game_start")];
  }

  /** @param {any} _entry a log entry @returns {boolean} whether the player made it */
  isOwnEntry(_entry) {
    return false;
  }
}
