// @ts-check
// The clairière on screen: a 13×13 grid with its labels. Draws only; game.js decides.
// In a right-to-left page the CSS grid flows from the right, so column A (col 0) sits at the
// far right and an across word reads with its first letter rightmost (R34).
import { el } from "../../dom.js";
import { t } from "../../i18n.js";
import { BLANK, SIZE, VALUES, cellName, colLabel, rowLabel, squareAt } from "./layout.js";

const LABELLED = new Set(["letter2", "letter3", "word2", "word3", "crossing", "source"]);
// Bonus cells whose visible mark is a word ("M×3"), not a symbol (✚, ◉): their accessible
// name starts with it (WCAG 2.5.3); a symbol is not said, the bonus's name is.
const SHOWN = new Set(["letter2", "letter3", "word2", "word3"]);

/** "C, 2 points" (a blank: "T, joker valant T, 0 point"): what a tile is, in words.
 *  @param {string} letter @param {boolean} [blank] */
export function tileWords(letter, blank) {
  const points = t("points_long", { count: blank ? 0 : VALUES[letter] });
  return blank ? t("cell.blank", { letter, points }) : t("cell.tile", { letter, points });
}

/** The bonus a tile covers, in a few words ("mot compte triple", "croisement").
 *  @param {string} kind */
export function bonusWords(kind) {
  const short = `bonus.${kind}.word`;
  const text = t(short);
  return text === short ? t(`bonus.${kind}.name`) : text;
}

/**
 * A cell's accessible name. It starts with what the cell shows (WCAG 2.5.3): a tile's letter
 * and value, or a bonus's mark, then the cell's name; then, for a tile, whether it was placed
 * this turn, the bonus it covers and whether it came with the last move.
 * @param {{ row: number, col: number, kind: string, letter?: string | null, blank?: boolean,
 *   pending?: boolean, last?: boolean }} cell
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

/** The clairière as the kit's grid board draws it (kit/board.js). */
export const GEOMETRY = {
  size: SIZE,
  directions: ["across", "down"],
  colLabel,
  rowLabel,
  /** @param {number} row @param {number} col */
  cellClasses: (row, col) => [`sq-${squareAt(row, col)}`],
  /** @param {number} row @param {number} col */
  closed: (row, col) => squareAt(row, col) === "wall",
  /** @param {{ letter: string, blank: boolean }} pending */
  pendingKey: (pending) => `${pending.letter}${pending.blank}`,
  /** @param {HTMLElement} node @param {import("../../kit/board.js").CellState} cell */
  draw(node, { row, col, index, text, pending, last }) {
    const kind = squareAt(row, col);
    let letter = null;
    let blank = false;
    const onBoard = /[a-zA-Z]/.test(text);
    if (onBoard) {
      letter = text.toUpperCase();
      blank = text === text.toLowerCase();
      node.append(tile(letter, { blank, last }));
    } else if (pending) {
      letter = pending.letter;
      blank = pending.blank;
      node.append(tile(pending.letter, { blank: pending.blank, pending: true, drag: "cell", index }));
    } else if (LABELLED.has(kind)) {
      node.append(el("span", { class: "bonus-label", text: t(`bonus.${kind}.short`), attrs: { "aria-hidden": "true" } }));
    }
    const label = cellLabel({ row, col, kind, letter, blank, pending: Boolean(pending) && !onBoard, last });
    return { tile: letter !== null, label };
  },
};

/**
 * A tile element: the letter and its value; a blank shows its letter, marked, worth 0.
 * @param {string} letter
 * @param {{ blank?: boolean, pending?: boolean, last?: boolean, drag?: string, index?: number }} [look]
 */
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
