// @ts-check
// al-Mishqaq in the review of a finished game (kit/review.js draws the rest): its board as in
// play (never mirrored, M4), each placement's words and the columns it gained toward the
// mover's target column (M6, M23), both clocks as they stood then (M28), the bags and racks
// as counts, the viewer's own rack then, and at the end both racks revealed (M12). Only what
// the step's view holds is drawn.
import { el } from "../../dom.js";
import { t } from "../../i18n.js";
import { bdi, num } from "../../text.js";
import { formatSeconds } from "../../clock.js";
import { timeWords } from "../../kit/time.js";
import { GEOMETRY, tileWords } from "./board.js";
import { SIDES, SIZE, TARGET, otherSide, parseCell, progress, tileNode } from "./tiles.js";
import { drawEnding, entryNode, logLine, seatOfSide, sideName, spokenEnding } from "./panels.js";

/** @typedef {import("../../games.js").ReviewStep} ReviewStep */

/** How far ``side``'s most advanced own tile on ``board`` is from its target column (M6), in
 *  columns; before its first tile, as far as its start column is.
 *  @param {string[]} board @param {string} side */
export function columnsToGo(board, side) {
  const goal = progress(side, TARGET[side]);
  let best = progress(side, TARGET[otherSide(side)]);
  (board ?? []).forEach((text, index) => {
    const tile = parseCell(text);
    if (tile && tile.owner === side) best = Math.max(best, progress(side, index % SIZE));
  });
  return Math.max(0, goal - best);
}

/** A placement's gain toward the target column, and what is left, in words (else nothing).
 *  @param {ReviewStep} step */
function gain({ entry, before, view }) {
  if (entry.kind !== "place" || !entry.side || !before) return null;
  const left = columnsToGo(view.board, entry.side);
  const gained = columnsToGo(before.board, entry.side) - left;
  return t("mq.review.gained", { count: Math.max(0, gained), left });
}

/** M15: a turn is a placement or a pass; the opening draw, a swap (within a turn, M27), a
 *  pause (M30) and a resignation (at any moment, M31) are not moves. */
const MOVES = new Set(["place", "pass"]);
/** The entry a result's cause follows (M23, M31, M35); a flag (M29) follows no action. */
const ENDED_BY = /** @type {Record<string, string>} */ ({ try: "place", resign: "resign", dead_position: "pass" });

/** @type {import("../../kit/review.js").StepHook} */
export const review = {
  geometry: GEOMETRY,
  look: { board: "mq-board zoom-0", wrap: "mq-board-wrap", ltr: true },
  table(found) {
    // M1: the host's side is the table's option; the viewer's side and seat say which it was.
    const first = /** @type {any} */ (found.steps[0] ?? {});
    const mine = first.side === "arabic" ? "arabic" : "latin";
    return {
      game: found.game,
      seats: found.players.map((name, seat) => ({ name, host: seat === 0 })),
      you: found.seat,
      options: { host_side: found.seat === 0 ? mine : otherSide(mine), latin: first.latin ?? "fr" },
    };
  },
  logLine,
  isMove: (entry) => MOVES.has(entry.kind),
  stepLabel: (entry) => t(`mq.review.step.${entry.kind}`),
  endedBy: (entry, previous) => entry.kind === "result" && ENDED_BY[entry.cause] === previous.kind,
  summary(step) {
    const box = el("div", { class: "review-entry" }, [el("p", {}, [entryNode(step.entry, step.table)])]);
    const gained = gain(step);
    if (gained) box.append(el("p", { class: "review-gain", text: gained }));
    return box;
  },
  spoken(step) {
    const line = el("span", {}, [entryNode(step.entry, step.table, { spoken: true })]);
    const gained = gain(step);
    if (gained) line.append(" ", gained);
    return line;
  },
  standing(root, { table, view }) {
    // Latin on the left and Arabic on the right, as on the board, in every language.
    const list = el("ul", { class: "mq-clocks review-clocks" });
    for (const side of SIDES) {
      const seat = seatOfSide(table, side);
      const turn = !view.ending && view.turn === side;
      const bank = Math.max(0, Math.ceil(view[`${side}_bank`] ?? 0));
      const badges = el("span", { class: "mq-clock-badges" }, [el("span", { class: "badge side-badge", text: t(`mq.side.${side}`) })]);
      if (seat === table.you) badges.append(el("span", { class: "badge", text: t("game.you") }));
      if (turn) badges.append(el("span", { class: "visually-hidden", text: t("mq.review.to_play") }));
      list.append(
        el("li", { class: ["mq-clock", side, seat === table.you ? "me" : "", turn ? "running" : ""].join(" ").trim(), data: { side } }, [
          el("p", { class: "mq-clock-name" }, [bdi(sideName(table, side))]),
          badges,
          el("p", { class: "mq-clock-time" }, [
            el("span", { class: "mq-time", attrs: { dir: "ltr", "aria-hidden": "true" } }, [num(formatSeconds(bank))]),
            el("span", { class: "visually-hidden", text: timeWords(bank) }),
          ]),
          el("p", { class: "mq-clock-meta" }, [
            el("span", { text: t("tiles", { count: view[`${side}_rack_count`] ?? 0 }) }),
            el("span", { text: t("mq.bag", { count: view[`${side}_bag_count`] ?? 0 }) }),
          ]),
        ]),
      );
    }
    root.append(list);
  },
  rack(root, { view }) {
    /** @type {any[]} */
    const rack = Array.isArray(view.rack) ? view.rack : [];
    if (!rack.length) {
      root.append(el("p", { class: "muted", text: t("game.rack_empty") }));
      return;
    }
    const tiles = el("p", { class: "mq-end-rack review-rack-tiles", attrs: { dir: "ltr" } });
    for (const tile of rack) tiles.append(tileNode(tile));
    tiles.append(el("span", { class: "visually-hidden", text: t("say.rack", { letters: rack.map((tile) => tileWords(tile)).join(t("say.word_sep")) }) }));
    root.append(tiles);
  },
  ending: (root, { table, view }) => drawEnding(root, table, view),
  spokenEnding: ({ table, view }) => spokenEnding(table, view),
};
