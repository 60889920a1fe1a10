// @ts-check
// The board, "la clairière" (R7–R9): must match lexio_rules.board.LAYOUT cell by cell
// (tests/web/test_web_layout.py reads the rows below). Tokens: ## walled, * source,
// L2 L3 letter bonus, W2 W3 word bonus, X crossing, . plain.
export const LAYOUT_ROWS = [
  "## ## .  .  W3 .  .  .  W3 .  .  ## ##",
  "## ## W2 .  .  .  .  .  .  .  W2 ## ##",
  ".  W2 .  .  L2 .  .  .  L2 .  .  W2 .",
  ".  .  .  X  .  .  .  .  .  X  .  .  .",
  "W3 .  L2 .  .  L3 .  L3 .  .  L2 .  W3",
  ".  .  .  .  L3 .  .  .  L3 .  .  .  .",
  ".  .  .  .  .  .  *  .  .  .  .  .  .",
  ".  .  .  .  L3 .  .  .  L3 .  .  .  .",
  "W3 .  L2 .  .  L3 .  L3 .  .  L2 .  W3",
  ".  .  .  X  .  .  .  .  .  X  .  .  .",
  ".  W2 .  .  L2 .  .  .  L2 .  .  W2 .",
  "## ## W2 .  .  .  .  .  .  .  W2 ## ##",
  "## ## .  .  W3 .  .  .  W3 .  .  ## ##",
];

export const SIZE = 13;

/** @type {Record<string, string>} */
const KINDS = {
  "##": "wall",
  "*": "source",
  L2: "letter2",
  L3: "letter3",
  W2: "word2",
  W3: "word3",
  X: "crossing",
  ".": "plain",
};

/** The kind of each of the 169 cells, row-major. */
export const LAYOUT = LAYOUT_ROWS.flatMap((row) => row.trim().split(/\s+/).map((t) => KINDS[t]));

/** @param {number} row @param {number} col */
export function squareAt(row, col) {
  return LAYOUT[row * SIZE + col];
}

/** R5: letter values; a blank is worth 0. @type {Record<string, number>} */
export const VALUES = {
  A: 1, E: 1, I: 1, L: 1, N: 1, O: 1, R: 1, S: 1, T: 1, U: 1,
  C: 2, D: 2, M: 2, P: 2,
  B: 3, G: 3,
  F: 4, H: 4, V: 4,
  J: 8, Q: 8, X: 8,
  K: 10, W: 10, Y: 10, Z: 10,
  "?": 0,
};

export const BLANK = "?";
export const RACK_SIZE = 7;

/** Column label (A–M) and row label (1–13): a cell is named like "G7". */
/** @param {number} col */
export function colLabel(col) {
  return String.fromCharCode(65 + col);
}

/** @param {number} row */
export function rowLabel(row) {
  return String(row + 1);
}

/** @param {number} row @param {number} col */
export function cellName(row, col) {
  return colLabel(col) + rowLabel(row);
}
