// @ts-check
// A game's package as js/games.js reads it, with the names every package follows: its
// catalog keys under games.<id>, its markup <id>.html, styles <id>.css and catalogs
// i18n/<lang>.json beside its index.js. A game gives what is its own.

/** @typedef {import("../games.js").GamePackage} GamePackage */

/**
 * @param {string} moduleUrl the index.js's import.meta.url
 * @param {string} id the protocol's name of the game
 * @param {Pick<GamePackage, "screen" | "firstFocus" | "Controller"> &
 *   Partial<Pick<GamePackage, "optionsForm" | "renderOptions">> &
 *   { home: Pick<GamePackage["home"], "words" | "away"> }} own the fields that are not the
 *   convention's (screen, firstFocus, Controller, home.words, home.away, options…)
 * @returns {GamePackage}
 */
export function gamePackage(moduleUrl, id, own) {
  const here = (/** @type {string} */ path) => new URL(path, moduleUrl).pathname;
  return /** @type {GamePackage} */ ({
    id,
    name: `games.${id}.name`,
    about: `games.${id}.about`,
    markup: here(`./${id}.html`),
    styles: here(`./${id}.css`),
    catalog: (/** @type {string} */ lang) => here(`./i18n/${lang}.json`),
    optionsForm: null,
    renderOptions: null,
    ...own,
    home: { tagline: `games.${id}.tagline`, players: `games.${id}.players`, ...own.home },
  });
}
