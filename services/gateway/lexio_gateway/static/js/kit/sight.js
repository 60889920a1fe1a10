// @ts-check
// What the player must see now (a refusal's reason) brought into sight, clear of what sticks
// over the page: on a phone, the status bar at the top and the action buttons at the bottom
// stay in place while the page scrolls under them, so "in the window" is not "seen".

const MARGIN = 8; // px between the node and the bar it clears

/**
 * The sticky or fixed bar covering the point (x, y), unless the point shows ``node`` itself.
 * @param {HTMLElement} node @param {number} x @param {number} y @returns {Element | null}
 */
function coverAt(node, x, y) {
  const under = document.elementFromPoint(x, y);
  if (!under || node.contains(under)) return null;
  for (let part = /** @type {Element | null} */ (under); part; part = part.parentElement) {
    const position = getComputedStyle(part).position;
    if (position === "sticky" || position === "fixed") return part;
  }
  return null;
}

/**
 * Scroll the page (and the node's scrolling boxes) so that ``node`` is in the window and no
 * bar covers it; nothing moves when it is seen already.
 * @param {HTMLElement} node
 */
export function bringIntoSight(node) {
  node.scrollIntoView({ block: "nearest", inline: "nearest" });
  const box = node.getBoundingClientRect();
  if (!box.height) return;
  const x = Math.min(Math.max(box.left + box.width / 2, 0), window.innerWidth - 1);
  const below = coverAt(node, x, Math.min(box.bottom, window.innerHeight) - 1);
  if (below) {
    window.scrollBy(0, box.bottom + MARGIN - below.getBoundingClientRect().top);
    return;
  }
  const above = coverAt(node, x, Math.max(box.top, 0) + 1);
  if (above) window.scrollBy(0, box.top - MARGIN - above.getBoundingClientRect().bottom);
}
