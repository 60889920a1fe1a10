// @ts-check
// The end of a game: what the host and the guests may do next (a rematch at a new table, the
// review of the game just finished, or home), under the game's own account of the end.
import { el, show } from "../dom.js";
import { currentLanguage, t, tNodes } from "../i18n.js";
import { bdi } from "../text.js";
import { announce } from "../announce.js";

/**
 * Append the rematch offer and the actions to ``body``, the end panel's body.
 * @param {HTMLElement} body
 * @param {any} ctx the controller's context (request, toast, errorText, joinNewTable, goHome,
 *   openReview)
 * @param {{ host: boolean, hostName: string, rematch: any, tableId?: string | null,
 *   ids: { rematch: string, joinNew: string, home: string, review?: string } }} end whether the
 *   player is the host, the host's name, the offer of a new table if any, the table just
 *   finished, the buttons' ids (a game with a review gives the review button's)
 */
export function appendEndActions(body, ctx, { host, hostName, rematch, tableId, ids }) {
  const actions = el("div", { class: "actions" });
  if (host) {
    actions.append(
      el("button", {
        class: "primary",
        text: t("end.rematch"),
        attrs: { type: "button", id: ids.rematch },
        on: {
          click: () =>
            ctx.request({ type: "rematch" }, (/** @type {any} */ frame) => {
              if (frame.type === "error") ctx.toast(ctx.errorText(frame));
            }),
        },
      }),
    );
  } else if (rematch) {
    body.append(el("p", { class: "end-offer" }, [tNodes("end.rematch_offer", { host: bdi(rematch.host || hostName) })]));
    actions.append(
      el("button", {
        class: "primary",
        text: t("end.join_new"),
        attrs: { type: "button", id: ids.joinNew },
        on: { click: () => ctx.joinNewTable(rematch.code) },
      }),
    );
  } else {
    body.append(el("p", { class: "muted end-offer" }, [tNodes("end.wait_host", { host: bdi(hostName) })]));
  }
  if (ids.review && tableId) {
    actions.append(
      el("button", { text: t("end.review"), attrs: { type: "button", id: ids.review }, on: { click: () => ctx.openReview(tableId) } }),
    );
  }
  actions.append(el("button", { text: t("end.home"), attrs: { type: "button", id: ids.home }, on: { click: () => ctx.goHome() } }));
  body.append(actions);
}

/**
 * The end panel: hidden while the game runs; at the end drawn once per state (a language, a
 * rematch offer, a seat), its heading focused the first time.
 */
export class EndPanel {
  /** @param {HTMLElement} panel @param {HTMLElement} body */
  constructor(panel, body) {
    this.panel = panel;
    this.body = body;
    this.key = "";
    /** @type {string | null} the rematch offer the live region has said (its code) */
    this.offered = null;
  }

  reset() {
    this.key = "";
    this.offered = null;
  }

  /**
   * @param {any} game the controller (over, app, ctx)
   * @param {(body: HTMLElement) => void} drawEnding the game's account of the end
   * @param {{ host: boolean, hostName: string,
   *   ids: { rematch: string, joinNew: string, home: string, review?: string } }} end
   */
  render(game, drawEnding, end) {
    if (!game.over) {
      show(this.panel, false);
      this.key = "";
      return;
    }
    const app = game.app;
    const key = `${currentLanguage()}|${app.seq}|${app.rematch?.code ?? ""}|${app.table?.seats?.length}`;
    if (key === this.key) return;
    const first = this.key === "";
    const hadFocus = this.panel.contains(document.activeElement);
    this.key = key;
    show(this.panel, true);
    drawEnding(this.body);
    appendEndActions(this.body, game.ctx, { ...end, rematch: app.rematch, tableId: app.table?.table_id });
    // The offer is said when it comes: it appears in a panel the player may have read already.
    const offer = end.host ? null : app.rematch;
    if (offer && !first && offer.code !== this.offered) {
      announce(tNodes("end.rematch_offer", { host: bdi(offer.host || end.hostName) }));
    }
    this.offered = offer?.code ?? null;
    // The keyboard lands on the result once, and stays in the panel when it is drawn again.
    if (first || hadFocus) this.body.querySelector("h2")?.focus();
  }
}
