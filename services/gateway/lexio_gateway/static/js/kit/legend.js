// @ts-check
// A board's key: each kind of cell or tile as a swatch, then its name. The swatch may show a
// short mark ("W×3"), read with the name unless it is a mere symbol a screen reader would
// spell out. Text comes from the catalogs (data-i18n: drawn again in each language).
import { clear, el } from "../dom.js";
import { translateTree } from "../i18n.js";

/**
 * @typedef {object} LegendEntry
 * @property {string} swatch the swatch's classes (the look of the cell or tile)
 * @property {string} name catalog key of its name
 * @property {string} [short] catalog key of the mark on the swatch, if any
 * @property {boolean} [spoken] whether that mark is read (a symbol is not)
 */

/** @param {HTMLElement} list the key's <ul> @param {LegendEntry[]} entries */
export function fillLegend(list, entries) {
  clear(list);
  for (const entry of entries) {
    const swatch = el("span", { class: `swatch ${entry.swatch}` });
    if (entry.short) swatch.dataset.i18n = entry.short;
    if (!entry.short || !entry.spoken) swatch.setAttribute("aria-hidden", "true");
    list.append(el("li", {}, [swatch, el("span", { data: { i18n: entry.name } })]));
  }
  translateTree(list);
}
