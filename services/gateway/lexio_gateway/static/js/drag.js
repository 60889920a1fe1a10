// Drag and drop with pointer events (mouse, touch and pen alike). A press that does not move
// stays a click, so click-then-click placing keeps working.
const THRESHOLD = 6; // pixels

/**
 * hooks.canDrag(source) → bool; hooks.onDrop(source, target, event) where source is the
 * element carrying data-drag and target the element carrying data-drop under the pointer
 * (or null).
 */
export function enableDrag(hooks) {
  let drag = null;
  let suppressClick = false;

  function cleanup() {
    if (!drag) return;
    drag.ghost?.remove();
    drag.source.classList.remove("dragging");
    drag.over?.classList.remove("drop-over");
    drag = null;
  }

  function targetAt(x, y) {
    const under = document.elementFromPoint(x, y);
    return under ? under.closest("[data-drop]") : null;
  }

  document.addEventListener("pointerdown", (event) => {
    if (event.button !== 0 || drag) return;
    const source = event.target.closest("[data-drag]");
    if (!source || !hooks.canDrag(source)) return;
    drag = { source, x: event.clientX, y: event.clientY, pointer: event.pointerId, ghost: null, over: null };
  });

  document.addEventListener(
    "pointermove",
    (event) => {
      if (!drag || event.pointerId !== drag.pointer) return;
      if (!drag.ghost) {
        if (Math.hypot(event.clientX - drag.x, event.clientY - drag.y) < THRESHOLD) return;
        const face = drag.source.classList.contains("tile") ? drag.source : drag.source.querySelector(".tile");
        drag.ghost = (face || drag.source).cloneNode(true);
        drag.ghost.classList.add("drag-ghost");
        drag.ghost.removeAttribute("data-drag");
        document.body.append(drag.ghost);
        drag.source.classList.add("dragging");
      }
      event.preventDefault();
      drag.ghost.style.left = `${event.clientX}px`;
      drag.ghost.style.top = `${event.clientY}px`;
      const over = targetAt(event.clientX, event.clientY);
      if (over !== drag.over) {
        drag.over?.classList.remove("drop-over");
        over?.classList.add("drop-over");
        drag.over = over;
      }
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
    // not a click-then-click; any later click is.
    suppressClick = true;
    setTimeout(() => {
      suppressClick = false;
    }, 0);
    hooks.onDrop(source, targetAt(event.clientX, event.clientY), event);
  });

  document.addEventListener("pointercancel", cleanup);

  // The click that follows a drag is not a click-then-click.
  document.addEventListener(
    "click",
    (event) => {
      if (suppressClick) {
        suppressClick = false;
        event.stopPropagation();
        event.preventDefault();
      }
    },
    true,
  );
}
