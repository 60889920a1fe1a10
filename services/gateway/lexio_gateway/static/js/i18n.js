// @ts-check
// Message catalogs (static/i18n/<lang>.json): every visible string comes from here.
import { load, save } from "./store.js";

/**
 * A message: text with {placeholders}, or its plural forms (zero/one/two/few/many/other).
 * @typedef {string | Partial<Record<Intl.LDMLPluralRule, string>> & {other: string}} Message
 */

/** @typedef {Record<string, string | number>} MessageParams */

/** A catalog's address for a language. @typedef {(lang: string) => string} CatalogSource */

export const LANGUAGES = ["fr", "es", "ar", "en"];
const RTL = new Set(["ar"]);
const FALLBACK = "en";

let lang = FALLBACK;
/** @type {Record<string, Message>} */
let catalog = {};
let plurals = new Intl.PluralRules(FALLBACK);
/** @type {Array<(lang: string) => void>} */
const listeners = [];

/** The language to start with: ?lang=, then the saved choice, then the browser's languages. */
export function initialLanguage() {
  const asked = new URLSearchParams(location.search).get("lang");
  const candidates = [asked, load("lang"), ...(navigator.languages || [navigator.language])];
  for (const candidate of candidates) {
    if (!candidate) continue;
    const base = candidate.toLowerCase().split("-")[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return FALLBACK;
}

export function currentLanguage() {
  return lang;
}

export function isRtl() {
  return RTL.has(lang);
}

// Where the messages of a language are: the site's catalog, then one per game (each game's
// package brings its own, js/games.js adds them before the first language is set).
/** @type {CatalogSource[]} */
const sources = [(code) => `/static/i18n/${code}.json`];

/**
 * Also read the catalog ``urlOf(language)`` (a game's) whenever a language is set.
 * @param {CatalogSource} urlOf
 */
export function addCatalog(urlOf) {
  sources.push(urlOf);
}

/**
 * @param {string} url
 * @returns {Promise<Record<string, Message>>}
 */
async function fetchCatalog(url) {
  const reply = await fetch(url, { cache: "no-cache" });
  if (!reply.ok) throw new Error(`catalog ${url}: ${reply.status}`);
  return reply.json();
}

/**
 * @param {string} next
 * @param {{remember?: boolean}} [options] remember: keep the choice for the next visits
 */
export async function setLanguage(next, { remember = false } = {}) {
  const parts = await Promise.all(sources.map((urlOf) => fetchCatalog(urlOf(next))));
  // One namespace for every catalog: a key defined twice would make one of them wrong
  // depending on the order, so it is refused (a game's keys start with its own prefix).
  /** @type {Record<string, Message>} */
  const merged = {};
  for (const part of parts) {
    for (const [key, message] of Object.entries(part)) {
      if (Object.hasOwn(merged, key)) throw new Error(`catalog ${next}: "${key}" defined twice`);
      merged[key] = message;
    }
  }
  catalog = merged;
  lang = next;
  plurals = new Intl.PluralRules(next);
  if (remember) save("lang", next);
  const root = document.documentElement;
  root.lang = next;
  root.dir = RTL.has(next) ? "rtl" : "ltr";
  translateTree(document);
  for (const listener of listeners) listener(next);
}

/**
 * Called after every change of language (screens re-render their dynamic parts).
 * @param {(lang: string) => void} listener
 */
export function onLanguageChange(listener) {
  listeners.push(listener);
}

/**
 * The message for ``key`` with {placeholders} filled from ``params``. A message may be an
 * object of plural forms (zero/one/two/few/many/other) chosen by ``params.count``.
 * @param {string} key
 * @param {MessageParams} [params]
 * @returns {string}
 */
export function t(key, params = {}) {
  const found = catalog[key];
  if (found === undefined) return key;
  let message;
  if (typeof found === "object") {
    const count = Number(params.count ?? 0);
    message = (count === 0 && found.zero) || found[plurals.select(count)] || found.other;
  } else {
    message = found;
  }
  return message.replace(/\{(\w+)\}/g, (whole, name) =>
    params[name] === undefined ? whole : String(params[name]),
  );
}

/**
 * Like t(), as DOM: a parameter that is a Node is inserted as it is (e.g. a <bdi> around a
 * player's name or a Latin word inside Arabic text); other values become text.
 * @param {string} key
 * @param {Record<string, Node | string | number>} [params]
 */
export function tNodes(key, params = {}) {
  const fragment = document.createDocumentFragment();
  /** @type {MessageParams} */
  const texts = {};
  for (const [name, value] of Object.entries(params)) {
    if (!(value instanceof Node)) texts[name] = value;
  }
  const message = t(key, texts);
  let last = 0;
  for (const match of message.matchAll(/\{(\w+)\}/g)) {
    const value = params[match[1]];
    if (!(value instanceof Node)) continue;
    const at = match.index ?? 0;
    fragment.append(message.slice(last, at), value);
    last = at + match[0].length;
  }
  fragment.append(message.slice(last));
  return fragment;
}

/**
 * A French word inside text of any language (WCAG 3.1.2): read with a French voice.
 * @param {string} text
 * @param {string} [cls] its class (none when empty)
 */
export function french(text, cls = "word") {
  const node = document.createElement("bdi");
  if (cls) node.className = cls;
  node.lang = "fr";
  node.textContent = text;
  return node;
}

/**
 * Fill every element carrying data-i18n (text) and data-i18n-<attribute> (attributes). An
 * element may also carry data-word-fr: a French word put in the message's {fr}, marked
 * lang="fr" (the example word of the home page, in every language).
 * @param {ParentNode} root
 */
export function translateTree(root) {
  /** @type {NodeListOf<HTMLElement | SVGElement>} */
  const nodes = root.querySelectorAll("[data-i18n]");
  for (const node of nodes) {
    const key = node.dataset.i18n ?? "";
    if (node.dataset.wordFr === undefined) {
      node.textContent = t(key);
    } else {
      node.replaceChildren(tNodes(key, { fr: french(node.dataset.wordFr, "") }));
    }
  }
  for (const attr of ["placeholder", "title", "aria-label"]) {
    const data = `data-i18n-${attr}`;
    for (const node of root.querySelectorAll(`[${data}]`)) {
      node.setAttribute(attr, t(node.getAttribute(data) ?? ""));
    }
  }
}
