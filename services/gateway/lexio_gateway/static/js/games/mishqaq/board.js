// al-Mishqaq's board on screen: a 22×22 grid with its labels, its two halves, the red start
// squares and the target columns (M4–M6). Never mirrored (M4): the halves are the players'
// sides, so the grid is left-to-right in every language. Draws only; mishqaq-game.js decides.
import { clear, el } from "../../dom.js";
import { t } from "../../i18n.js";
import { RED, SIZE, TARGET, cellName, colLabel, halfOf, parseCell, tileNode } from "./tiles.js";

/** "R ر, jeton latin bilingue": a tile in words, its visible letters first (WCAG 2.5.3). */
export function tileWords(tile) {
  if (tile.blank && !tile.letter) return t("mq.tile.blank_rack");
  if (tile.blank) return t(`mq.tile.${tile.owner}_blank`, { letter: tile.letter });
  if (tile.partner) return t(`mq.tile.${tile.owner}_bilingual`, { letter: tile.letter, partner: tile.partner });
  return t(`mq.tile.${tile.owner}`, { letter: tile.letter });
}

/** What a cell is besides its tile: a red square, a target column. */
function placeWords(row, col) {
  const parts = [];
  for (const side of ["latin", "arabic"]) {
    if (RED[side][0] === row && RED[side][1] === col) parts.push(t(`mq.cell.red_${side}`));
  }
  for (const side of ["latin", "arabic"]) {
    if (TARGET[side] === col) parts.push(t(`mq.cell.target_${side}`));
  }
  return parts;
}

/**
 * A cell's accessible name, starting with what it shows: a tile's letters, then the cell;
 * an empty cell: its name, "empty", and what the square is for.
 */
export function cellLabel({ row, col, tile = null, pending = false, last = false }) {
  const cell = cellName(row, col);
  const sep = t("sep.comma");
  if (!tile) return t("cell.label", { cell, content: [t("cell.empty"), ...placeWords(row, col)].join(sep) });
  const parts = [tileWords(tile), cell, ...placeWords(row, col)];
  if (pending) parts.push(t("cell.pending"));
  if (last) parts.push(t("cell.last"));
  return parts.join(sep);
}

export class MishqaqBoard {
  constructor(root) {
    this.root = root;
    this.cells = [];
    this.signatures = [];
    this.build();
  }

  build() {
    clear(this.root);
    this.cells = [];
    const head = el("div", { class: "board-row board-head", attrs: { role: "row" } });
    head.append(el("div", { class: "board-corner", attrs: { role: "presentation" } }));
    for (let col = 0; col < SIZE; col += 1) {
      const classes = ["col-label", `half-${halfOf(col)}`];
      if (col === TARGET.latin) classes.push("target-latin");
      if (col === TARGET.arabic) classes.push("target-arabic");
      head.append(el("div", { class: classes.join(" "), text: colLabel(col), attrs: { role: "columnheader" } }));
    }
    this.root.append(head);
    for (let row = 0; row < SIZE; row += 1) {
      const line = el("div", { class: "board-row", attrs: { role: "row" } });
      line.append(el("div", { class: "row-label", text: String(row + 1), attrs: { role: "rowheader" } }));
      for (let col = 0; col < SIZE; col += 1) {
        const classes = ["cell", `half-${halfOf(col)}`];
        if (col === 10) classes.push("mid-left");
        if (col === 11) classes.push("mid-right");
        for (const side of ["latin", "arabic"]) {
          if (RED[side][0] === row && RED[side][1] === col) classes.push("red", `red-${side}`);
          if (TARGET[side] === col) classes.push(`target-${side}`);
        }
        const cell = el("div", {
          class: classes.join(" "),
          attrs: { role: "gridcell", tabindex: "-1" },
          data: { row: String(row), col: String(col), drop: "cell" },
        });
        line.append(cell);
        this.cells.push(cell);
      }
      this.root.append(line);
    }
    this.signatures = this.cells.map(() => "");
  }

  cell(row, col) {
    return this.cells[row * SIZE + col];
  }

  /**
   * @param {object} s
   *   board: the view's 484 cell texts; pending: Map(index → tile placed this turn, not yet
   *   played); cursor: {row, col, dir} or null; last: Set of the last placement's indexes;
   *   lang: the interface language (labels are drawn again when it changes)
   */
  render(s) {
    for (let i = 0; i < this.cells.length; i += 1) {
      const row = Math.floor(i / SIZE);
      const col = i % SIZE;
      const text = s.board[i] || "";
      const pending = s.pending.get(i);
      const node = this.cells[i];
      const isCursor = Boolean(s.cursor) && s.cursor.row === row && s.cursor.col === col;
      node.classList.toggle("cursor", isCursor);
      for (const dir of ["across", "down", "up"]) node.classList.toggle(`dir-${dir}`, isCursor && s.cursor.dir === dir);
      node.tabIndex = isCursor ? 0 : -1;
      const signature = [s.lang, text, pending ? `${pending.code}${pending.letter}` : "", s.last.has(i)].join("|");
      if (this.signatures[i] === signature) continue;
      this.signatures[i] = signature;
      node.replaceChildren();
      const placed = parseCell(text);
      let tile = placed;
      if (placed) {
        node.append(tileNode(placed, { last: s.last.has(i) }));
      } else if (pending) {
        tile = pending;
        node.append(tileNode(pending, { pending: true, drag: "cell", index: i }));
      }
      node.classList.toggle("has-tile", Boolean(tile));
      node.setAttribute(
        "aria-label",
        cellLabel({ row, col, tile, pending: Boolean(pending) && !placed, last: s.last.has(i) }),
      );
    }
  }
}
