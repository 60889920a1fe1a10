// @ts-check
// What is always in sight during a game: the log (R11) and, at the end, the reckoning
// (R30–R32); the players' list is the kit's (kit/players.js) with gameview.js's score and tiles.
import { clear, el } from "../../dom.js";
import { currentLanguage, french, t, tNodes } from "../../i18n.js";
import { BLANK, cellName } from "./layout.js";
import { tile } from "./board.js";
import { bdi, num, sayAs } from "../../text.js";

/** A number of points: "12 pts" on screen, "12 points" for a screen reader.
 *  @param {number} count */
export function pointsNode(count) {
  return sayAs(t("points", { count }), t("points_long", { count }));
}

/** "→" or "↓" on screen (a word's direction), the direction in words for a screen reader.
 *  @param {boolean} across */
export function directionNode(across) {
  return sayAs(t(across ? "dir.across" : "dir.down"), t(across ? "dir.across_words" : "dir.down_words"));
}

/** @param {string[]} list */
export function names(list) {
  return new Intl.ListFormat(currentLanguage(), { style: "long", type: "conjunction" }).format(list);
}

/** @param {any} table @param {number} seat */
export function seatName(table, seat) {
  return table?.seats?.[seat]?.name ?? `#${seat + 1}`;
}

/** @param {any} word @param {boolean} withPoints */
function wordPiece(word, withPoints) {
  const piece = el("span", { class: "log-word" }, [
    french(word.word),
    " ",
    el("span", { class: "pos" }, [bdi(cellName(word.row, word.col)), " ", directionNode(word.across)]),
  ]);
  if (withPoints) piece.append(" ", el("span", { class: "pts" }, [pointsNode(word.score)]));
  return piece;
}

/** One word of a move, said: "CHAT en G7, horizontal" (with its points when asked).
 *  @param {any} word @param {boolean} withPoints */
function spokenWord(word, withPoints) {
  const params = {
    word: french(word.word),
    cell: cellName(word.row, word.col),
    dir: t(word.across ? "dir.across_words" : "dir.down_words"),
  };
  if (!withPoints) return tNodes("say.word", params);
  return tNodes("say.word_points", { ...params, points: t("points_long", { count: word.score }) });
}

/**
 * A log entry as the live region says it (R11): who, the word(s) with position, direction
 * and points, the total; an exchange by its count; a pass and why (player, clock R28,
 * disconnected R29). French words keep lang="fr".
  * @param {any} entry @param {any} table
 */
export function spokenEntry(entry, table) {
  const name = bdi(seatName(table, entry.seat));
  if (entry.kind === "place") {
    const several = entry.words.length > 1;
    const words = document.createDocumentFragment();
    entry.words.forEach((/** @type {any} */ word, /** @type {number} */ i) => {
      if (i > 0) words.append(t("say.word_sep"));
      words.append(spokenWord(word, several));
    });
    const points = t("points_long", { count: entry.score });
    const line = el("span", {}, [tNodes(several ? "say.place_several" : "say.place", { name, words, points })]);
    if (entry.bingo) line.append(" ", t("say.bingo"));
    return line;
  }
  if (entry.kind === "exchange") return el("span", {}, [tNodes("log.exchange", { name, count: entry.count })]);
  /** @type {Record<string, string>} */
  const causes = { clock: "log.pass_clock", disconnected: "log.pass_disconnected" };
  const key = causes[entry.cause] ?? "log.pass";
  return el("span", {}, [tNodes(key, { name })]);
}

/** One log line (R11): words with positions and points, passes, exchanges as a count.
 *  @param {any} entry @param {any} table */
export function logLine(entry, table) {
  const item = el("li", { class: `log-entry kind-${entry.kind}`, data: { number: String(entry.number) } });
  item.append(el("span", { class: "log-num", text: String(entry.number) }));
  item.append(logBody(entry, table));
  return item;
}

/** What a log line says of its entry (the review shows it for the step's entry too).
 *  @param {any} entry @param {any} table */
export function logBody(entry, table) {
  const name = bdi(seatName(table, entry.seat), "who");
  const body = el("span", { class: "log-body" });
  if (entry.kind === "place") {
    body.append(tNodes("log.place", { name }));
    const words = el("span", { class: "log-words" });
    const several = entry.words.length > 1;
    entry.words.forEach((/** @type {any} */ word, /** @type {number} */ i) => {
      if (i > 0) words.append(sayAs(t("log.separator"), t("sep.comma")));
      words.append(wordPiece(word, several));
    });
    const total = several
      ? sayAs(t("log.total", { points: t("points", { count: entry.score }) }), t("say.total", { points: t("points_long", { count: entry.score }) }))
      : pointsNode(entry.score);
    body.append(" ", words, " ", el("span", { class: "log-total" }, [total]));
    if (entry.bingo) body.append(" ", el("span", { class: "log-bingo", text: t("log.bingo") }));
  } else if (entry.kind === "exchange") {
    body.append(tNodes("log.exchange", { name, count: entry.count }));
  } else if (entry.cause === "clock") {
    body.append(tNodes("log.pass_clock", { name }));
  } else if (entry.cause === "disconnected") {
    body.append(tNodes("log.pass_disconnected", { name }));
  } else {
    body.append(tNodes("log.pass", { name }));
  }
  return body;
}

/** The end as the live region says it: the cause, the winner(s), every final score.
 *  @param {any} table @param {any} view */
export function spokenEnding(table, view) {
  const ending = view.ending;
  const line = el("span", {}, [t("say.end_title")]);
  line.append(
    " ",
    ending.cause === "rack_emptied"
      ? tNodes("end.cause.rack_emptied", { name: bdi(seatName(table, ending.finisher)) })
      : t("end.cause.no_placement"),
  );
  const winners = ending.winners.map((/** @type {any} */ seat) => seatName(table, seat));
  line.append(
    " ",
    winners.length > 1
      ? tNodes("end.winners", { names: bdi(names(winners)) })
      : tNodes("end.winner", { name: bdi(winners[0] ?? "") }),
  );
  const scores = (table?.seats ?? []).map((/** @type {any} */ seat, /** @type {number} */ index) =>
    t("say.score", { name: seat.name, points: t("points_long", { count: ending.final_scores[index] }) }),
  );
  line.append(" ", t("say.final_scores", { scores: names(scores) }));
  return line;
}

/** R30–R32: the reckoning, the winner(s), every rack. Buttons are wired by the caller.
 *  @param {HTMLElement} root @param {any} table @param {any} view */
export function renderEnding(root, table, view) {
  clear(root);
  const ending = view.ending;
  root.append(el("h2", { text: t("end.title"), attrs: { tabindex: "-1" } }));
  const cause =
    ending.cause === "rack_emptied"
      ? tNodes("end.cause.rack_emptied", { name: bdi(seatName(table, ending.finisher)) })
      : t("end.cause.no_placement");
  root.append(el("p", { class: "end-cause" }, [cause]));
  const winners = ending.winners.map((/** @type {any} */ seat) => seatName(table, seat));
  root.append(
    el("p", { class: "end-winners" }, [
      winners.length > 1
        ? tNodes("end.winners", { names: bdi(names(winners)) })
        : tNodes("end.winner", { name: bdi(winners[0] ?? "") }),
    ]),
  );
  const grid = el("table", { class: "end-table" });
  const head = el("tr", {}, ["end.col.player", "end.col.score", "end.col.adjust", "end.col.final"].map(
    (key) => el("th", { text: t(key), attrs: { scope: "col" } }),
  ));
  grid.append(el("thead", {}, [head]));
  const body = el("tbody");
  (table?.seats ?? []).forEach((/** @type {any} */ seat, /** @type {number} */ index) => {
    const adjust = ending.adjustments[index];
    const rack = ending.racks[index] ?? "";
    const rackCell = el("td", { class: "end-rack", attrs: { colspan: "4" } }, [
      el("span", { class: "end-rack-label", text: t("end.col.rack") }),
    ]);
    if (rack) {
      for (const letter of rack) rackCell.append(tile(letter));
      rackCell.append(el("span", { class: "visually-hidden", text: [...rack].map((l) => (l === BLANK ? t("tile.blank") : l)).join(" ") }));
    } else {
      rackCell.append(t("end.rack_empty"));
    }
    const row = el("tr", { class: ending.winners.includes(index) ? "winner" : "", data: { seat: String(index) } }, [
      el("th", { attrs: { scope: "row" } }, [bdi(seat.name)]),
      el("td", {}, [num(view.scores[index])]),
      el("td", {}, [num(adjust, true)]),
      el("td", { class: "final" }, [num(ending.final_scores[index])]),
    ]);
    const rackRow = el("tr", { class: "end-rack-row", data: { seat: String(index) } }, [rackCell]);
    body.append(row, rackRow);
  });
  grid.append(body);
  // It may scroll sideways on a phone: focusable, so that a keyboard can scroll it.
  root.append(el("div", { class: "table-scroll", attrs: { tabindex: "0", role: "region", "aria-label": t("end.title") } }, [grid]));
}
