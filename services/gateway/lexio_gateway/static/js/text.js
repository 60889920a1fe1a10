// @ts-check
// Text helpers every screen uses: a name kept whole inside text of the other direction, a
// signed number, and text shown one way and said another.
import { el } from "./dom.js";

/** A player's name (or any text of unknown direction) isolated inside the sentence.
 *  @param {string} text @param {string} [cls] */
export function bdi(text, cls = "") {
  return el("bdi", { class: cls, text });
}

/** A signed number kept left-to-right inside Arabic text ("-7", "+12").
 *  @param {number | string} value @param {boolean} [signed] */
export function num(value, signed = false) {
  const text = signed && Number(value) > 0 ? `+${value}` : String(value);
  return el("bdi", { class: "num", text, attrs: { dir: "ltr" } });
}

/**
 * Text shown one way and said another: a symbol ("→") or an abbreviation ("12 pts") on
 * screen, words for a screen reader ("horizontal", "12 points").
 * @param {string} shown @param {string} said
 */
export function sayAs(shown, said) {
  if (shown === said) return document.createTextNode(shown);
  const node = el("span", { class: "say-as" });
  node.append(el("span", { text: shown, attrs: { "aria-hidden": "true" } }), el("span", { class: "visually-hidden", text: said }));
  return node;
}
