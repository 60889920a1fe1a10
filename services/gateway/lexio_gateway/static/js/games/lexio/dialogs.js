// @ts-check
// Lexio's own dialogs: a blank's letter (R15) and the tiles to exchange (R26).
import { $, clear, el } from "../../dom.js";
import { t } from "../../i18n.js";
import { open } from "../../dialogs.js";
import { chooseLetter } from "../../kit/picker.js";
import { BLANK, VALUES } from "./layout.js";
import { tile } from "./board.js";

const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

/** R15: the letter a blank stands for, or null if the player cancels. */
export function chooseBlankLetter() {
  return chooseLetter({
    letters: LETTERS,
    title: "blank.title",
    help: "blank.help",
    fold: (key) => (key.length === 1 && LETTERS.includes(key.toUpperCase()) ? key.toUpperCase() : null),
  });
}

/** R26: the tiles to give back (letters, '?' for a blank), or null if cancelled.
 *  @param {string} rack @param {number} bagCount */
export async function chooseExchange(rack, bagCount) {
  const dialog = /** @type {HTMLDialogElement} */ ($("#dlg-exchange"));
  const list = $("#exchange-tiles", dialog);
  const okButton = /** @type {HTMLButtonElement} */ ($("#exchange-ok", dialog));
  const note = $("#exchange-note", dialog);
  clear(list);
  const chosen = new Set();
  const refresh = () => {
    okButton.textContent = t("exchange.confirm", { count: chosen.size });
    okButton.disabled = chosen.size === 0 || chosen.size > bagCount;
    note.textContent =
      chosen.size > bagCount ? t("exchange.bag_small", { count: bagCount }) : t("exchange.help");
  };
  [...rack].forEach((letter, index) => {
    const button = el("button", {
      class: "rack-tile exchange-tile",
      attrs: {
        type: "button",
        "aria-pressed": "false",
        "aria-label":
          letter === BLANK
            ? t("tile.blank_label")
            : t("tile.label", { letter, points: t("points_long", { count: VALUES[letter] }) }),
      },
      data: { letter },
      on: {
        click: () => {
          if (chosen.has(index)) chosen.delete(index);
          else chosen.add(index);
          button.setAttribute("aria-pressed", chosen.has(index) ? "true" : "false");
          refresh();
        },
      },
    });
    button.append(tile(letter));
    list.append(button);
  });
  refresh();
  const answer = await open(dialog);
  if (answer !== "ok" || chosen.size === 0) return null;
  return [...chosen].sort((a, b) => a - b).map((i) => rack[i]).join("");
}
