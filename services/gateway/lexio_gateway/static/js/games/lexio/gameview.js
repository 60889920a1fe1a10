// The game screen drawn from the game's state (game.js): board, rack, players, status, clock,
// reserve, preview, messages, log and the end of the game.
import { $, clear, el, show } from "../../dom.js";
import { currentLanguage, french, t, tNodes } from "../../i18n.js";
import { BoardView } from "./board.js";
import { RackView } from "./rack.js";
import { SIZE } from "./layout.js";
import { formatSeconds, reserveNow, secondsLeft } from "../../clock.js";
import { bdi, sayAs } from "../../text.js";
import { pointsNode, renderEnding, renderLog, renderPlayers, seatName } from "./panels.js";
import { setAttention } from "../../attention.js";
import { formatWait } from "../../errors.js";
import { announce } from "../../announce.js";

export const URGENT = 10; // seconds left when the clock turns red (and the live region asserts)
const indexOf = (row, col) => row * SIZE + col;

/** A refusal reason in words a player understands (R19 for unknown words). */
export function reasonText(reason) {
  const key = `reason.${reason}`;
  const text = t(key);
  return text === key ? t("reason.unspecified") : text;
}

export class GameView {
  constructor(game) {
    this.game = game;
    this.board = new BoardView($("#board"));
    this.rack = new RackView($("#rack"));
    this.reset();
  }

  /** Forget what was drawn (a new table, or a new language): everything is drawn again. */
  reset() {
    this.logKey = "";
    this.endKey = "";
    this.turnText = "";
    this.messageKey = null;
    this.previewSaid = null; // the preview last said (each change is said once)
  }

  render() {
    const g = this.game;
    const view = g.view;
    if (!view) return;
    this.renderBoard();
    this.renderRack();
    renderPlayers($("#players"), g.app.table, view);
    this.renderLog();
    this.renderStatus();
    this.renderPreview();
    this.renderMessage();
    this.renderEnd();
    this.renderButtons();
    this.renderAttention();
    this.tick();
  }

  renderBoard() {
    const g = this.game;
    const view = g.view;
    if (!view) return;
    const pending = new Map(g.pending.map((p) => [indexOf(p.row, p.col), p]));
    const last = new Set();
    for (let i = g.app.log.length - 1; i >= 0; i -= 1) {
      const entry = g.app.log[i];
      if (entry.kind !== "place") continue;
      for (const tile of entry.tiles) last.add(indexOf(tile.row, tile.col));
      break;
    }
    this.board.render({
      board: view.board,
      pending,
      cursor: g.over ? null : g.cursor,
      last,
      lang: currentLanguage(),
    });
  }

  renderRack() {
    const g = this.game;
    this.rack.render(g.rackTiles(), g.selected);
    $("#rack-empty").hidden = g.rackTiles().length > 0 || g.over;
  }

  renderLog() {
    const g = this.game;
    const key = `${currentLanguage()}|${g.app.log.length}|${JSON.stringify(g.app.table?.seats?.map((s) => s.name))}`;
    if (key === this.logKey) return;
    this.logKey = key;
    renderLog($("#log"), g.app.log, g.app.table);
  }

  renderStatus() {
    const g = this.game;
    const view = g.view;
    const status = $("#turn-status");
    let text;
    if (g.over) text = t("end.title");
    else if (g.myTurn) text = t("game.your_turn");
    else text = t("game.turn_of", { name: seatName(g.app.table, view.turn) });
    if (text !== this.turnText) {
      this.turnText = text;
      status.textContent = text;
    }
    status.classList.toggle("mine", g.myTurn);
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
      const text = t("preview.malformed", { reason: reasonText(preview.reason) });
      box.append(el("span", { class: "preview-bad", text }));
      this.sayPreview(text, text);
      return;
    }
    const words = el("span", { class: "preview-words" });
    const said = document.createDocumentFragment();
    preview.words.forEach((word, i) => {
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

  /** Say a preview once per change; its disclaimer (R25) only the first time in the page. */
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
    const g = this.game;
    const box = $("#message");
    const message = g.message;
    this.renderFeedback();
    // #message is an alert: drawn again only when it changes, or it would be said again at
    // every render (a presence change, each letter typed while preparing a move).
    const hint = !message && g.pending.length > 0 && !g.myTurn && !g.over;
    if (message ? this.messageKey === message : this.messageKey === hint) return;
    this.messageKey = message || hint;
    clear(box);
    box.className = "message";
    if (!message) {
      if (hint) box.append(el("p", { class: "muted", text: t("game.prepare_hint") }));
      return;
    }
    box.classList.add(`message-${message.kind}`);
    for (const line of message.lines()) box.append(el("p", {}, [line]));
  }

  /** A refusal or an error says more than the preview of the same tiles: it takes its place. */
  renderFeedback() {
    const kind = this.game.message?.kind;
    show($("#preview"), kind !== "refusal" && kind !== "error");
  }

  renderButtons() {
    const g = this.game;
    const playing = Boolean(g.view) && !g.over;
    const acting = Boolean(g.acting);
    $("#btn-validate").disabled = !g.myTurn || acting || !g.pending.length;
    $("#btn-exchange").disabled = !g.myTurn || acting || !(g.view?.bag_count > 0);
    $("#btn-pass").disabled = !g.myTurn || acting;
    $("#btn-recall").disabled = !g.pending.length;
    $("#btn-shuffle").disabled = g.rackTiles().length < 2;
    show($("#play-area"), playing);
    show($("#leave-box"), playing);
    $("#btn-validate").classList.toggle("busy", acting);
  }

  renderEnd() {
    const g = this.game;
    const panel = $("#end-panel");
    if (!g.over) {
      show(panel, false);
      this.endKey = "";
      return;
    }
    const rematch = g.app.rematch;
    const key = `${currentLanguage()}|${g.app.seq}|${rematch?.code ?? ""}|${g.app.table?.seats?.length}`;
    if (key === this.endKey) return;
    const first = this.endKey === "";
    this.endKey = key;
    show(panel, true);
    const body = $("#end-body");
    renderEnding(body, g.app.table, g.view);
    const actions = el("div", { class: "actions" });
    const host = seatName(g.app.table, 0);
    if (g.seat === 0) {
      actions.append(
        el("button", {
          class: "primary",
          text: t("end.rematch"),
          attrs: { type: "button", id: "btn-rematch" },
          on: {
            click: () =>
              g.ctx.request({ type: "rematch" }, (frame) => {
                if (frame.type === "error") g.ctx.toast(g.ctx.errorText(frame));
              }),
          },
        }),
      );
    } else if (rematch) {
      body.append(el("p", { class: "end-offer" }, [tNodes("end.rematch_offer", { host: bdi(rematch.host || host) })]));
      actions.append(
        el("button", {
          class: "primary",
          text: t("end.join_new"),
          attrs: { type: "button", id: "btn-join-new" },
          on: { click: () => g.ctx.joinNewTable(rematch.code) },
        }),
      );
    } else {
      body.append(el("p", { class: "muted end-offer" }, [tNodes("end.wait_host", { host: bdi(host) })]));
    }
    actions.append(
      el("button", {
        text: t("end.home"),
        attrs: { type: "button", id: "btn-home" },
        on: { click: () => g.ctx.goHome() },
      }),
    );
    body.append(actions);
    if (first) body.querySelector("h2")?.focus();
  }

  renderAttention() {
    const g = this.game;
    if (!g.view) return; // another game's table: its own screen says whose turn it is
    setAttention(g.myTurn && document.hidden);
  }

  /** Four times a second: the turn clock (R28) and the reserve (R20). */
  tick() {
    const g = this.game;
    const view = g.view;
    if (!view || $("#screen-game").hidden) return;
    const clock = $("#clock");
    if (!g.over) {
      const left = secondsLeft(view.turn_deadline);
      const text = formatSeconds(left);
      if (clock.textContent !== text) {
        clock.textContent = text;
        // "1:05" is shown; a screen reader reads "1 min 5 s" (not "one hour five").
        $("#clock-words").textContent = left > 0 ? formatWait(left) : t("wait.seconds", { seconds: 0 });
      }
      clock.classList.toggle("urgent", left <= URGENT);
      g.clockTick(left);
    }
    const box = $("#reserve");
    const reserve = g.reserve && reserveNow(g.reserve);
    const visible = Boolean(reserve) && !g.over && reserve.tries < g.reserve.max;
    show(box, visible);
    if (visible) {
      const text = `${t("game.reserve", { tries: reserve.tries, max: g.reserve.max })} · ${t("game.reserve_next", { seconds: reserve.nextIn })}`;
      if (box.textContent !== text) box.textContent = text;
    }
  }
}
