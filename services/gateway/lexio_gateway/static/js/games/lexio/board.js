// The clairière on screen: a 13×13 grid with its labels. Draws only; game.js decides.
// In a right-to-left page the CSS grid flows from the right, so column A (col 0) sits at the
// far right and an across word reads with its first letter rightmost (R34).
import { clear, el } from "../../dom.js";
import { t } from "../../i18n.js";
import { BLANK, SIZE, VALUES, cellName, colLabel, rowLabel, squareAt } from "./layout.js";

const LABELLED = new Set(["letter2", "letter3", "word2", "word3", "crossing", "source"]);
// Bonus cells whose visible mark is a word ("M×3"), not a symbol (✚, ◉): their accessible
// name starts with it (WCAG 2.5.3); a symbol is not said, the bonus's name is.
const SHOWN = new Set(["letter2", "letter3", "word2", "word3"]);

/** "C, 2 points" (a blank: "T, joker valant T, 0 point"): what a tile is, in words. */
export function tileWords(letter, blank) {
  const points = t("points_long", { count: blank ? 0 : VALUES[letter] });
  return blank ? t("cell.blank", { letter, points }) : t("cell.tile", { letter, points });
}

/** The bonus a tile covers, in a few words ("mot compte triple", "croisement"). */
export function bonusWords(kind) {
  const short = `bonus.${kind}.word`;
  const text = t(short);
  return text === short ? t(`bonus.${kind}.name`) : text;
}

/**
 * A cell's accessible name. It starts with what the cell shows (WCAG 2.5.3): a tile's letter
 * and value, or a bonus's mark, then the cell's name; then, for a tile, whether it was placed
 * this turn, the bonus it covers and whether it came with the last move.
 */
export function cellLabel({ row, col, kind, letter = null, blank = false, pending = false, last = false }) {
  const cell = cellName(row, col);
  if (kind === "wall") return t("cell.label", { cell, content: t("cell.wall") });
  if (letter === null) {
    if (!LABELLED.has(kind)) return t("cell.label", { cell, content: t("cell.empty") });
    const content = t(`bonus.${kind}.name`);
    if (!SHOWN.has(kind)) return t("cell.label", { cell, content });
    return t("cell.shown", { shown: t(`bonus.${kind}.short`), cell, content });
  }
  const parts = [tileWords(letter, blank), cell];
  if (pending) parts.push(t("cell.pending"));
  if (LABELLED.has(kind)) parts.push(t("cell.under", { bonus: bonusWords(kind) }));
  if (last) parts.push(t("cell.last"));
  return parts.join(t("sep.comma"));
}

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
          attrs: { role: "gridcell", tabindex: "-1", "aria-disabled": kind === "wall" ? "true" : null },
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
      cellNode.replaceChildren();
      let tileLetter = null;
      let tileBlank = false;
      if (/[a-zA-Z]/.test(ch)) {
        tileLetter = ch.toUpperCase();
        tileBlank = ch === ch.toLowerCase();
        cellNode.append(tile(tileLetter, { blank: tileBlank, last: s.last.has(i) }));
      } else if (pending) {
        tileLetter = pending.letter;
        tileBlank = pending.blank;
        cellNode.append(tile(pending.letter, { blank: pending.blank, pending: true, drag: "cell", index: i }));
      } else if (LABELLED.has(kind)) {
        cellNode.append(el("span", { class: "bonus-label", text: t(`bonus.${kind}.short`), attrs: { "aria-hidden": "true" } }));
      }
      cellNode.classList.toggle("has-tile", tileLetter !== null);
      cellNode.setAttribute(
        "aria-label",
        cellLabel({ row, col, kind, letter: tileLetter, blank: tileBlank, pending: Boolean(pending) && !/[a-zA-Z]/.test(ch), last: s.last.has(i) }),
      );
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
  // The space between them (not drawn: the tile is a grid) makes the visible text "S 1", the
  // start of the accessible names "S, 1 point" (WCAG 2.5.3, label in name).
  node.append(el("span", { class: "tile-letter", text: letter === BLANK ? "" : letter }), " ");
  node.append(el("span", { class: "tile-value", text: isBlank ? "" : String(VALUES[letter] ?? "") }));
  return node;
}
