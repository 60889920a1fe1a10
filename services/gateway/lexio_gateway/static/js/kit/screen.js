// @ts-check
// A tile game's table screen as the kit draws it: the grid board, the rack, the message box,
// the log and the end panel, from the controller (kit/editor.js). A game's view extends it
// with its own parts (clocks, scores, preview, pause…).
import { $ } from "../dom.js";
import { t } from "../i18n.js";
import { GridBoard } from "./board.js";
import { RackView } from "./rackview.js";
import { MessageBox } from "./message.js";
import { LogView } from "./log.js";
import { EndPanel } from "./endpanel.js";

/**
 * @typedef {{ board: string, rack: string, rackEmpty: string, message: string, log: string,
 *   end: string, endBody: string }} ScreenIds
 * @typedef {{ geometry: import("./board.js").Geometry, rack: import("./rackview.js").RackLook,
 *   logLine: (entry: any, table: any) => HTMLElement }} ScreenLook
 */

export class TileScreen {
  /** @param {any} game the controller @param {ScreenIds} ids @param {ScreenLook} look */
  constructor(game, ids, look) {
    this.game = game;
    this.ids = ids;
    this.board = new GridBoard($(ids.board), look.geometry);
    this.rack = new RackView($(ids.rack), look.rack);
    this.messageBox = new MessageBox($(ids.message));
    this.log = new LogView($(ids.log), look.logLine);
    this.end = new EndPanel($(ids.end), $(ids.endBody));
    this.turnText = "";
  }

  /** Forget what was drawn (a new table, or a new language): it is all drawn again. */
  resetScreen() {
    this.log.reset();
    this.end.reset();
    this.messageBox.reset();
    this.turnText = "";
  }

  renderBoard() {
    if (this.game.view) this.board.render(this.game.boardState());
  }

  renderRack() {
    const g = this.game;
    this.rack.render(g.rackTiles(), g.selected);
    $(this.ids.rackEmpty).hidden = g.rackTiles().length > 0 || g.over;
  }

  renderLog() {
    this.log.render(this.game.app.log, this.game.app.table);
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

  renderMessage() {
    const g = this.game;
    this.messageBox.render(g.message, !g.message && g.pending.length > 0 && !g.myTurn && !g.over);
  }
}
