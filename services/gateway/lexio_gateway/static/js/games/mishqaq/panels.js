// @ts-check
// al-Mishqaq's texts of the game: who plays which side (M1), the log (M37) as it is shown
// and as the live region says it, and the end (M33–M35). Words keep their language: the
// Latin side's the table's list (fr, en), the Arabic side's Arabic (WCAG 3.1.2).
import { el } from "../../dom.js";
import { t, tNodes } from "../../i18n.js";
import { bdi, num, sayAs } from "../../text.js";
import { formatSeconds } from "../../clock.js";
import { timeWords } from "../../kit/time.js";
import { SIDES, cellName, langOf, otherSide, tileNode } from "./tiles.js";
import { tileWords } from "./board.js";

/** M1: the host (seat 0) plays the side the table's options name; the guest the other.
 *  @param {any} table @param {number} seat */
export function sideOfSeat(table, seat) {
  const host = table?.options?.host_side === "arabic" ? "arabic" : "latin";
  return seat === 0 ? host : otherSide(host);
}

/** @param {any} table @param {string} side */
export function seatOfSide(table, side) {
  return sideOfSeat(table, 0) === side ? 0 : 1;
}

/** @param {any} table @param {string} side */
export function sideName(table, side) {
  const seat = seatOfSide(table, side);
  return table?.seats?.[seat]?.name ?? t(`mq.side.${side}`);
}

/** A word in its own language, kept in its own direction inside any text.
 *  @param {string} text @param {string} side @param {string | undefined} latin */
export function wordNode(text, side, latin) {
  const node = el("bdi", { class: "word", text });
  node.lang = langOf(side, latin);
  return node;
}

/** The arrow shown for a word's reading direction (M20), and its words for a reader.
 *  @param {string} direction @param {string} side */
export function directionNode(direction, side) {
  const arrow = direction === "across" ? t(`mq.arrow.across_${side}`) : t(`mq.arrow.${direction}`);
  return sayAs(arrow, t(`mq.dir.${direction}`));
}

/** @param {any} word @param {string} side @param {string | undefined} latin */
function spokenWord(word, side, latin) {
  return tNodes("say.word", {
    word: wordNode(word.word, side, latin),
    cell: cellName(word.row, word.col),
    dir: t(`mq.dir.${word.direction}`),
  });
}

/** @param {any} entry */
function draws(entry) {
  const rounds = document.createDocumentFragment();
  (entry.draws || []).forEach((/** @type {any} */ round, /** @type {number} */ i) => {
    if (i > 0) rounds.append(t("say.word_sep"));
    const latin = el("bdi", { text: round.latin?.letter || t("mq.blank") });
    const arabic = el("bdi", { text: round.arabic?.letter || t("mq.blank"), attrs: { lang: "ar" } });
    rounds.append(tNodes("mq.log.draw", { latin, arabic }));
  });
  return rounds;
}

/** @param {any} entry @param {any} table */
function resultNode(entry, table) {
  if (!entry.winner) return tNodes("mq.log.result_draw", {});
  const name = bdi(sideName(table, entry.winner), "who");
  const loser = bdi(sideName(table, otherSide(entry.winner)), "who");
  return tNodes(`mq.log.result.${entry.cause}`, { name, loser });
}

/**
 * One log entry as a sentence (or, for a placement, the words with their cells and
 * directions). ``spoken``: as the live region says it (directions in words).
  * @param {any} entry @param {any} table
 */
export function entryNode(entry, table, { spoken = false } = {}) {
  const latin = table?.options?.latin;
  const side = entry.side;
  const name = side ? bdi(sideName(table, side), "who") : "";
  const line = el("span");
  switch (entry.kind) {
    case "opening":
      line.append(tNodes("mq.log.opening", { draws: draws(entry), name }));
      break;
    case "place": {
      const words = document.createDocumentFragment();
      entry.words.forEach((/** @type {any} */ word, /** @type {number} */ i) => {
        if (spoken) {
          if (i > 0) words.append(t("say.word_sep"));
          words.append(spokenWord(word, side, latin));
        } else {
          if (i > 0) words.append(sayAs(t("log.separator"), t("sep.comma")));
          words.append(
            el("span", { class: "log-word" }, [
              wordNode(word.word, side, latin),
              " ",
              el("span", { class: "pos" }, [bdi(cellName(word.row, word.col)), " ", directionNode(word.direction, side)]),
            ]),
          );
        }
      });
      line.append(tNodes(spoken ? "mq.say.place" : "mq.log.place", { name, words }));
      break;
    }
    case "pass":
      line.append(tNodes("mq.log.pass", { name, count: entry.count }));
      break;
    case "swap": {
      const cell = entry.tiles?.[0];
      line.append(
        tNodes("mq.log.swap", {
          name,
          cell: cell ? cellName(cell.row, cell.col) : "",
          letter: el("bdi", { text: cell?.tile?.letter ?? "", attrs: { lang: side === "arabic" ? "ar" : null } }),
        }),
      );
      break;
    }
    case "pause":
    case "resume":
    case "pause_expired":
    case "resign":
      line.append(tNodes(`mq.log.${entry.kind}`, { name }));
      break;
    case "result":
      line.append(resultNode(entry, table));
      break;
    default:
      break;
  }
  return line;
}

/** One entry of the log's list: its number and its sentence (the kit's LogView draws the list).
 *  @param {any} entry @param {any} table */
export function logLine(entry, table) {
  const item = el("li", {
    class: `log-entry kind-${entry.kind}${entry.side ? ` side-${entry.side}` : ""}`,
    data: { number: String(entry.number) },
  });
  item.append(el("span", { class: "log-num", text: String(entry.number) }));
  item.append(el("span", { class: "log-body" }, [entryNode(entry, table)]));
  return item;
}

/** M33–M35: why the game ended, in a sentence naming the player concerned.
 *  @param {any} table @param {any} ending */
export function causeNode(table, ending) {
  const winner = ending.winner;
  const loser = winner ? otherSide(winner) : null;
  const key = `mq.end.cause.${ending.cause}`;
  if (ending.cause === "try") return tNodes(key, { name: bdi(sideName(table, winner)) });
  if (ending.cause === "flag" || ending.cause === "resign") {
    return tNodes(key, { name: bdi(sideName(table, /** @type {string} */ (loser))) });
  }
  return tNodes(key, {});
}

/** @param {any} table @param {any} ending */
export function winnerNode(table, ending) {
  if (!ending.winner) return tNodes("mq.end.draw", {});
  return tNodes("end.winner", { name: bdi(sideName(table, ending.winner)) });
}

/** The end as the live region says it: the cause, the winner (or a draw).
 *  @param {any} table @param {any} view */
export function spokenEnding(table, view) {
  return el("span", {}, [t("say.end_title"), " ", causeNode(table, view.ending), " ", winnerNode(table, view.ending)]);
}

/** A rack revealed at the end (M12): its tiles, and their letters in words.
 *  @param {any[]} tiles */
export function rackNode(tiles) {
  const box = el("span", { class: "end-rack mq-end-rack" });
  if (!tiles?.length) {
    box.append(t("end.rack_empty"));
    return box;
  }
  for (const tile of tiles) box.append(tileNode(tile));
  box.append(el("span", { class: "visually-hidden", text: tiles.map((tile) => tileWords(tile)).join(t("say.word_sep")) }));
  return box;
}

/** The last accepted placement's words before ``before`` (a log index), for the pause (M30).
 *  @param {any[]} log @param {number} before */
export function lastPlacement(log, before = log.length) {
  for (let i = Math.min(before, log.length) - 1; i >= 0; i -= 1) {
    if (log[i].kind === "place") return log[i];
  }
  return null;
}


/** M33–M35: why it ended, who won, both clocks, and both racks revealed (M12): the end panel's
 *  body, and the review's at its last step.
 *  @param {HTMLElement} body @param {any} table @param {any} view */
export function drawEnding(body, table, view) {
  const ending = view.ending;
  body.append(
    el("h2", { text: t("end.title"), attrs: { tabindex: "-1" } }),
    el("p", { class: "end-cause" }, [causeNode(table, ending)]),
    el("p", { class: "end-winners" }, [winnerNode(table, ending)]),
  );
  const grid = el("table", { class: "end-table mq-end-table" });
  grid.append(
    el("thead", {}, [
      el("tr", {}, ["end.col.player", "mq.end.col.side", "mq.end.col.time"].map((k) => el("th", { text: t(k), attrs: { scope: "col" } }))),
    ]),
  );
  const rows = el("tbody");
  for (const side of SIDES) {
    const won = ending.winner === side;
    const bank = Math.max(0, Math.ceil(view[`${side}_bank`]));
    rows.append(
      el("tr", { class: won ? "winner" : "", data: { side } }, [
        el("th", { attrs: { scope: "row" } }, [bdi(sideName(table, side))]),
        el("td", { text: t(`mq.side.${side}`) }),
        el("td", {}, [el("span", { attrs: { "aria-hidden": "true" } }, [num(formatSeconds(bank))]), el("span", { class: "visually-hidden", text: timeWords(bank) })]),
      ]),
      el("tr", { class: "end-rack-row", data: { side } }, [
        el("td", { attrs: { colspan: "3" } }, [el("span", { class: "end-rack-label", text: t("end.col.rack") }), rackNode(ending[`${side}_rack`])]),
      ]),
    );
  }
  grid.append(rows);
  body.append(el("div", { class: "table-scroll", attrs: { tabindex: "0", role: "region", "aria-label": t("end.title") } }, [grid]));
}
