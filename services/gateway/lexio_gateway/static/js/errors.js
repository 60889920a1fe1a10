// @ts-check
// Error frames (docs/protocol.md, "Error codes") in words a player understands.
import { t } from "./i18n.js";

// Older servers named a lobby's store failure apart; for a player it is the same "try again".
/** @type {Record<string, string>} */
const SAME_AS = { store_unavailable: "unavailable" };

// Requests whose rate_limited answer is the lobby's per-connection limit on tries, not the
// per-socket frame limit: the wait concerns everyone behind the same address.
const LIMITED_BY_CONNECTION = new Set(["create", "join", "lookup"]);

/**
 * "5 min 12 s", "45 s", "1 h 5 min": a wait in whole seconds (at least 1).
 * @param {number} total seconds
 */
export function formatWait(total) {
  const seconds = Math.max(1, Math.ceil(total));
  if (seconds < 60) return t("wait.seconds", { seconds });
  if (seconds < 3600) {
    const minutes = Math.floor(seconds / 60);
    const rest = seconds % 60;
    return rest ? t("wait.minutes_seconds", { minutes, seconds: rest }) : t("wait.minutes", { minutes });
  }
  const wholeMinutes = Math.ceil(seconds / 60);
  const hours = Math.floor(wholeMinutes / 60);
  const minutes = wholeMinutes % 60;
  return minutes ? t("wait.hours_minutes", { hours, minutes }) : t("wait.hours", { hours });
}

/**
 * Seconds the server asked to wait (``retry_after``), or null when it did not say.
 * @param {{retry_after?: unknown}} frame
 */
export function retryAfter(frame) {
  const value = Number(frame.retry_after);
  return Number.isFinite(value) && value >= 1 ? value : null;
}

/**
 * The message for an error frame. ``request``: the type of the request it answers, if
 * known; ``receivedAt``: when it came (Date.now()), so that a wait shown later counts down.
 * @param {import("./protocol.js").ErrorFrame} frame
 * @param {{request?: string | null, receivedAt?: number | null}} [options]
 */
export function errorText(frame, { request = null, receivedAt = null } = {}) {
  const code = SAME_AS[frame.code] ?? frame.code;
  if (code === "rate_limited") {
    const wait = retryAfter(frame);
    if (wait !== null) {
      const elapsed = receivedAt === null ? 0 : (Date.now() - receivedAt) / 1000;
      return t("error.rate_limited_wait", { wait: formatWait(wait - elapsed) });
    }
    if (request && LIMITED_BY_CONNECTION.has(request)) return t("error.rate_limited_later");
  }
  const key = `error.${code}`;
  const text = t(key);
  return text === key ? t("error.unknown", { code: frame.code }) : text;
}
