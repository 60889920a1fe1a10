// @ts-check
// Tiny DOM helpers (no framework). Never sets inline style attributes (CSP: style-src 'self').

/**
 * @typedef {object} ElementOptions
 * @property {string} [class]
 * @property {string} [text]
 * @property {Record<string, string | number | boolean | null | undefined>} [attrs]
 *   false, null and undefined leave the attribute out
 * @property {Record<string, string>} [data]
 * @property {{[K in keyof HTMLElementEventMap]?: (event: HTMLElementEventMap[K]) => void}} [on]
 */

/**
 * el("button", {class: "x", text: "…", attrs: {type: "button"}, on: {click: fn}}, children)
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {ElementOptions} [options]
 * @param {Array<Node | string | null | undefined | false>} [children] falsy ones are skipped
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, options = {}, children = []) {
  const node = document.createElement(tag);
  if (options.class) node.className = options.class;
  if (options.text !== undefined) node.textContent = options.text;
  for (const [name, value] of Object.entries(options.attrs || {})) {
    if (value === false || value === null || value === undefined) continue;
    // true: an empty boolean attribute ("hidden"), but "true" for ARIA, whose attributes are
    // tokens ("aria-disabled" without a value means false).
    node.setAttribute(name, value === true ? (name.startsWith("aria-") ? "true" : "") : String(value));
  }
  for (const [name, value] of Object.entries(options.data || {})) node.dataset[name] = value;
  for (const [type, handler] of Object.entries(options.on || {})) {
    node.addEventListener(type, /** @type {EventListener} */ (handler));
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

/**
 * The element of the page ``selector`` finds. Typed as found, as the markup promises
 * (index.html and the games' markup hold every element the screens look up); where a caller
 * needs more than an HTMLElement (an input's value), its variable's JSDoc type names it, as
 * querySelector's type parameter does.
 * @template {Element} [T=HTMLElement]
 * @param {string} selector
 * @param {ParentNode} [root]
 * @returns {T}
 */
export function $(selector, root = document) {
  return /** @type {T} */ (root.querySelector(selector));
}

/**
 * @template {Element} [T=HTMLElement]
 * @param {string} selector
 * @param {ParentNode} [root]
 * @returns {T[]}
 */
export function $$(selector, root = document) {
  return [.../** @type {NodeListOf<T>} */ (root.querySelectorAll(selector))];
}

/**
 * @template {Node} N
 * @param {N} node
 * @returns {N} the node, emptied
 */
export function clear(node) {
  while (node.firstChild) node.firstChild.remove();
  return node;
}

/**
 * @param {HTMLElement} node
 * @param {boolean} [visible]
 */
export function show(node, visible = true) {
  node.hidden = !visible;
}
