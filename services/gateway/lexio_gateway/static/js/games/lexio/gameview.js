// @ts-check
// The game screen drawn from the game's state (game.js): board, rack, players, status, clock,
// reserve, preview, messages, log and the end of the game.
import { $, clear, el, show } from "../../dom.js";
import { currentLanguage, french, t, tNodes } from "../../i18n.js";
import { GEOMETRY, tile } from "./board.js";
import { BLANK, VALUES } from "./layout.js";
import { formatSeconds, secondsLeft } from "../../clock.js";
import { num, sayAs } from "../../text.js";
import { logLine, pointsNode, renderEnding } from "./panels.js";
import { announce } from "../../announce.js";
import { TileScreen } from "../../kit/screen.js";
import { renderReserve, timeWords } from "../../kit/time.js";

export const URGENT = 10; // seconds left when the clock turns red (and the live region asserts)

export class GameView extends TileScreen {
  /** @param {any} game */
  constructor(game) {
    super(game, {
      board: "#board",
      rack: "#rack",
      rackEmpty: "#rack-empty",
      message: "#message",
      log: "#log",
      end: "#end-panel",
      endBody: "#end-body",
      turn: "#turn-status",
      players: "#players",
      endButtons: { rematch: "btn-rematch", joinNew: "btn-join-new", home: "btn-home", review: "btn-review" },
    }, {
      geometry: GEOMETRY,
      logLine,
      player: {
        // Real text (an aria-label on a <span> is not read): "9" on screen, "9 points" said.
        beside: (seat) => {
          const view = game.view;
          const score = view.ending ? view.ending.final_scores[seat] : (view.scores?.[seat] ?? 0);
          return [
            el("span", { class: "player-score" }, [
              el("span", { attrs: { "aria-hidden": "true" } }, [num(score)]),
              el("span", { class: "visually-hidden", text: t("points_long", { count: score }) }),
            ]),
          ];
        },
        // How many tiles each holds, never which (R6).
        under: (seat) => [el("span", { class: "player-tiles", text: t("tiles", { count: game.view.rack_counts?.[seat] ?? 0 }) })],
      },
      rack: {
        face: (item) => tile(item.letter),
        label: (item) =>
          item.letter === BLANK
            ? t("tile.blank_label")
            : t("tile.label", { letter: item.letter, points: t("points_long", { count: VALUES[item.letter] }) }),
      },
    });
    this.reset();
  }

  /** Forget what was drawn (a new table, or a new language): everything is drawn again. */
  reset() {
    this.resetScreen();
    /** @type {string | null} */ this.previewSaid = null; // the preview last said (each change is said once)
  }

  render() {
    const g = this.game;
    const view = g.view;
    if (!view) return;
    this.renderBoard();
    this.renderRack();
    this.renderStatus();
    this.renderPreview();
    super.render();
    this.tickIfShown();
    this.revealLastMove("#screen-game .board-wrap");
  }

  renderStatus() {
    const g = this.game;
    const view = g.view;
    $("#bag-count").textContent = t("bag_count", { count: view.bag_count });
    show($("#clock-box"), !g.over);
  }

  renderPreview() {
    const g = this.game;
    const box = $("#preview");
    clear(box);
    const preview = g.preview;
    if (!g.pending.length || g.over || !preview) {
      // Nothing to say until the new preview comes ("computing…" is shown, never said).
      this.previewSaid = null;
      if (g.pending.length && !g.over) box.append(el("span", { class: "muted", text: t("preview.waiting") }));
      return;
    }
    if (preview.type === "error") {
      const text = g.ctx.errorText(preview);
      box.append(text);
      this.sayPreview(text, text);
      return;
    }
    if (!preview.well_formed) {
      const text = t("preview.malformed", { reason: g.reasonText(preview.reason) });
      box.append(el("span", { class: "preview-bad", text }));
      this.sayPreview(text, text);
      return;
    }
    const words = el("span", { class: "preview-words" });
    const said = document.createDocumentFragment();
    preview.words.forEach((/** @type {{ word: string, score: number }} */ word, /** @type {number} */ i) => {
      if (i > 0) {
        words.append(sayAs(t("log.separator"), t("sep.comma")));
        said.append(t("say.word_sep"));
      }
      words.append(french(word.word), " ", pointsNode(word.score));
      // One word: its points are the move's; several: each word's, then the total.
      if (preview.words.length === 1) said.append(french(word.word));
      else said.append(tNodes("say.preview_word", { word: french(word.word), points: t("points_long", { count: word.score }) }));
    });
    box.append(
      el("strong", { class: "preview-score", text: t("preview.total", { points: t("points", { count: preview.score }) }) }),
      " ",
      words,
    );
    if (preview.bingo) box.append(" ", el("span", { class: "log-bingo", text: t("log.bingo") }));
    box.append(el("span", { class: "preview-note", text: t("preview.note") }));
    const spoken = el("span", {}, [
      tNodes("say.preview", { points: t("points_long", { count: preview.score }), words: said }),
    ]);
    if (preview.bingo) spoken.append(" ", t("say.bingo"));
    this.sayPreview(JSON.stringify([preview.score, preview.words, preview.bingo]), spoken);
  }

  /** Say a preview once per change; its disclaimer (R25) only the first time in the page.
   *  @param {string} key @param {string | Node} spoken */
  sayPreview(key, spoken) {
    const full = `${currentLanguage()}|${key}`;
    if (full === this.previewSaid) return;
    this.previewSaid = full;
    const parts = [spoken];
    if (!this.game.noteSaid) {
      this.game.noteSaid = true;
      parts.push(" ", t("preview.note"));
    }
    announce(parts, { urgent: this.game.urgent() });
  }

  renderMessage() {
    this.renderFeedback();
    super.renderMessage();
  }

  /** A refusal or an error says more than the preview of the same tiles: it takes its place. */
  renderFeedback() {
    const kind = this.game.message?.kind;
    show($("#preview"), kind !== "refusal" && kind !== "error");
  }

  renderButtons() {
    const g = this.game;
    const acting = Boolean(g.acting);
    /** @type {HTMLButtonElement} */ ($("#btn-validate")).disabled = !g.myTurn || acting || !g.pending.length;
    /** @type {HTMLButtonElement} */ ($("#btn-exchange")).disabled = !g.myTurn || acting || !(g.view?.bag_count > 0);
    /** @type {HTMLButtonElement} */ ($("#btn-pass")).disabled = !g.myTurn || acting;
    /** @type {HTMLButtonElement} */ ($("#btn-recall")).disabled = !g.pending.length;
    /** @type {HTMLButtonElement} */ ($("#btn-shuffle")).disabled = g.rackTiles().length < 2;
  }

  /** @param {HTMLElement} body */
  drawEnding(body) {
    renderEnding(body, this.game.table, this.game.view);
  }

  /** Four times a second: the turn clock (R28) and the reserve (R20). */
  tick() {
    const g = this.game;
    const view = g.view;
    const clock = $("#clock");
    if (!g.over) {
      const left = secondsLeft(view.turn_deadline);
      const text = formatSeconds(left);
      if (clock.textContent !== text) {
        clock.textContent = text;
        // "1:05" is shown; a screen reader reads "1 min 5 s" (not "one hour five").
        $("#clock-words").textContent = timeWords(left);
      }
      clock.classList.toggle("urgent", left <= URGENT);
      g.clockTick(left);
    }
    renderReserve($("#reserve"), g.reserve, g.over, "game.reserve");
  }
}
