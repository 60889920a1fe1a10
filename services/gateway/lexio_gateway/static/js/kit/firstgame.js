// @ts-check
// A game's help is open for a player who has never finished a game of it in this browser,
// and closed (one click away) once they have.
import { load, save } from "../store.js";

/** @param {string} game */
const key = (game) => `played-${game}`;

/** Open or close the help (a <details>) for a new table of ``game``. @param {string} selector @param {string} game */
export function openHelpOnFirstGame(selector, game) {
  const help = document.querySelector(selector);
  if (help instanceof HTMLDetailsElement) help.open = load(key(game)) !== "yes";
}

/** The player saw a game of ``game`` to its end. @param {string} game */
export function finishedGame(game) {
  save(key(game), "yes");
}
