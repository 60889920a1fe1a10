// @ts-check
// The blank's letter (a tile that stands for any letter of the player's alphabet): one
// picker for every game, laid out in the script's own direction (an Arabic alphabet reads
// from the right), typed or clicked.
import { $, clear, el } from "../dom.js";
import { open } from "../dialogs.js";

/**
 * @param {string} dialogId the picker's <dialog> (its markup: a grid of id ``gridId``)
 * @param {string} gridId
 * @param {{ letters: string, lang?: string | null, rtl?: boolean,
 *   fold: (key: string) => string | null }} alphabet the letters, their language and
 *   direction, and how a typed key reads as one of them (or null)
 * @returns {Promise<string | null>} the letter chosen, or null if the player cancels
 */
export async function chooseLetter(dialogId, gridId, alphabet) {
  const dialog = /** @type {HTMLDialogElement} */ ($(dialogId));
  const grid = /** @type {HTMLElement} */ ($(gridId, dialog));
  const { letters } = alphabet;
  if (grid.dataset.letters !== letters) {
    clear(grid);
    grid.dataset.letters = letters;
    grid.dir = alphabet.rtl ? "rtl" : "ltr";
    for (const letter of letters) {
      grid.append(
        el("button", {
          class: "letter-choice",
          text: letter,
          attrs: { type: "button", lang: alphabet.lang ?? null },
          data: { letter },
          on: { click: () => dialog.close(letter) },
        }),
      );
    }
  }
  const letter = await open(dialog, (/** @type {KeyboardEvent} */ event) => {
    const typed = alphabet.fold(event.key);
    if (typed && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      dialog.close(typed);
    }
  });
  return letter.length === 1 && letters.includes(letter) ? letter : null;
}
