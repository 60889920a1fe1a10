// @ts-check
// Drag and drop with pointer events (mouse, touch and pen alike). A press that does not move
// stays a click, so click-then-click placing keeps working.
const THRESHOLD = 6; // pixels
// Where the page scrolls during a drag (a phone's board is taller than its screen, and a
// pointer held for a drag cannot scroll it): within EDGE pixels of the visible top (below a
// sticky header) or bottom, up to MAX_SPEED pixels a frame, faster nearer the edge.
const EDGE = 56;
const MAX_SPEED = 18;
const BOX_EDGE = 40; // the same, near the edges of a box that scrolls on its own

/** The top of what the page shows of the board: below the header that sticks to the top
 *  while the page scrolls (and before it sticks: the pointer over it means "further up"). */
function visibleTop() {
  let top = 0;
  for (const node of document.querySelectorAll(".game-top")) {
    if (getComputedStyle(node).position !== "sticky") continue;
    top = Math.max(top, node.getBoundingClientRect().bottom);
  }
  return top;
}

/** Whether ``node`` is laid over what scrolls beneath it: stuck to a top, left or right edge,
 *  as a phone's clocks are to the page's top and a panning board's labels to its window's
 *  edges. A bar stuck to the bottom (the rack's) is not: a drop there is meant for the bar.
 *  @param {Element} node */
function stuckOver(node) {
  const style = getComputedStyle(node);
  return style.position === "sticky" && style.bottom === "auto";
}

/**
 * What a drop at (x, y) falls on: the [data-drop] element under the pointer, or else the one
 * hidden there by what is stuck over it. A phone's page scrolled down slides the board's
 * window under the sticky clocks: a tile dropped on a cell there went back to the rack
 * (issue 39). ``covers``: the stuck elements over the target at that point.
 * @param {number} x @param {number} y
 * @returns {{ target: HTMLElement | null, covers: Element[] }}
 */
function dropAt(x, y) {
  const stack = document.elementsFromPoint(x, y);
  const covers = stack.filter(stuckOver);
  for (const node of stack) {
    const target = node.closest("[data-drop]");
    if (target instanceof HTMLElement) {
      return { target, covers: covers.filter((cover) => !cover.contains(target)) };
    }
    if (!covers.some((cover) => cover.contains(node))) break;
  }
  return { target: null, covers: [] };
}

/** The box that ``node``, stuck, stays in sight of while it scrolls (the page's, or a panning
 *  board's window). @param {Element} node @returns {Element} */
function scrollerOf(node) {
  for (let at = node.parentElement; at && at !== document.body; at = at.parentElement) {
    const style = getComputedStyle(at);
    if (style.overflowX !== "visible" || style.overflowY !== "visible") return at;
  }
  return document.scrollingElement ?? document.documentElement;
}

const REVEAL_GAP = 4; // pixels left between a revealed cell and what was over it

/**
 * A drop target found under ``covers`` scrolled out from under them, so that the player sees
 * where the tile went: each stuck element's box scrolled by what it hides of the target (the
 * page from under the clocks, then the board's window from under its labels, which the first
 * scroll may have brought over it).
 * @param {HTMLElement} target @param {Element[]} covers
 */
function reveal(target, covers) {
  for (let pass = 0; covers.length && pass < 3; pass += 1) {
    for (const cover of covers) {
      const style = getComputedStyle(cover);
      const over = cover.getBoundingClientRect();
      const box = target.getBoundingClientRect();
      const dy = style.top === "auto" ? 0 : Math.min(0, box.top - over.bottom - REVEAL_GAP);
      let dx = 0;
      if (style.left !== "auto") dx = Math.min(0, box.left - over.right - REVEAL_GAP);
      else if (style.right !== "auto") dx = Math.max(0, box.right - over.left + REVEAL_GAP);
      if (dx || dy) scrollerOf(cover).scrollBy(dx, dy);
    }
    const box = target.getBoundingClientRect();
    const seen = dropAt(box.left + box.width / 2, box.top + box.height / 2);
    covers = seen.target === target ? seen.covers : [];
  }
}

/** The top of what the page shows of ``node``'s box (at ``x``): below a header stuck over it,
 *  whose lower edge is then the box's top edge for panning.
 *  @param {Element} node @param {DOMRect} box @param {number} x */
function shownTop(node, box, x) {
  let top = box.top;
  for (const cover of document.elementsFromPoint(x, Math.max(box.top, 0) + 1)) {
    if (node.contains(cover) || !stuckOver(cover)) continue;
    top = Math.max(top, cover.getBoundingClientRect().bottom);
  }
  return top;
}

/** How fast to scroll a box along one axis with the pointer at ``at`` (within ``edge`` of
 *  its ``low`` or ``high`` side: towards that side).
 *  @param {number} at @param {number} low @param {number} high @param {number} edge */
function edgeSpeed(at, low, high, edge) {
  if (at < low + edge) return -Math.ceil(MAX_SPEED * Math.min(1, (low + edge - at) / edge));
  if (at > high - edge) return Math.ceil(MAX_SPEED * Math.min(1, (at - (high - edge)) / edge));
  return 0;
}

/** @param {number} y */
function scrollSpeed(y) {
  const top = visibleTop() + EDGE;
  const bottom = window.innerHeight - EDGE;
  if (y < top) return -Math.ceil(MAX_SPEED * Math.min(1, (top - y) / EDGE));
  if (y > bottom) return Math.ceil(MAX_SPEED * Math.min(1, (y - bottom) / EDGE));
  return 0;
}

/**
 * hooks.canDrag(source) → bool; hooks.onDrop(source, target, event) where source is the
 * element carrying data-drag and target the element carrying data-drop under the pointer, or
 * hidden there by a sticky header (then scrolled out from under it first), or null.
 * Optional: hooks.scrollers() → elements that scroll on their own (a board wider
 * than a phone) and scroll, both ways, while the pointer rests near their edges;
 * hooks.pageScroll (default true): whether the page itself scrolls near the window's edges.
 */
/**
 * @typedef {{ canDrag: (source: HTMLElement) => boolean,
 *   onDrop: (source: HTMLElement, target: HTMLElement | null, event: PointerEvent) => void,
 *   scrollers?: () => (Element | null)[], pageScroll?: boolean }} DragHooks
 * @typedef {{ left: boolean, right: boolean, top: boolean, bottom: boolean }} Armed
 * @typedef {{ source: HTMLElement, x: number, y: number, px: number, py: number,
 *   pointer: number, ghost: HTMLElement | null, over: HTMLElement | null, scrolling: number,
 *   armed: Map<Element, Armed> }} Drag
 */

/** @param {DragHooks} hooks */
export function enableDrag(hooks) {
  /** @type {Drag | null} */
  let drag = null;

  /** The click that follows a drag is not a click-then-click. @param {MouseEvent} event */
  function swallowClick(event) {
    document.removeEventListener("click", swallowClick, true);
    event.stopPropagation();
    event.preventDefault();
  }

  function cleanup() {
    if (!drag) return;
    cancelAnimationFrame(drag.scrolling);
    drag.ghost?.remove();
    drag.source.classList.remove("dragging");
    drag.over?.classList.remove("drop-over");
    drag = null;
  }

  function hover() {
    if (!drag) return;
    const over = dropAt(drag.px, drag.py).target;
    if (over !== drag.over) {
      drag.over?.classList.remove("drop-over");
      over?.classList.add("drop-over");
      drag.over = over;
    }
  }

  /**
   * Scroll the boxes of hooks.scrollers() the pointer is near an edge of; whether any moved.
   * A box pans only while the pointer is over the box itself (not over what covers it, as a
   * phone's sticky rack covers the board's bottom edge), and towards an edge only once the
   * pointer has been inside the box away from that edge: a drag from the rack crosses the
   * board's bottom band on its way up, and must not pan the board under the finger (D4).
   */
  function scrollBoxes() {
    let moved = false;
    if (!drag) return moved;
    for (const node of hooks.scrollers?.() ?? []) {
      if (!node) continue;
      const box = node.getBoundingClientRect();
      if (drag.px < box.left || drag.px > box.right || drag.py < box.top || drag.py > box.bottom) continue;
      const under = document.elementFromPoint(drag.px, drag.py);
      if (!under || !node.contains(under)) continue;
      // A box whose top has slid under a sticky header pans up from that header's lower edge:
      // its own top edge is out of the finger's reach (issue 39).
      const top = shownTop(node, box, drag.px);
      const edge = Math.min(BOX_EDGE, box.width / 4, (box.bottom - top) / 4);
      const armed = armedEdges(node, drag);
      if (drag.px >= box.left + edge) armed.left = true;
      if (drag.px <= box.right - edge) armed.right = true;
      if (drag.py >= top + edge) armed.top = true;
      if (drag.py <= box.bottom - edge) armed.bottom = true;
      let dx = edgeSpeed(drag.px, box.left, box.right, edge);
      let dy = edgeSpeed(drag.py, top, box.bottom, edge);
      if ((dx < 0 && !armed.left) || (dx > 0 && !armed.right)) dx = 0;
      if ((dy < 0 && !armed.top) || (dy > 0 && !armed.bottom)) dy = 0;
      if (!dx && !dy) continue;
      const before = [node.scrollLeft, node.scrollTop];
      node.scrollBy(dx, dy);
      if (node.scrollLeft !== before[0] || node.scrollTop !== before[1]) moved = true;
    }
    return moved;
  }

  /** The edges of ``node`` the pointer may pan towards in this drag (see scrollBoxes).
   *  @param {Element} node @param {Drag} drag @returns {Armed} */
  function armedEdges(node, drag) {
    let armed = drag.armed.get(node);
    if (!armed) {
      armed = { left: false, right: false, top: false, bottom: false };
      drag.armed.set(node, armed);
    }
    return armed;
  }

  /** While the pointer rests near an edge the page keeps scrolling, and what is under it changes. */
  function autoScroll() {
    if (!drag) return;
    drag.scrolling = 0;
    let moved = scrollBoxes();
    const speed = hooks.pageScroll === false ? 0 : scrollSpeed(drag.py);
    if (speed) {
      const before = window.scrollY;
      window.scrollBy(0, speed);
      if (window.scrollY !== before) moved = true;
    }
    if (!moved) return;
    hover();
    drag.scrolling = requestAnimationFrame(autoScroll);
  }

  document.addEventListener("pointerdown", (event) => {
    if (event.button !== 0 || drag) return;
    const source = event.target instanceof Element ? event.target.closest("[data-drag]") : null;
    if (!(source instanceof HTMLElement) || !hooks.canDrag(source)) return;
    drag = {
      source,
      x: event.clientX,
      y: event.clientY,
      px: event.clientX,
      py: event.clientY,
      pointer: event.pointerId,
      ghost: null,
      over: null,
      scrolling: 0,
      armed: new Map(),
    };
  });

  document.addEventListener(
    "pointermove",
    (event) => {
      if (!drag || event.pointerId !== drag.pointer) return;
      if (!drag.ghost) {
        if (Math.hypot(event.clientX - drag.x, event.clientY - drag.y) < THRESHOLD) return;
        const face = drag.source.classList.contains("tile") ? drag.source : drag.source.querySelector(".tile");
        const ghost = /** @type {HTMLElement} */ ((face || drag.source).cloneNode(true));
        ghost.classList.add("drag-ghost");
        ghost.removeAttribute("data-drag");
        document.body.append(ghost);
        drag.ghost = ghost;
        drag.source.classList.add("dragging");
      }
      event.preventDefault();
      drag.ghost.style.left = `${event.clientX}px`;
      drag.ghost.style.top = `${event.clientY}px`;
      drag.px = event.clientX;
      drag.py = event.clientY;
      hover();
      if (!drag.scrolling) drag.scrolling = requestAnimationFrame(autoScroll);
    },
    { passive: false },
  );

  document.addEventListener("pointerup", (event) => {
    if (!drag || event.pointerId !== drag.pointer) return;
    const moved =
      drag.ghost || Math.hypot(event.clientX - drag.x, event.clientY - drag.y) >= THRESHOLD;
    const { source } = drag;
    cleanup();
    if (!moved) return;
    // The click that the browser may fire right after this pointerup (same input event) is
    // not a click-then-click; any later click is. Listened for only until then: a click
    // listener left on the document makes Chromium give every focusable element of the page a
    // "click ancestor" action, which Orca says ("clickable").
    document.addEventListener("click", swallowClick, true);
    setTimeout(() => document.removeEventListener("click", swallowClick, true), 0);
    const { target, covers } = dropAt(event.clientX, event.clientY);
    if (target) reveal(target, covers);
    hooks.onDrop(source, target, event);
  });

  document.addEventListener("pointercancel", cleanup);
}
