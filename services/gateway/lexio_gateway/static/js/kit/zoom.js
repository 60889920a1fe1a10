// @ts-check
// A board's zoom: a few cell sizes (classes zoom-0… on the board, sized by the game's CSS),
// chosen with a − and a + button placed outside the board (they never cover a cell), kept
// in the browser's storage, on phones and desktops alike.
import { $ } from "../dom.js";
import { load, save } from "../store.js";

export class Zoom {
  /**
   * @param {{ board: string, zoomIn: string, zoomOut: string, storeKey: string, levels: number,
   *   start: number }} parts the board, its buttons, where the choice is kept, how many
   *   sizes, the size chosen until the player chooses
   * @param {() => HTMLElement | null | undefined} focus the cell to keep in sight (the cursor's)
   */
  constructor(parts, focus) {
    this.parts = parts;
    this.focus = focus;
    // Nothing kept is no choice (Number(null) would be level 0, whatever the start).
    const kept = load(parts.storeKey);
    const saved = kept === null ? NaN : Number(kept);
    this.level = Number.isInteger(saved) && saved >= 0 && saved < parts.levels ? saved : parts.start;
    $(parts.zoomIn).addEventListener("click", () => this.choose(this.level + 1));
    $(parts.zoomOut).addEventListener("click", () => this.choose(this.level - 1));
    this.set(this.level);
  }

  /** The player's choice, kept (the start is not: a later start serves who never chose).
   *  @param {number} level */
  choose(level) {
    this.set(level);
    save(this.parts.storeKey, String(this.level));
  }

  /** @param {number} level */
  set(level) {
    const { board, zoomIn, zoomOut, levels } = this.parts;
    this.level = Math.max(0, Math.min(levels - 1, level));
    const root = $(board);
    for (let i = 0; i < levels; i += 1) root.classList.toggle(`zoom-${i}`, i === this.level);
    /** @type {HTMLButtonElement} */ ($(zoomIn)).disabled = this.level === levels - 1;
    /** @type {HTMLButtonElement} */ ($(zoomOut)).disabled = this.level === 0;
    this.focus()?.scrollIntoView({ block: "nearest", inline: "nearest" });
  }
}
