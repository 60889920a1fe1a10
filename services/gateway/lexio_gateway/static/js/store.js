// Small persistent values in localStorage (the seat's token survives a reload).
const PREFIX = "lexio.";

export function load(key) {
  try {
    return localStorage.getItem(PREFIX + key);
  } catch {
    return null;
  }
}

export function save(key, value) {
  try {
    if (value === null || value === undefined) localStorage.removeItem(PREFIX + key);
    else localStorage.setItem(PREFIX + key, String(value));
  } catch {
    // Private mode or storage full: the page still works, a reload just loses the seat.
  }
}
