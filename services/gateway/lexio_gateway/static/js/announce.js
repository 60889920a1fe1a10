// @ts-check
// What a screen reader says without the focus moving: two live regions of index.html,
// #live-polite and #live-assertive (the last seconds of the player's own turn, and what the
// player asks for: answer()).
//
// Each announcement is added as a new paragraph (an addition is always spoken, even when the
// same words come twice); what is said within DELAY ms is gathered into one paragraph, so a
// move and "your turn" are said in that order; the delay also lets a focus change (typing
// moves the cursor) be spoken first rather than cut what follows. Only the last few
// paragraphs are kept. Content may hold elements: a French word keeps its lang="fr".
//
// An answer (a key the player pressed to hear the last move again, the scores, the clocks:
// kit/turns.js) is its own paragraph of the assertive region, added at once: the player asked
// now, so it may cut what the reader was saying. Then, for as long as it may take to say it
// (HOLD_PER_CHAR a character), nothing else is asserted: what would have been (a clock's
// warning of the last seconds, a tile typed in them) is added to the polite region, which a
// reader says after the answer instead of cutting it. What the narrator was about to say in
// the very words of the answer (the move just made, asked for again within DELAY) is said
// once, by the answer.
import { $, el } from "./dom.js";

const DELAY = 120; // ms
const KEEP = 4;
/** How long an answer holds assertions back: per character, at least, at most (ms). A reader
 *  at its default rate says some 15 to 17 characters a second (about 200 words a minute); a
 *  slower reader may still be saying it when the hold ends, and what is held back is only made
 *  polite (said after), never dropped. */
const HOLD_PER_CHAR = 60;
const HOLD_MIN = 1500;
const HOLD_MAX = 10000;
/** @type {Record<string, HTMLElement[]>} */
const pending = { polite: [], assertive: [] };
/** @type {ReturnType<typeof setTimeout> | null} */
let timer = null;
/** Until when (Date.now()) an answer is being said: nothing is asserted before then. */
let holdUntil = 0;

function flush() {
  timer = null;
  for (const [kind, parts] of Object.entries(pending)) {
    if (!parts.length) continue;
    const region = $(`#live-${kind}`);
    const paragraph = el("p");
    parts.forEach((part, i) => {
      // The space between two announcements at the end of the first one's text (see spanOf).
      if (i < parts.length - 1) part.append(" ");
      part.normalize();
      paragraph.append(part);
    });
    parts.length = 0;
    if (region) addParagraph(region, paragraph);
  }
}

/** @param {HTMLElement} region @param {HTMLElement} paragraph */
function addParagraph(region, paragraph) {
  region.append(paragraph);
  while (region.childElementCount > KEEP) region.firstElementChild?.remove();
}

/**
 * ``content`` (a string, a Node, or a list of them) as one span, or null when it says nothing.
 * @param {string | Node | null | undefined | Array<string | Node | null | undefined>} content
 */
function spanOf(content) {
  const parts = Array.isArray(content) ? content : [content];
  const span = el("span");
  for (const part of parts) if (part !== null && part !== undefined && part !== "") span.append(part);
  // A space alone between a sentence and a name (<bdi>) was lost: Orca said "دور Ana.Ana: 3 د"
  // for "دور Ana." " " "Ana: 3 د". Joined to the text before it, it is kept ("دور Ana").
  span.normalize();
  return span.textContent?.trim() ? span : null;
}

/**
 * Say ``content`` (a string, a Node, or a list of them) politely, or at once when
 * ``urgent`` (the assertive region).
 * @param {string | Node | null | undefined | Array<string | Node | null | undefined>} content
 * @param {{ urgent?: boolean }} [options]
 */
export function announce(content, { urgent = false } = {}) {
  const span = spanOf(content);
  if (!span) return;
  pending[urgent && Date.now() >= holdUntil ? "assertive" : "polite"].push(span);
  if (timer === null) timer = setTimeout(flush, DELAY);
}

/**
 * Say at once, as its own paragraph of the assertive region, what the player asked for with a
 * key (the last move again, the scores, the clocks): said once, and not cut by what comes
 * next (see the top of this file).
 * @param {string | Node | null | undefined | Array<string | Node | null | undefined>} content
 */
export function answer(content) {
  const span = spanOf(content);
  const region = $("#live-assertive");
  if (!span || !region) return;
  const text = span.textContent?.trim() ?? "";
  // What was about to be said: the answer's own words once (by the answer), the rest after it.
  pending.polite = pending.polite.filter((part) => part.textContent?.trim() !== text);
  pending.polite.push(...pending.assertive.filter((part) => part.textContent?.trim() !== text));
  pending.assertive.length = 0;
  const paragraph = el("p");
  paragraph.append(span);
  addParagraph(region, paragraph);
  holdUntil = Date.now() + Math.min(HOLD_MAX, Math.max(HOLD_MIN, text.length * HOLD_PER_CHAR));
}
