// @ts-check
// Lexio in the review of a finished game (kit/review.js draws the rest): its board as in play
// (mirrored in Arabic, R34), each placement's words with their points, the scores and tiles
// held then (R6: others' racks as counts), the viewer's own rack then, and at the end the
// reckoning with every rack (R30–R32). Only what the step's view holds is drawn.
import { el } from "../../dom.js";
import { t } from "../../i18n.js";
import { bdi, num } from "../../text.js";
import { GEOMETRY, tile } from "./board.js";
import { BLANK } from "./layout.js";
import { logBody, logLine, renderEnding, spokenEnding, spokenEntry } from "./panels.js";

/** @typedef {import("../../games.js").ReviewStep} ReviewStep */

/** @type {import("../../games.js").ReviewHook} */
export const review = {
  geometry: GEOMETRY,
  look: { board: "board", wrap: "board-wrap", ltr: false },
  table: (found) => ({
    game: found.game,
    seats: found.players.map((name, seat) => ({ name, host: seat === 0 })),
    you: found.seat,
    options: {},
  }),
  logLine,
  summary: ({ entry, table }) => el("p", { class: "review-entry" }, [logBody(entry, table)]),
  spoken: ({ entry, table }) => spokenEntry(entry, table),
  standing(root, { table, view }) {
    // The points as they stood (at the end, before its reckoning: the reveal below has it).
    const list = el("ul", { class: "players review-players" });
    table.seats.forEach((seat, index) => {
      const score = view.scores?.[index] ?? 0;
      const turn = !view.ending && view.turn === index;
      const meta = el("span", { class: "player-meta" });
      if (index === table.you) meta.append(el("span", { class: "badge", text: t("game.you") }));
      meta.append(el("span", { class: "player-tiles", text: t("tiles", { count: view.rack_counts?.[index] ?? 0 }) }));
      if (turn) meta.append(el("span", { class: "visually-hidden", text: t("game.turn_marker") }));
      list.append(
        el("li", { class: ["player", turn ? "turn" : "", index === table.you ? "me" : ""].join(" ").trim(), data: { seat: String(index) } }, [
          el("span", { class: "player-name" }, [bdi(seat.name)]),
          el("span", { class: "player-score" }, [
            el("span", { attrs: { "aria-hidden": "true" } }, [num(score)]),
            el("span", { class: "visually-hidden", text: t("points_long", { count: score }) }),
          ]),
          meta,
        ]),
      );
    });
    root.append(list, el("p", { class: "muted", text: t("bag_count", { count: view.bag_count ?? 0 }) }));
  },
  rack(root, { view }) {
    const rack = String(view.rack ?? "");
    if (!rack) {
      root.append(el("p", { class: "muted", text: t("game.rack_empty") }));
      return;
    }
    const tiles = el("p", { class: "end-rack review-rack-tiles", attrs: { dir: "ltr" } });
    for (const letter of rack) tiles.append(tile(letter));
    const letters = [...rack].map((letter) => (letter === BLANK ? t("tile.blank") : letter));
    tiles.append(el("span", { class: "visually-hidden", text: t("say.rack", { letters: letters.join(t("sep.comma")) }) }));
    root.append(tiles);
  },
  ending: (root, { table, view }) => renderEnding(root, table, view),
  spokenEnding: ({ table, view }) => spokenEnding(table, view),
};
