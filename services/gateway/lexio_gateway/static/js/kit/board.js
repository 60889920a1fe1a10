// @ts-check
// A square grid board on screen: its column and row labels, its cells (a grid for assistive
// technology: one cell in the Tab order, the cursor's), and the cells drawn again only when
// what they show changes. A game's geometry says what its squares are and how a cell looks.
//
// For assistive technology the grid is the board itself, size rows of size cells: the labels
// (A–M, 1–13) are drawn for the eye and hidden from it, since every cell's name starts with
// its coordinates ("G7 : vide"). As header cells they made the grid one row and one column
// larger than the board, so that a reader's "ligne 9, colonne 9" was the cell H8, and the
// header row (its corner not a cell) one cell shorter than the others, so that each cell got
// the header of the column to its right (Orca: "I column header … H7").
//
// The cursor's row is named by the cursor's cell. Orca (43) reads a whole row of a table when
// the focus comes into it while the reader is in browse mode (as it is on a button: after
// "Passer", at the game's start), every empty cell one by one, unless the row has a name: then
// it says that name. Within the grid (focus mode) a row's name is not said.
import { clear, el } from "../dom.js";

/**
 * @typedef {{ row: number, col: number, index: number, text: string, pending: any,
 *   last: boolean }} CellState what one cell holds now: the view's text of it, the tile
 *   placed there this turn (or undefined), whether the last move placed it
 * @typedef {object} Geometry
 * @property {number} size the board's side
 * @property {string[]} directions the cursor's directions (each a class dir-<name>)
 * @property {(col: number) => string} colLabel
 * @property {(row: number) => string} rowLabel
 * @property {(col: number) => string[]} [colClasses] a column label's classes besides col-label
 * @property {(row: number, col: number) => string[]} cellClasses a cell's classes besides cell
 * @property {(row: number, col: number) => boolean} [closed] a square nothing goes on (a wall)
 * @property {(pending: any) => string} pendingKey what tells apart two tiles placed this turn
 * @property {(node: HTMLElement, cell: CellState) => { tile: boolean, label: string }} draw
 *   fill an (emptied) cell; says whether it shows a tile, and the cell's accessible name
 */

export class GridBoard {
  /** @param {HTMLElement} root @param {Geometry} geometry */
  constructor(root, geometry) {
    this.root = root;
    this.geometry = geometry;
    /** @type {HTMLElement[]} */ this.cells = [];
    /** @type {HTMLElement[]} the grid's rows, top to bottom */ this.rows = [];
    /** @type {string[]} */ this.signatures = [];
    this.build();
  }

  build() {
    const g = this.geometry;
    clear(this.root);
    this.cells = [];
    this.rows = [];
    const head = el("div", { class: "board-row board-head", attrs: { "aria-hidden": "true" } });
    head.append(el("div", { class: "board-corner" }));
    for (let col = 0; col < g.size; col += 1) {
      const classes = ["col-label", ...(g.colClasses?.(col) ?? [])];
      head.append(el("div", { class: classes.join(" "), text: g.colLabel(col) }));
    }
    this.root.append(head);
    for (let row = 0; row < g.size; row += 1) {
      const line = el("div", { class: "board-row", attrs: { role: "row" } });
      line.append(el("div", { class: "row-label", text: g.rowLabel(row), attrs: { "aria-hidden": "true" } }));
      for (let col = 0; col < g.size; col += 1) {
        const closed = g.closed?.(row, col) ?? false;
        const cell = el("div", {
          class: ["cell", ...g.cellClasses(row, col)].join(" "),
          attrs: { role: "gridcell", tabindex: "-1", "aria-disabled": closed ? "true" : null },
          data: { row: String(row), col: String(col), ...(closed ? {} : { drop: "cell" }) },
        });
        line.append(cell);
        this.cells.push(cell);
      }
      this.root.append(line);
      this.rows.push(line);
    }
    this.signatures = this.cells.map(() => "");
  }

  /** @param {number} row @param {number} col @returns {HTMLElement | undefined} */
  cell(row, col) {
    return this.cells[row * this.geometry.size + col];
  }

  /**
   * @param {{ board: ArrayLike<string>, pending: Map<number, any>,
   *   cursor: { row: number, col: number, dir: string } | null, last: Set<number>,
   *   lang: string }} s the view's cells; the tiles placed this turn by index; the cursor
   *   (null: none); the last move's indexes; the interface language (labels follow it)
   */
  render(s) {
    const g = this.geometry;
    for (let i = 0; i < this.cells.length; i += 1) {
      const row = Math.floor(i / g.size);
      const col = i % g.size;
      const text = s.board[i] || "";
      const pending = s.pending.get(i);
      const node = this.cells[i];
      const isCursor = Boolean(s.cursor) && s.cursor?.row === row && s.cursor?.col === col;
      node.classList.toggle("cursor", isCursor);
      for (const dir of g.directions) node.classList.toggle(`dir-${dir}`, isCursor && s.cursor?.dir === dir);
      node.tabIndex = isCursor ? 0 : -1;
      const last = s.last.has(i);
      const signature = [s.lang, text, pending ? g.pendingKey(pending) : "", last].join("|");
      if (this.signatures[i] === signature) continue;
      this.signatures[i] = signature;
      node.replaceChildren();
      const drawn = g.draw(node, { row, col, index: i, text, pending, last });
      node.classList.toggle("has-tile", drawn.tile);
      node.setAttribute("aria-label", drawn.label);
    }
    this.nameCursorRow(s.cursor);
  }

  /** The cursor's row named as its cell is (see the top of this file), the others unnamed.
   *  @param {{ row: number, col: number } | null} cursor */
  nameCursorRow(cursor) {
    this.rows.forEach((line, row) => {
      const label = cursor?.row === row ? this.cell(row, cursor.col)?.getAttribute("aria-label") : null;
      if (label) line.setAttribute("aria-label", label);
      else line.removeAttribute("aria-label");
    });
  }
}
