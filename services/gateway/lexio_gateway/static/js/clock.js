// @ts-check
// Server time (welcome.server_time) and the countdowns drawn from it: the turn clock (R28)
// and the reserve's next try (R20).

// The anti-probing reserve of both games (rules_core.reserve): one try back every 15 s.
const RESERVE_PERIOD = 15;

let offset = 0; // server seconds minus local seconds

/** @param {number} serverTime */
export function syncServerTime(serverTime) {
  offset = serverTime - Date.now() / 1000;
}

export function serverNow() {
  return Date.now() / 1000 + offset;
}

// The offset is measured when welcome arrives, so it is late by the frame's travel time:
// without this margin a fresh 120 s turn could show 2:01 for an instant.
const MARGIN = 0.15;

/** Whole seconds left until ``deadline`` (server Unix seconds), never negative.
 *  @param {number} deadline */
export function secondsLeft(deadline) {
  return Math.max(0, Math.ceil(deadline - serverNow() - MARGIN));
}

/** @param {number} total */
export function formatSeconds(total) {
  const minutes = Math.floor(total / 60);
  const seconds = total % 60;
  return `${minutes}:${String(seconds).padStart(2, "0")}`;
}

/**
 * The reserve now, from what the server said at ``at`` (local seconds): tries and seconds
 * until the next one, counting one regained try every RESERVE_PERIOD seconds.
 * @param {{ tries: number, max: number, nextIn: number, at: number }} reserve
 */
export function reserveNow(reserve) {
  const { tries, max, nextIn, at } = reserve;
  if (tries >= max) return { tries: max, nextIn: 0 };
  const elapsed = Date.now() / 1000 - at;
  if (elapsed < nextIn) return { tries, nextIn: Math.ceil(nextIn - elapsed) };
  const gained = 1 + Math.floor((elapsed - nextIn) / RESERVE_PERIOD);
  const now = Math.min(max, tries + gained);
  if (now >= max) return { tries: max, nextIn: 0 };
  const into = (elapsed - nextIn) % RESERVE_PERIOD;
  return { tries: now, nextIn: Math.ceil(RESERVE_PERIOD - into) };
}
