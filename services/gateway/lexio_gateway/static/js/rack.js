// @ts-check
// A rack's tiles as any game keeps them ([{id, …}]): shuffled, reordered, those not laid.

/** Fisher–Yates, in place.
 *  @template T @param {T[]} items @returns {T[]} */
export function shuffle(items) {
  for (let i = items.length - 1; i > 0; i -= 1) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

/**
 * ``items`` with the one whose ``id`` is given moved before (or ``after``) the one of
 * ``targetId``, or to the end when ``targetId`` is null: a rack reordered by drag or keys.
 * @template {{ id: number }} T
 * @param {T[]} items @param {number} id @param {number | null} targetId @param {boolean} after
 * @returns {T[]}
 */
export function reorder(items, id, targetId, after) {
  if (id === targetId) return items;
  const item = items.find((x) => x.id === id);
  if (!item) return items;
  const rest = items.filter((x) => x.id !== id);
  if (targetId === null) return [...rest, item];
  const at = rest.findIndex((x) => x.id === targetId);
  rest.splice(after ? at + 1 : at, 0, item);
  return rest;
}

/** The rack's tiles not laid on the board this turn (``pending`` holds what was laid).
 *  @template {{ id: number }} T @param {T[]} items @param {{ id: number }[]} pending @returns {T[]} */
export function unplaced(items, pending) {
  const placed = new Set(pending.map((p) => p.id));
  return items.filter((item) => !placed.has(item.id));
}
