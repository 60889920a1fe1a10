// @ts-check
// Modal dialogs (<dialog>): opening one and waiting for its answer, and the one question
// every game asks (a confirmation). A game's own dialogs are in its markup and its modules.
import { $ } from "./dom.js";

/** Show ``dialog`` modally; resolves with its return value once closed (``onKey``: its keys).
 *  @param {HTMLDialogElement} dialog @param {(event: KeyboardEvent) => void} [onKey]
 *  @returns {Promise<string>} */
export function open(dialog, onKey) {
  return new Promise((resolve) => {
    dialog.returnValue = "";
    const keys = (/** @type {KeyboardEvent} */ event) => onKey?.(event);
    dialog.addEventListener("keydown", keys);
    dialog.addEventListener(
      "close",
      () => {
        dialog.removeEventListener("keydown", keys);
        resolve(dialog.returnValue);
      },
      { once: true },
    );
    dialog.showModal();
  });
}

/** A yes/no question; resolves true when confirmed.
 *  @param {{ title: string, text: string, ok: string }} question */
export async function confirmDialog({ title, text, ok }) {
  const dialog = /** @type {HTMLDialogElement} */ ($("#dlg-confirm"));
  $("#confirm-title", dialog).textContent = title;
  $("#confirm-text", dialog).textContent = text;
  $("#confirm-ok", dialog).textContent = ok;
  const answer = open(dialog);
  // The safe choice has the focus (it also has autofocus): Enter alone ends nothing.
  $("#confirm-cancel", dialog).focus();
  return (await answer) === "ok";
}

/**
 * Wire the dialogs' buttons (cancel/ok close with a value): once, for the page's dialogs and
 * for those the games' markup brought (installed before this is called). Each button listens
 * itself: a click listener on the document makes Chromium give every focusable element of the
 * page a "click ancestor" action, which Orca says ("Partie terminée, clickable").
 */
export function initDialogs() {
  for (const button of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("dialog [data-close]"))) {
    button.addEventListener("click", () => button.closest("dialog")?.close(button.dataset.close));
  }
}
