// @ts-check
// Time as the clocks show it and as a screen reader says it, and the reserve's countdown.
import { show } from "../dom.js";
import { t } from "../i18n.js";
import { formatWait } from "../errors.js";
import { reserveNow } from "../clock.js";

/** "29 min 59 s": a reader's words for "29:59" (not "twenty-nine hours"). @param {number} seconds */
export function timeWords(seconds) {
  const whole = Math.ceil(seconds);
  return whole > 0 ? formatWait(whole) : t("wait.seconds", { seconds: 0 });
}

/**
 * The anti-probing reserve's line: shown while some tries are spent, counting down to the next.
 * @param {HTMLElement} box @param {import("./editor.js").Reserve | null} reserve
 * @param {boolean} over @param {string} key the catalog key of "tries of max"
 */
export function renderReserve(box, reserve, over, key) {
  const now = reserve && reserveNow(reserve);
  const visible = Boolean(reserve && now) && !over && (now?.tries ?? 0) < (reserve?.max ?? 0);
  show(box, visible);
  if (!visible || !now || !reserve) return;
  const text = `${t(key, { tries: now.tries, max: reserve.max })} · ${t("game.reserve_next", { seconds: now.nextIn })}`;
  if (box.textContent !== text) box.textContent = text;
}
