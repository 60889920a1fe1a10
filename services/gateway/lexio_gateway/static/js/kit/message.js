// @ts-check
// The box under the board that says why a move was refused, an error, or a hint. It is an
// alert: drawn again only when what it says changes, or it would be said again at every
// render (a presence change, each letter typed while preparing a move). A new message is
// brought into sight: on a phone the action bar sticks over the page, and a refusal under it
// would leave a tile gone back with no reason shown.
import { clear, el } from "../dom.js";
import { t } from "../i18n.js";
import { bringIntoSight } from "./sight.js";

export class MessageBox {
  /** @param {HTMLElement} root */
  constructor(root) {
    this.root = root;
    /** @type {any} */ this.key = null;
  }

  /** Draw it again the next time (a new table or a new language). */
  reset() {
    this.key = null;
  }

  /**
   * @param {import("./turns.js").Message | null} message
   * @param {boolean} hint whether to say the player may prepare a move out of turn
   */
  render(message, hint) {
    if (message ? this.key === message : this.key === hint) return;
    this.key = message || hint;
    const box = this.root;
    clear(box);
    box.className = "message";
    if (!message) {
      if (hint) box.append(el("p", { class: "muted", text: t("game.prepare_hint") }));
      return;
    }
    box.classList.add(`message-${message.kind}`);
    for (const line of message.lines()) box.append(el("p", {}, [line]));
    // After the rest of the screen is drawn (the buttons below it may change size).
    requestAnimationFrame(() => {
      if (this.key === message && box.isConnected && !box.closest("[hidden]")) bringIntoSight(box);
    });
  }
}
