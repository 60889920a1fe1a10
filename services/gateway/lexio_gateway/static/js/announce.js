// @ts-check
// What a screen reader says without the focus moving: two live regions of index.html,
// #live-polite and #live-assertive (the last seconds of the player's own turn).
//
// Each announcement is added as a new paragraph (an addition is always spoken, even when the
// same words come twice); what is said within DELAY ms is gathered into one paragraph, so a
// move and "your turn" are said in that order; the delay also lets a focus change (typing
// moves the cursor) be spoken first rather than cut what follows. Only the last few
// paragraphs are kept. Content may hold elements: a French word keeps its lang="fr".
import { $, el } from "./dom.js";

const DELAY = 120; // ms
const KEEP = 4;
/** @type {Record<string, HTMLElement[]>} */
const pending = { polite: [], assertive: [] };
/** @type {ReturnType<typeof setTimeout> | null} */
let timer = null;

function flush() {
  timer = null;
  for (const [kind, parts] of Object.entries(pending)) {
    if (!parts.length) continue;
    const region = $(`#live-${kind}`);
    const paragraph = el("p");
    parts.forEach((part, i) => {
      if (i > 0) paragraph.append(" ");
      paragraph.append(part);
    });
    parts.length = 0;
    if (!region) continue;
    region.append(paragraph);
    while (region.childElementCount > KEEP) region.firstElementChild?.remove();
  }
}

/**
 * Say ``content`` (a string, a Node, or a list of them) politely, or at once when
 * ``urgent`` (the assertive region).
 * @param {string | Node | null | undefined | Array<string | Node | null | undefined>} content
 * @param {{ urgent?: boolean }} [options]
 */
export function announce(content, { urgent = false } = {}) {
  const parts = Array.isArray(content) ? content : [content];
  const span = el("span");
  for (const part of parts) if (part !== null && part !== undefined && part !== "") span.append(part);
  if (!span.textContent?.trim()) return;
  pending[urgent ? "assertive" : "polite"].push(span);
  if (timer === null) timer = setTimeout(flush, DELAY);
}
