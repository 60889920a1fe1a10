// @ts-check
// Small persistent values in localStorage (the seat's token survives a reload), and the
// finished games this browser may review.
const PREFIX = "lexio.";

/**
 * @param {string} key
 * @returns {string | null}
 */
export function load(key) {
  try {
    return localStorage.getItem(PREFIX + key);
  } catch {
    return null;
  }
}

/**
 * @param {string} key
 * @param {string | number | null | undefined} value null or undefined forget it
 */
export function save(key, value) {
  try {
    if (value === null || value === undefined) localStorage.removeItem(PREFIX + key);
    else localStorage.setItem(PREFIX + key, String(value));
  } catch {
    // Private mode or storage full: the page still works, a reload just loses the seat.
  }
}

/**
 * A finished game this browser may review later (issue 26): its seat's token, kept apart
 * from the current seat's (which goes when the player leaves the table).
 * @typedef {object} FinishedGame
 * @property {string} table_id
 * @property {string} game
 * @property {string} token
 * @property {number} ended_at   Unix seconds (as this browser saw the end)
 * @property {string[]} players  names in seat order
 * @property {number} you        the seat this browser held
 */

const FINISHED = "finished";
const FINISHED_MAX = 20;

/** @param {any} item @returns {item is FinishedGame} */
function isFinishedGame(item) {
  return (
    Boolean(item) &&
    typeof item.table_id === "string" &&
    typeof item.game === "string" &&
    typeof item.token === "string" &&
    Array.isArray(item.players) &&
    typeof item.you === "number"
  );
}

/** The finished games remembered here, newest first (a damaged list reads as none).
 *  @returns {FinishedGame[]} */
export function finishedGames() {
  try {
    const list = JSON.parse(load(FINISHED) || "[]");
    return Array.isArray(list) ? list.filter(isFinishedGame) : [];
  } catch {
    return [];
  }
}

/** @param {FinishedGame[]} list */
function keepFinished(list) {
  save(FINISHED, list.length ? JSON.stringify(list.slice(0, FINISHED_MAX)) : null);
}

/** @param {string} tableId @returns {FinishedGame | null} */
export function finishedGame(tableId) {
  return finishedGames().find((item) => item.table_id === tableId) ?? null;
}

/**
 * Remember a finished game (once per table: seeing its end again, after a reload, changes
 * nothing); the oldest beyond the twentieth is forgotten.
 * @param {FinishedGame} game
 */
export function rememberFinished(game) {
  const list = finishedGames();
  if (list.some((item) => item.table_id === game.table_id)) return;
  keepFinished([game, ...list].sort((a, b) => (b.ended_at || 0) - (a.ended_at || 0)));
}

/** Forget a finished game (its record expired). @param {string} tableId */
export function forgetFinished(tableId) {
  keepFinished(finishedGames().filter((item) => item.table_id !== tableId));
}
