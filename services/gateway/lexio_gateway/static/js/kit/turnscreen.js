// @ts-check
// A turn-based game's table screen as the kit draws it from its controller (kit/turns.js):
// the turn line, the players, the message box, the log, the end panel with its rematch, and
// the page's call for attention. A game's screen extends it with its board and its own parts
// (kit/screen.js: a tile game's board and rack).
import { $, clear, show } from "../dom.js";
import { t } from "../i18n.js";
import { setAttention } from "../attention.js";
import { MessageBox } from "./message.js";
import { LogView } from "./log.js";
import { EndPanel } from "./endpanel.js";
import { renderPlayers } from "./players.js";

/**
 * Where the screen keeps its parts.
 * @typedef {object} TurnScreenIds
 * @property {string} message @property {string} log @property {string} end
 * @property {string} endBody the end panel's body (the panel itself for a game without more)
 * @property {string} [turn] the turn line @property {string} [players] the players' list
 * @property {{ rematch: string, joinNew: string, home: string, review?: string }} endButtons
 *   the end's buttons' ids (a game with a review gives the review button's)
 */

/**
 * What the game draws in the kit's parts.
 * @typedef {object} TurnScreenLook
 * @property {(entry: any, table: any) => HTMLElement} logLine a log entry's line
 * @property {import("./players.js").PlayerLook} [player] a seat's own marks in the list
 */

export class TurnScreen {
  /** @param {any} game the controller @param {TurnScreenIds} ids @param {TurnScreenLook} look */
  constructor(game, ids, look) {
    this.game = game;
    this.ids = ids;
    this.look = look;
    this.messageBox = new MessageBox($(ids.message));
    this.log = new LogView($(ids.log), look.logLine);
    this.end = new EndPanel($(ids.end), $(ids.endBody));
    this.turnText = "";
  }

  /** Forget what was drawn (a new table, or a new language): it is all drawn again. */
  reset() {
    this.resetScreen();
  }

  resetScreen() {
    this.log.reset();
    this.end.reset();
    this.messageBox.reset();
    this.turnText = "";
  }

  /** Everything the kit draws (a game's screen draws its own parts around it). */
  render() {
    if (!this.game.view) return;
    this.renderTurn();
    this.renderPlayers();
    this.renderLog();
    this.renderMessage();
    this.renderEnd();
    this.renderPlaying();
    this.renderAttention();
    this.renderControls();
  }

  /** The game's buttons (enabled or not), then the keyboard kept on the screen. */
  renderControls() {
    this.renderButtons();
    this.keepFocus();
  }

  /** Which of the game's controls may be used now: the game's. */
  renderButtons() {}

  /**
   * A focused control that became unusable (its move played, the turn gone, an action on its
   * way) would drop the keyboard to <body> at the next frame, and a keyboard or screen reader
   * player would have to find the page again: the board takes it instead.
   */
  keepFocus() {
    const active = document.activeElement;
    if (!(active instanceof HTMLButtonElement) || !active.disabled) return;
    if ($(this.game.ids.screen).contains(active)) this.game.focusBoard();
  }

  renderTurn() {
    if (this.ids.turn) this.renderTurnLine($(this.ids.turn));
  }

  /**
   * The turn line: the end, a state of the game's own (``special``: a pause), the player's
   * turn, or whose it is. Written only when it changes (it is the screen's heading line).
   * @param {HTMLElement} node @param {string | null} special
   */
  renderTurnLine(node, special = null) {
    const g = this.game;
    let text;
    if (g.over) text = t("end.title");
    else if (special) text = special;
    else if (g.myTurn) text = t("game.your_turn");
    else text = t("game.turn_of", { name: g.moverName() });
    if (text !== this.turnText) {
      this.turnText = text;
      node.textContent = text;
    }
    node.classList.toggle("mine", g.myTurn && !special);
  }

  renderPlayers() {
    if (!this.ids.players) return;
    const g = this.game;
    renderPlayers($(this.ids.players), g.table, g.over ? null : g.view.turn, this.look.player);
  }

  renderLog() {
    this.log.render(this.game.app.log, this.game.app.table);
  }

  renderMessage() {
    this.messageBox.render(this.game.message, this.prepareHint());
  }

  /** @returns {boolean} whether the message box says the player may prepare a move now */
  prepareHint() {
    return false;
  }

  renderEnd() {
    const g = this.game;
    this.end.render(g, (body) => this.drawEnding(clear(body)), {
      host: g.seat === 0,
      hostName: g.seatName(0),
      ids: this.ids.endButtons,
    });
  }

  /** The end's account in the panel's body, its heading (an <h2>) first: the game's.
   *  @param {HTMLElement} _body */
  drawEnding(_body) {}

  /** The tab's call for attention while the player's turn waits in a hidden tab. */
  renderAttention() {
    const g = this.game;
    if (!g.view) return; // another game's table: its own screen says whose turn it is
    setAttention(g.myTurn && document.hidden);
  }

  /** Four times a second (clocks, reserves): nothing without a clock. */
  tick() {}

  /** The tick, while the screen shows a view of its game. */
  tickIfShown() {
    if (this.game.view && !$(this.game.ids.screen).hidden) this.tick();
  }

  /** What only a game in progress shows (its controls, its leave box: data-while-playing),
   *  and the validate button's busy look while an action is on its way. */
  renderPlaying() {
    const g = this.game;
    for (const node of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll(`${g.ids.screen} [data-while-playing]`))) {
      show(node, !g.over);
    }
  }
}
