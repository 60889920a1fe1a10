// @ts-check
// al-Mishqaq's board on screen: a 22×22 grid with its labels, its two halves, the red start
// squares and the target columns (M4–M6). Never mirrored (M4): the halves are the players'
// sides, so the grid is left-to-right in every language. Draws only; mishqaq-game.js decides.
import { t } from "../../i18n.js";
import { RED, SIZE, TARGET, cellName, colLabel, halfOf, parseCell, tileNode } from "./tiles.js";

/** "R ر, jeton latin bilingue": a tile in words, its visible letters first (WCAG 2.5.3).
 *  @param {{ letter: string, partner?: string, blank?: boolean, owner?: string }} tile */
export function tileWords(tile) {
  if (tile.blank && !tile.letter) return t("mq.tile.blank_rack");
  if (tile.blank) return t(`mq.tile.${tile.owner}_blank`, { letter: tile.letter });
  if (tile.partner) return t(`mq.tile.${tile.owner}_bilingual`, { letter: tile.letter, partner: tile.partner });
  return t(`mq.tile.${tile.owner}`, { letter: tile.letter });
}

/** What a cell is besides its tile: a red square, a target column.
 *  @param {number} row @param {number} col */
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
 * @param {{ row: number, col: number, tile?: any, pending?: boolean, last?: boolean }} cell
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

/** The board as the kit's grid board draws it (kit/board.js). */
export const GEOMETRY = {
  size: SIZE,
  directions: ["across", "down", "up"],
  colLabel,
  /** @param {number} row */
  rowLabel: (row) => String(row + 1),
  /** @param {number} col */
  colClasses(col) {
    const classes = [`half-${halfOf(col)}`];
    if (col === TARGET.latin) classes.push("target-latin");
    if (col === TARGET.arabic) classes.push("target-arabic");
    return classes;
  },
  /** @param {number} row @param {number} col */
  cellClasses(row, col) {
    const classes = [`half-${halfOf(col)}`];
    if (col === 10) classes.push("mid-left");
    if (col === 11) classes.push("mid-right");
    for (const side of ["latin", "arabic"]) {
      if (RED[side][0] === row && RED[side][1] === col) classes.push("red", `red-${side}`);
      if (TARGET[side] === col) classes.push(`target-${side}`);
    }
    return classes;
  },
  /** @param {{ code: string, letter: string }} pending */
  pendingKey: (pending) => `${pending.code}${pending.letter}`,
  /** @param {HTMLElement} node @param {import("../../kit/board.js").CellState} cell */
  draw(node, { row, col, index, text, pending, last }) {
    const placed = parseCell(text);
    let tile = placed;
    if (placed) {
      node.append(tileNode(placed, { last }));
    } else if (pending) {
      tile = pending;
      node.append(tileNode(pending, { pending: true, drag: "cell", index }));
    }
    return { tile: Boolean(tile), label: cellLabel({ row, col, tile, pending: Boolean(pending) && !placed, last }) };
  },
};
