// @ts-check
// The 3×3 grid: nine buttons in an ARIA grid (rows of gridcells) with one tab stop, which the
// arrow keys move (a roving tabindex: Tab leaves the grid at once instead of crossing nine
// buttons). Each button is named by what it shows, then where it is. The markup keeps the
// grid dir="ltr": "left" is on the left in every language, as the protocol's col 0 is.
import { el } from "../../dom.js";
import { t } from "../../i18n.js";

export const SIZE = 3;
const ROWS = ["top", "middle", "bottom"];
const COLS = ["left", "centre", "right"];
const CENTRE = 4; // where the keyboard starts: every cell within two arrow presses
/** @type {Record<string, [number, number]>} */
const MOVES = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

/** @typedef {{row: number, col: number}} Cell */

/**
 * "top left", "centre"…: a cell's position in words.
 * @param {number} row
 * @param {number} col
 */
export function cellName(row, col) {
  return t(`noughts.cell.${ROWS[row]}_${COLS[col]}`);
}

export class NoughtsBoard {
  /**
   * @param {HTMLElement} root the grid
   * @param {(row: number, col: number) => void} onMark a cell was pressed (click, Enter or
   *   Space: it is a button)
   */
  constructor(root, onMark) {
    /** @type {HTMLButtonElement[]} */
    this.buttons = [];
    this.cursor = CENTRE;
    for (let row = 0; row < SIZE; row += 1) {
      const line = el("div", { class: "noughts-row", attrs: { role: "row" } });
      for (let col = 0; col < SIZE; col += 1) {
        const index = row * SIZE + col;
        const button = el("button", {
          class: "noughts-cell",
          attrs: { type: "button" },
          data: { row: String(row), col: String(col) },
          on: {
            click: () => {
              this.moveTo(index);
              onMark(row, col);
            },
          },
        });
        line.append(el("div", { class: "noughts-gridcell", attrs: { role: "gridcell" } }, [button]));
        this.buttons.push(button);
      }
      root.append(line);
    }
    root.addEventListener("keydown", (event) => this.key(event));
    this.reset();
  }

  reset() {
    this.moveTo(CENTRE);
  }

  /** @param {number} index the cell (row by row) that gets the tab stop */
  moveTo(index) {
    this.cursor = index;
    this.buttons.forEach((button, i) => {
      button.tabIndex = i === index ? 0 : -1;
    });
  }

  /** @param {KeyboardEvent} event */
  key(event) {
    const move = MOVES[event.key];
    if (!move || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    event.preventDefault();
    const clamp = (/** @type {number} */ value) => Math.max(0, Math.min(SIZE - 1, value));
    const row = clamp(Math.floor(this.cursor / SIZE) + move[0]);
    const col = clamp((this.cursor % SIZE) + move[1]);
    this.moveTo(row * SIZE + col);
    this.buttons[this.cursor].focus();
  }

  /**
   * Draw the view's board; ``line``: the winning line's cells, once there is one.
   * @param {{board: string[], over: boolean, line: Cell[]}} state
   */
  render({ board, over, line }) {
    const winning = new Set(line.map((cell) => cell.row * SIZE + cell.col));
    this.buttons.forEach((button, index) => {
      const mark = board[index];
      const name = cellName(Math.floor(index / SIZE), index % SIZE);
      // The mark first: the accessible name starts with the text shown (WCAG 2.5.3).
      const words = mark ? [mark, name] : [name, t("cell.empty")];
      if (winning.has(index)) words.push(t("noughts.cell.line"));
      button.textContent = mark;
      button.dataset.mark = mark;
      button.classList.toggle("in-line", winning.has(index));
      button.setAttribute("aria-label", words.join(t("sep.comma")));
      // Still focusable once the game is over: the final board can be read cell by cell.
      button.setAttribute("aria-disabled", over ? "true" : "false");
    });
  }
}
