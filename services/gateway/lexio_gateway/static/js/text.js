// Text helpers every screen uses: a name kept whole inside text of the other direction, a
// signed number, and text shown one way and said another.
import { el } from "./dom.js";

/** A player's name (or any text of unknown direction) isolated inside the sentence. */
export function bdi(text, cls = "") {
  return el("bdi", { class: cls, text });
}

/** A signed number kept left-to-right inside Arabic text ("-7", "+12"). */
export function num(value, signed = false) {
  const text = signed && value > 0 ? `+${value}` : String(value);
  return el("bdi", { class: "num", text, attrs: { dir: "ltr" } });
}

/**
 * Text shown one way and said another: a symbol ("→") or an abbreviation ("12 pts") on
 * screen, words for a screen reader ("horizontal", "12 points").
 */
export function sayAs(shown, said) {
  if (shown === said) return document.createTextNode(shown);
  const node = el("span", { class: "say-as" });
  node.append(el("span", { text: shown, attrs: { "aria-hidden": "true" } }), el("span", { class: "visually-hidden", text: said }));
  return node;
}
