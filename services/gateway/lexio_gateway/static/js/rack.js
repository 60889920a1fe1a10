// The player's rack ("chevalet"): tiles as buttons (select, drag, reorder).
import { clear, el } from "./dom.js";
import { t } from "./i18n.js";
import { BLANK, VALUES } from "./layout.js";
import { tile } from "./board.js";

export class RackView {
  constructor(root) {
    this.root = root;
    root.dataset.drop = "rack";
  }

  /** tiles: [{id, letter}] still on the rack (not placed this turn); selected: a tile id. */
  render(tiles, selected) {
    const focused = document.activeElement?.closest?.(".rack-tile")?.dataset.tile;
    clear(this.root);
    for (const item of tiles) {
      const button = el("button", {
        class: "rack-tile",
        attrs: {
          type: "button",
          "aria-pressed": item.id === selected ? "true" : "false",
          "aria-label":
            item.letter === BLANK
              ? t("tile.blank_label")
              : t("tile.label", { letter: item.letter, points: t("points_long", { count: VALUES[item.letter] }) }),
        },
        data: { tile: String(item.id), drag: "rack", drop: "rack" },
      });
      button.append(tile(item.letter));
      this.root.append(button);
    }
    if (focused) this.root.querySelector(`[data-tile="${focused}"]`)?.focus();
  }
}

/** Fisher–Yates, in place. */
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

/** The rack's tiles not laid on the board this turn (``pending`` holds what was laid). */
export function unplaced(items, pending) {
  const placed = new Set(pending.map((p) => p.id));
  return items.filter((item) => !placed.has(item.id));
}
