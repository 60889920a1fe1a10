// The clairière on screen: a 13×13 grid with its labels. Draws only; game.js decides.
// In a right-to-left page the CSS grid flows from the right, so column A (col 0) sits at the
// far right and an across word reads with its first letter rightmost (R34).
import { clear, el } from "./dom.js";
import { t } from "./i18n.js";
import { BLANK, SIZE, VALUES, cellName, colLabel, rowLabel, squareAt } from "./layout.js";

const LABELLED = new Set(["letter2", "letter3", "word2", "word3", "crossing", "source"]);

export class BoardView {
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
      head.append(el("div", { class: "col-label", text: colLabel(col), attrs: { role: "columnheader" } }));
    }
    this.root.append(head);
    for (let row = 0; row < SIZE; row += 1) {
      const line = el("div", { class: "board-row", attrs: { role: "row" } });
      line.append(el("div", { class: "row-label", text: rowLabel(row), attrs: { role: "rowheader" } }));
      for (let col = 0; col < SIZE; col += 1) {
        const kind = squareAt(row, col);
        const cell = el("div", {
          class: `cell sq-${kind}`,
          attrs: { role: "gridcell", tabindex: "-1", "aria-disabled": kind === "wall" },
          data: { row: String(row), col: String(col), ...(kind === "wall" ? {} : { drop: "cell" }) },
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
   *   board: the view's 169 characters; pending: Map(index → {letter, blank}) of tiles placed
   *   this turn, not yet validated; cursor: {row, col, across}; last: Set of indexes of the
   *   last move's tiles; lang: the interface language (labels are re-drawn when it changes)
   */
  render(s) {
    for (let i = 0; i < this.cells.length; i += 1) {
      const row = Math.floor(i / SIZE);
      const col = i % SIZE;
      const kind = squareAt(row, col);
      const ch = s.board[i] || ".";
      const pending = s.pending.get(i);
      const signature = [s.lang, ch, pending ? `${pending.letter}${pending.blank}` : "", s.last.has(i)].join("|");
      const cellNode = this.cells[i];
      const isCursor = s.cursor && s.cursor.row === row && s.cursor.col === col;
      cellNode.classList.toggle("cursor", Boolean(isCursor));
      cellNode.classList.toggle("dir-across", Boolean(isCursor && s.cursor.across));
      cellNode.classList.toggle("dir-down", Boolean(isCursor && !s.cursor.across));
      cellNode.tabIndex = isCursor ? 0 : -1;
      if (this.signatures[i] === signature) continue;
      this.signatures[i] = signature;
      clear(cellNode);
      let content;
      if (kind === "wall") {
        content = t("cell.wall");
      } else if (/[a-zA-Z]/.test(ch)) {
        const blank = ch === ch.toLowerCase();
        cellNode.append(tile(ch.toUpperCase(), { blank, last: s.last.has(i) }));
        content = t(blank ? "cell.blank" : "cell.tile", { letter: ch.toUpperCase() });
      } else if (pending) {
        cellNode.append(
          tile(pending.letter, { blank: pending.blank, pending: true, drag: "cell", index: i }),
        );
        content = t("cell.pending", { letter: pending.letter });
      } else {
        if (LABELLED.has(kind)) {
          cellNode.append(el("span", { class: "bonus-label", text: t(`bonus.${kind}.short`), attrs: { "aria-hidden": "true" } }));
        }
        content = LABELLED.has(kind) ? t(`bonus.${kind}.name`) : t("cell.empty");
      }
      cellNode.classList.toggle("has-tile", Boolean(pending) || /[a-zA-Z]/.test(ch));
      cellNode.setAttribute("aria-label", t("cell.label", { cell: cellName(row, col), content }));
    }
  }
}

/** A tile element: the letter and its value; a blank shows its letter, marked, worth 0. */
export function tile(letter, { blank = false, pending = false, last = false, drag, index } = {}) {
  const isBlank = blank || letter === BLANK;
  const node = el("span", {
    class: ["tile", isBlank ? "blank" : "", pending ? "pending" : "", last ? "last" : ""].join(" ").trim(),
    attrs: { "aria-hidden": "true" },
    data: drag ? { drag, index: String(index) } : {},
  });
  node.append(el("span", { class: "tile-letter", text: letter === BLANK ? "" : letter }));
  node.append(el("span", { class: "tile-value", text: isBlank ? "" : String(VALUES[letter] ?? "") }));
  return node;
}
