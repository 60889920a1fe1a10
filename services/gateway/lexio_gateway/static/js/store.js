// @ts-check
// Small persistent values in localStorage (the seat's token survives a reload).
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
