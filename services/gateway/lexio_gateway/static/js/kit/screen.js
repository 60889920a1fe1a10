// @ts-check
// A tile game's table screen as the kit draws it: a turn-based screen (kit/turnscreen.js)
// with the grid board and the rack, from the controller (kit/editor.js). A game's view
// extends it with its own parts (clocks, scores, preview, pause…).
import { $ } from "../dom.js";
import { GridBoard } from "./board.js";
import { RackView } from "./rackview.js";
import { TurnScreen } from "./turnscreen.js";

/**
 * @typedef {import("./turnscreen.js").TurnScreenIds & { board: string, rack: string,
 *   rackEmpty: string }} ScreenIds
 * @typedef {import("./turnscreen.js").TurnScreenLook & { geometry: import("./board.js").Geometry,
 *   rack: import("./rackview.js").RackLook }} ScreenLook
 */

export class TileScreen extends TurnScreen {
  /** @param {any} game the controller @param {ScreenIds} ids @param {ScreenLook} look */
  constructor(game, ids, look) {
    super(game, ids, look);
    this.rackEmpty = ids.rackEmpty;
    this.board = new GridBoard($(ids.board), look.geometry);
    this.rack = new RackView($(ids.rack), look.rack);
    /** @type {number | null} the last move brought into view (its log number) */
    this.revealed = null;
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
    $(this.rackEmpty).hidden = g.rackTiles().length > 0 || g.over;
  }

  renderPlaying() {
    super.renderPlaying();
    $(this.game.ids.validate).classList.toggle("busy", Boolean(this.game.acting));
  }

  /** Tiles placed out of turn: the player may prepare a move while another plays. */
  prepareHint() {
    const g = this.game;
    return !g.message && g.pending.length > 0 && !g.myTurn && !g.over;
  }
}
