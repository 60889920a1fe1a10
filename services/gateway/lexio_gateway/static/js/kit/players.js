// @ts-check
// The players at a table as every turn-based game lists them: connected or not (a dot and
// words), the name, "you", the host, whose turn it is (a border and words); what a game adds
// (a score, a mark, tiles held) comes from its hooks, beside the name and under it.
import { clear, el } from "../dom.js";
import { t } from "../i18n.js";
import { bdi } from "../text.js";

/**
 * @typedef {object} PlayerLook what a game shows of each seat beyond the kit's
 * @property {(seat: number) => Node[]} [beside] after the name (a score, a mark)
 * @property {(seat: number) => Node[]} [under] among the badges (tiles held)
 */

/**
 * @param {HTMLElement} root the list (a <ul>)
 * @param {any} table the table frame (its seats, the viewer's seat)
 * @param {number | null} turn the seat to move, or null (the end, a pause)
 * @param {PlayerLook} look
 */
export function renderPlayers(root, table, turn, { beside = () => [], under = () => [] } = {}) {
  clear(root);
  (table?.seats ?? []).forEach((/** @type {any} */ seat, /** @type {number} */ index) => {
    const mine = index === table.you;
    const moving = turn === index;
    const item = el("li", {
      class: ["player", moving ? "turn" : "", mine ? "me" : "", seat.connected ? "online" : "offline"].join(" ").trim(),
      data: { seat: String(index) },
    });
    const meta = el("span", { class: "player-meta" });
    if (mine) meta.append(el("span", { class: "badge", text: t("game.you") }));
    if (seat.host) meta.append(el("span", { class: "badge host", text: t("table.host") }));
    meta.append(
      ...under(index),
      el("span", {
        class: seat.connected ? "visually-hidden" : "badge offline-badge",
        text: t(seat.connected ? "seat.connected" : "seat.disconnected"),
      }),
    );
    if (moving) meta.append(el("span", { class: "visually-hidden", text: t("game.turn_marker") }));
    item.append(
      el("span", { class: "conn-dot", attrs: { "aria-hidden": "true" } }),
      el("span", { class: "player-name" }, [bdi(seat.name)]),
      ...beside(index),
      meta,
    );
    root.append(item);
  });
}
