// What is always in sight during a game: the players (scores, tiles, connection, turn), the
// log (R11), and, at the end, the reckoning (R30–R32).
import { clear, el } from "./dom.js";
import { currentLanguage, t, tNodes } from "./i18n.js";
import { BLANK, cellName } from "./layout.js";
import { tile } from "./board.js";

export function bdi(text, cls = "") {
  return el("bdi", { class: cls, text });
}

/** A signed number kept left-to-right inside Arabic text ("-7", "+12"). */
export function num(value, signed = false) {
  const text = signed && value > 0 ? `+${value}` : String(value);
  return el("bdi", { class: "num", text, attrs: { dir: "ltr" } });
}

export function names(list) {
  return new Intl.ListFormat(currentLanguage(), { style: "long", type: "conjunction" }).format(list);
}

export function seatName(table, seat) {
  return table?.seats?.[seat]?.name ?? `#${seat + 1}`;
}

/** The players: name, score, tiles held (never which, R6), connection, whose turn. */
export function renderPlayers(root, table, view) {
  clear(root);
  const seats = table?.seats ?? [];
  const ending = view?.ending;
  seats.forEach((seat, index) => {
    const score = ending ? ending.final_scores[index] : (view?.scores?.[index] ?? 0);
    const turn = !ending && view && view.turn === index;
    const item = el("li", {
      class: ["player", turn ? "turn" : "", index === table.you ? "me" : "", seat.connected ? "online" : "offline"]
        .join(" ")
        .trim(),
      data: { seat: String(index) },
    });
    const meta = el("span", { class: "player-meta" });
    if (index === table.you) meta.append(el("span", { class: "badge", text: t("game.you") }));
    if (seat.host) meta.append(el("span", { class: "badge host", text: t("table.host") }));
    meta.append(
      el("span", { class: "player-tiles", text: t("tiles", { count: view?.rack_counts?.[index] ?? 0 }) }),
      el("span", {
        class: seat.connected ? "visually-hidden" : "badge offline-badge",
        text: t(seat.connected ? "seat.connected" : "seat.disconnected"),
      }),
    );
    if (turn) meta.append(el("span", { class: "visually-hidden", text: t("game.turn_marker") }));
    item.append(
      el("span", { class: "conn-dot", attrs: { "aria-hidden": "true" } }),
      el("span", { class: "player-name" }, [bdi(seat.name)]),
      el("span", { class: "player-score", attrs: { "aria-label": t("points", { count: score }) } }, [num(score)]),
      meta,
    );
    root.append(item);
  });
}

function wordPiece(word, withPoints) {
  const arrow = t(word.across ? "dir.across" : "dir.down");
  const piece = el("span", { class: "log-word" }, [
    bdi(word.word, "word"),
    " ",
    el("span", { class: "pos" }, [bdi(cellName(word.row, word.col)), " ", arrow]),
  ]);
  if (withPoints) piece.append(" ", el("span", { class: "pts", text: t("points", { count: word.score }) }));
  return piece;
}

/** One log line (R11): words with positions and points, passes, exchanges as a count. */
export function logLine(entry, table) {
  const name = bdi(seatName(table, entry.seat), "who");
  const item = el("li", { class: `log-entry kind-${entry.kind}`, data: { number: String(entry.number) } });
  item.append(el("span", { class: "log-num", text: String(entry.number) }));
  const body = el("span", { class: "log-body" });
  if (entry.kind === "place") {
    body.append(tNodes("log.place", { name }));
    const words = el("span", { class: "log-words" });
    const several = entry.words.length > 1;
    entry.words.forEach((word, i) => {
      if (i > 0) words.append(t("log.separator"));
      words.append(wordPiece(word, several));
    });
    const total = t("points", { count: entry.score });
    body.append(" ", words, " ", el("span", { class: "log-total", text: several ? t("log.total", { points: total }) : total }));
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
  item.append(body);
  return item;
}

export function renderLog(root, log, table) {
  clear(root);
  if (!log.length) {
    root.append(el("li", { class: "log-empty", text: t("game.log_empty") }));
    return;
  }
  for (const entry of log) root.append(logLine(entry, table));
  root.scrollTop = root.scrollHeight;
}

/** R30–R32: the reckoning, the winner(s), every rack. Buttons are wired by the caller. */
export function renderEnding(root, table, view) {
  clear(root);
  const ending = view.ending;
  root.append(el("h2", { text: t("end.title"), attrs: { tabindex: "-1" } }));
  const cause =
    ending.cause === "rack_emptied"
      ? tNodes("end.cause.rack_emptied", { name: bdi(seatName(table, ending.finisher)) })
      : t("end.cause.no_placement");
  root.append(el("p", { class: "end-cause" }, [cause]));
  const winners = ending.winners.map((seat) => seatName(table, seat));
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
  (table?.seats ?? []).forEach((seat, index) => {
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
  root.append(el("div", { class: "table-scroll" }, [grid]));
}
