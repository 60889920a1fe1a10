// @ts-check
// The blank's letter (a tile that stands for any letter of the player's alphabet): one
// picker for every game (index.html's #dlg-blank), laid out in the script's own direction (an
// Arabic alphabet reads from the right), typed or clicked; its title and help are the game's.
import { $, clear, el } from "../dom.js";
import { t } from "../i18n.js";
import { open } from "../dialogs.js";

/**
 * @param {{ letters: string, lang?: string | null, rtl?: boolean,
 *   fold: (key: string) => string | null, title: string, help: string }} alphabet the
 *   letters, their language and direction, how a typed key reads as one of them (or null),
 *   and the dialog's title and help (catalog keys)
 * @returns {Promise<string | null>} the letter chosen, or null if the player cancels
 */
export async function chooseLetter(alphabet) {
  const dialog = /** @type {HTMLDialogElement} */ ($("#dlg-blank"));
  const grid = /** @type {HTMLElement} */ ($("#blank-letters", dialog));
  $("#blank-title", dialog).textContent = t(alphabet.title);
  $("#blank-help", dialog).textContent = t(alphabet.help);
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
