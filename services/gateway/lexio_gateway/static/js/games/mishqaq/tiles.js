// @ts-check
// al-Mishqaq's board and tiles as the client knows them (mishqaq-rules.md M4–M10, M26):
// the 22×22 grid, its halves, red squares and target columns, both alphabets, the 17 sound
// pairs of the bilingual tiles, and how the view writes a cell. Nothing here judges a move:
// the server does (M25: no preview).
import { el } from "../../dom.js";

export const SIZE = 22;
export const SIDES = ["latin", "arabic"];
/** M4: the Latin half is cols 0–10, the Arabic half cols 11–21. */
export const LATIN_HALF_END = 10;
/** M5: each side's red start square; M6: the column each side races to. @type {Record<string, [number, number]>} */
export const RED = { latin: [10, 1], arabic: [10, 20] };
/** @type {Record<string, number>} */
export const TARGET = { latin: 20, arabic: 1 };
/** M10: the tile alphabets. @type {Record<string, string>} */
export const LETTERS = {
  latin: "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
  arabic: "ءابتةثجحخدذرزسشصضطظعغفقكلمنهوىي",
};
/** M8: the sound pairs (a bilingual tile bears one letter of each). */
const PAIRS = "AاBبDدFفHهJجKكLلMمNنQقRرSسTتWوYيZز";
const PARTNER = new Map();
for (let i = 0; i < PAIRS.length; i += 2) {
  PARTNER.set(PAIRS[i], PAIRS[i + 1]);
  PARTNER.set(PAIRS[i + 1], PAIRS[i]);
}
/** M10: hamza carriers fold to their base letter (what a keyboard may type). */
/** @type {Record<string, string>} */
const ARABIC_FOLD = { "أ": "ا", "إ": "ا", "آ": "ا", "ٱ": "ا", "ؤ": "و", "ئ": "ي" };
export const BLANK = "?";

export const indexOf = (/** @type {number} */ row, /** @type {number} */ col) => row * SIZE + col;
export const inside = (/** @type {number} */ row, /** @type {number} */ col) => row >= 0 && row < SIZE && col >= 0 && col < SIZE;
export const otherSide = (/** @type {string} */ side) => (side === "latin" ? "arabic" : "latin");
export const scriptOf = (/** @type {string} */ letter) => (LETTERS.latin.includes(letter) ? "latin" : "arabic");
/** The language of a side's words: the table's Latin list (fr, en), or Arabic. */
export const langOf = (/** @type {string} */ side, /** @type {string | undefined} */ latin) => (side === "latin" ? latin || "fr" : "ar");

/** @param {string} letter */
export function partnerOf(letter) {
  return PARTNER.get(letter) ?? "";
}

/** Column labels A–V, rows 1–22: a cell is named like "B11" (never mirrored, M4). */
/** @param {number} col */
export function colLabel(col) {
  return String.fromCharCode(65 + col);
}

/** @param {number} row @param {number} col */
export function cellName(row, col) {
  return `${colLabel(col)}${row + 1}`;
}

/** @param {number} col */
export function halfOf(col) {
  return col <= LATIN_HALF_END ? "latin" : "arabic";
}

/** How far along its race a side's tile in ``col`` is (0 at its start side). */
/** @param {string} side @param {number} col */
export function progress(side, col) {
  return side === "latin" ? col : SIZE - 1 - col;
}

/**
 * A view's cell as a tile: "" (empty), "C", "R+" (the Latin bag's bilingual R), "ش", "ر+",
 * a placed blank "?S" (owned by its declared letter's side). Null for an empty cell.
 */
/** @param {string} text */
export function parseCell(text) {
  if (!text) return null;
  if (text.startsWith(BLANK)) {
    const letter = text.slice(1);
    return { code: BLANK, letter, partner: "", blank: true, owner: scriptOf(letter) };
  }
  const bilingual = text.endsWith("+");
  const letter = bilingual ? text.slice(0, -1) : text;
  return { code: text, letter, partner: bilingual ? partnerOf(letter) : "", blank: false, owner: scriptOf(letter) };
}

/**
 * A key as one of ``side``'s tile letters, or null: Latin without accents, upper case;
 * Arabic with its hamza carriers folded (M10). A letter of the other script is null too.
 */
/** @param {string} key @param {string} side @returns {string | null} */
export function foldKey(key, side) {
  if (typeof key !== "string" || key.length !== 1) return null;
  let letter;
  if (side === "latin") {
    letter = key.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toUpperCase();
  } else {
    letter = ARABIC_FOLD[key] ?? key;
  }
  return letter.length === 1 && LETTERS[side].includes(letter) ? letter : null;
}

/** Whether a key is a letter of either script (typed, it means "place a tile"). */
/** @param {string} key */
export function isLetterKey(key) {
  return foldKey(key, "latin") !== null || foldKey(key, "arabic") !== null;
}

/**
 * A tile on screen: its primary letter large, a bilingual tile's partner small in the
 * corner (M8), a blank marked (with its declared letter once placed). The owner's colour,
 * and the script's own lang, so that each letter is drawn by a font that has it.
 * @param {{ letter: string, partner?: string, blank?: boolean, owner: string }} tile
 * @param {{ pending?: boolean, last?: boolean, drag?: string, index?: number }} [look]
 */
export function tileNode(tile, { pending = false, last = false, drag, index } = {}) {
  const classes = ["mq-tile", tile.owner];
  if (tile.partner) classes.push("bilingual");
  if (tile.blank) classes.push("blank");
  if (pending) classes.push("pending");
  if (last) classes.push("last");
  const node = el("span", {
    class: classes.join(" "),
    attrs: { "aria-hidden": "true" },
    data: drag ? { drag, index: String(index) } : {},
  });
  node.append(el("span", { class: "mq-letter", text: tile.letter || "", attrs: { lang: tile.owner === "arabic" ? "ar" : null } }));
  if (tile.partner) {
    // The space (not drawn: the tile is a grid) makes the visible text "R ر", the start of
    // the accessible names "R ر, …" (WCAG 2.5.3).
    node.append(" ", el("span", { class: "mq-partner", text: tile.partner, attrs: { lang: tile.owner === "arabic" ? null : "ar" } }));
  }
  return node;
}
