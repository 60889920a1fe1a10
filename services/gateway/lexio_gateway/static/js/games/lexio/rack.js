// Lexio's rack ("chevalet"): tiles as buttons (select, drag, reorder).
import { clear, el } from "../../dom.js";
import { t } from "../../i18n.js";
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
