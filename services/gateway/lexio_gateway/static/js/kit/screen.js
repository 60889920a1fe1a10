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
    /** @type {number | null} the last move brought into view (its log number) */
    this.revealed = null;
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

  /**
   * Another player's move brought into view where the board is larger than its window (a
   * phone): the board's own window pans to its tiles, or the page scrolls to them. Nothing
   * moves when the tiles are in sight already (a desktop shows the whole board), for the
   * player's own moves, or when a table (re)opens.
   * @param {string} wrap the board's own scrolling window
   */
  revealLastMove(wrap) {
    const g = this.game;
    const entry = g.lastMove();
    const number = entry?.number ?? 0;
    const first = this.revealed === null;
    if (number === this.revealed) return;
    this.revealed = number;
    if (first || !entry || g.isOwnEntry(entry)) return;
    /** @type {HTMLElement[]} */
    const cells = [];
    for (const tile of entry.tiles ?? []) {
      const cell = this.board.cell(tile.row, tile.col);
      if (cell) cells.push(cell);
    }
    // In sight: the cell itself is what the page shows at its centre (not a sticky rack or
    // clocks over it, not outside the board's window or the screen).
    const seen = (/** @type {HTMLElement} */ cell) => {
      const r = cell.getBoundingClientRect();
      const under = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return under !== null && cell.contains(under);
    };
    if (!cells.length || cells.every(seen)) return;
    const rects = cells.map((cell) => cell.getBoundingClientRect());
    const top = Math.min(...rects.map((r) => r.top));
    const bottom = Math.max(...rects.map((r) => r.bottom));
    const left = Math.min(...rects.map((r) => r.left));
    const right = Math.max(...rects.map((r) => r.right));
    const pane = $(wrap);
    if (pane && (pane.scrollWidth > pane.clientWidth || pane.scrollHeight > pane.clientHeight)) {
      const box = pane.getBoundingClientRect();
      pane.scrollLeft += (left + right) / 2 - (box.left + box.right) / 2;
      pane.scrollTop += (top + bottom) / 2 - (box.top + box.bottom) / 2;
    } else {
      window.scrollBy(0, (top + bottom) / 2 - window.innerHeight / 2);
    }
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
