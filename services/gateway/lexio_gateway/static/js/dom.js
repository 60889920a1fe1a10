// Tiny DOM helpers (no framework). Never sets inline style attributes (CSP: style-src 'self').

/** el("button", {class: "x", text: "…", attrs: {type: "button"}, on: {click: fn}}, children) */
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
  for (const [type, handler] of Object.entries(options.on || {})) node.addEventListener(type, handler);
  for (const child of children) if (child) node.append(child);
  return node;
}

export function $(selector, root = document) {
  return root.querySelector(selector);
}

export function $$(selector, root = document) {
  return [...root.querySelectorAll(selector)];
}

export function clear(node) {
  while (node.firstChild) node.firstChild.remove();
  return node;
}

export function show(node, visible = true) {
  node.hidden = !visible;
}
