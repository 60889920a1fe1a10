// @ts-check
// The player's rack on screen: its tiles as buttons (select, drag, reorder). The rack is one
// Tab stop (a roving tabindex: the tile last focused, else the selected one, else the first);
// arrow keys move within it (the controller's rackKey).
import { clear, el } from "../dom.js";

/**
 * @typedef {object} RackLook
 * @property {string[]} [classes] a tile button's classes besides rack-tile
 * @property {(item: any) => Node} face what a tile shows
 * @property {(item: any) => string} label a tile's accessible name
 * @property {(item: any) => Record<string, string>} [data] more data-* of a tile
 */

export class RackView {
  /** @param {HTMLElement} root @param {RackLook} look */
  constructor(root, look) {
    this.root = root;
    this.look = look;
    /** @type {string | null} the tile that keeps the rack's Tab stop */
    this.current = null;
    root.dataset.drop = "rack";
    root.addEventListener("focusin", (event) => {
      const button = /** @type {HTMLElement} */ (event.target).closest(".rack-tile");
      if (button instanceof HTMLElement && button.dataset.tile) this.rove(button.dataset.tile);
    });
  }

  /** @param {string} id the tile that takes the rack's Tab stop */
  rove(id) {
    this.current = id;
    for (const button of this.root.querySelectorAll(".rack-tile")) {
      if (button instanceof HTMLElement) button.tabIndex = button.dataset.tile === id ? 0 : -1;
    }
  }

  /** @param {{ id: number }[]} tiles still on the rack (not placed this turn) @param {number | null} selected */
  render(tiles, selected) {
    const active = document.activeElement;
    const focused = active instanceof HTMLElement ? active.closest(".rack-tile") : null;
    const focusedId = focused instanceof HTMLElement && this.root.contains(focused) ? focused.dataset.tile : undefined;
    clear(this.root);
    for (const item of tiles) {
      const button = el("button", {
        class: ["rack-tile", ...(this.look.classes ?? [])].join(" "),
        attrs: { type: "button", "aria-pressed": item.id === selected ? "true" : "false", "aria-label": this.look.label(item) },
        data: { tile: String(item.id), ...(this.look.data?.(item) ?? {}), drag: "rack", drop: "rack" },
      });
      button.append(this.look.face(item));
      this.root.append(button);
    }
    const ids = tiles.map((item) => String(item.id));
    const keep = [focusedId, this.current, selected === null ? undefined : String(selected), ids[0]];
    const stop = keep.find((id) => id !== undefined && id !== null && ids.includes(id));
    if (stop) this.rove(stop);
    if (focusedId) /** @type {HTMLElement | null} */ (this.root.querySelector(`[data-tile="${focusedId}"]`))?.focus();
  }
}
