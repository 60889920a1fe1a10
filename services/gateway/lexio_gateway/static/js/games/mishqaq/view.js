// @ts-check
// al-Mishqaq's table screen drawn from its controller (mishqaq-game.js): the board, the rack,
// both chess clocks (M28), whose turn, the reserve (M24), the meaning pause (M30), messages,
// the log (M37) and the end (M33–M35) with both racks revealed (M12).
import { $, clear, el, show } from "../../dom.js";
import { currentLanguage, t, tNodes } from "../../i18n.js";
import { formatSeconds } from "../../clock.js";
import { setAttention } from "../../attention.js";
import { bdi } from "../../text.js";
import { TileScreen } from "../../kit/screen.js";
import { Zoom } from "../../kit/zoom.js";
import { renderReserve, timeWords } from "../../kit/time.js";
import { GEOMETRY, tileWords } from "./board.js";
import { RED, SIDES, tileNode } from "./tiles.js";
import { drawEnding, lastPlacement, logLine, seatOfSide, sideName, wordNode } from "./panels.js";

/** Seconds left on the player's own clock when what is said is said at once. */
export const URGENT = 10;
/** The running clock turns red in its last minute. */
const LAST_MINUTE = 60;

export class MishqaqView extends TileScreen {
  /** @param {any} game */
  constructor(game) {
    super(game, {
      board: "#mq-board",
      rack: "#mq-rack",
      rackEmpty: "#mq-rack-empty",
      message: "#mq-message",
      log: "#mq-log",
      end: "#mq-end",
      endBody: "#mq-end-body",
      endButtons: { rematch: "mq-rematch", joinNew: "mq-join-new", home: "mq-home", review: "mq-review" },
    }, {
      geometry: GEOMETRY,
      logLine,
      rack: {
        classes: ["mq-rack-tile"],
        face: (item) => tileNode(item),
        label: (item) => tileWords(item),
        data: (item) => ({ code: item.code }),
      },
    });
    // Three cell sizes, the smallest to start with. A phone's board is wider than the screen:
    // 24, 30, 38 px cells (24 at least: WCAG 2.5.8). A desktop's fits its box, then is 1.4 and
    // 1.8 times as wide and pans (mishqaq.css).
    this.zoom = new Zoom(
      { board: "#mq-board", zoomIn: "#mq-zoom-in", zoomOut: "#mq-zoom-out", storeKey: "mishqaq-zoom", levels: 3, start: 0 },
      () => {
        const cursor = this.game?.cursor;
        return cursor ? this.board.cell(cursor.row, cursor.col) : null;
      },
    );
    this.followBarHeight();
    this.reset();
  }

  /** On a phone the board's window ends above the sticky bar of the rack and its buttons,
   *  whose height changes (a rack of 10 to 12 tiles wraps to two rows): mishqaq.css sizes the
   *  window from --mq-bar, which this keeps equal to the bar's height. */
  followBarHeight() {
    const bar = $("#mq-play");
    const wrap = $("#mq-board-wrap");
    new ResizeObserver(() => wrap.style.setProperty("--mq-bar", `${bar.offsetHeight}px`)).observe(bar);
  }

  /** Forget what was drawn (a new table, or, ``all`` false, a new language). */
  reset(all = true) {
    this.resetScreen();
    /** @type {string} */ this.clocksKey = "";
    /** @type {string} */ this.pauseKey = "";
    if (all) {
      this.centred = false;
      this.wasPaused = undefined;
    }
  }

  /** "29 min 59 s" (a reader's words for "29:59"). @param {number} seconds */
  timeWords(seconds) {
    return timeWords(seconds);
  }

  render() {
    const g = this.game;
    if (!g.view) return;
    $("#screen-mishqaq").dataset.side = g.side;
    this.renderBoard();
    this.renderRack();
    this.renderClocks();
    this.renderStatus();
    this.renderPause();
    super.render();
    this.tickIfShown();
    this.centre();
    this.revealLastMove("#mq-board-wrap");
  }

  /** The first time a table shows: its own red square in sight (a phone shows part of the board). */
  centre() {
    if (this.centred || $("#screen-mishqaq").hidden) return;
    this.centred = true;
    const [row, col] = RED[this.game.side];
    const wrap = $("#mq-board-wrap");
    const cell = this.board.cell(row, col);
    if (!wrap || !cell || wrap.scrollWidth <= wrap.clientWidth) return;
    const box = wrap.getBoundingClientRect();
    const at = cell.getBoundingClientRect();
    wrap.scrollLeft += at.left + at.width / 2 - (box.left + box.width / 2);
    wrap.scrollTop += at.top + at.height / 2 - (box.top + box.height / 2);
  }

  /** Both clocks, always in sight, Latin on the left and Arabic on the right as on the board. */
  renderClocks() {
    const g = this.game;
    const view = g.view;
    const table = g.table;
    const key = JSON.stringify([
      currentLanguage(),
      table?.seats,
      view.turn,
      g.over,
      g.paused,
      view.latin_rack_count,
      view.arabic_rack_count,
      view.latin_bag_count,
      view.arabic_bag_count,
      view.latin_pauses_left,
      view.arabic_pauses_left,
    ]);
    if (key === this.clocksKey) return;
    this.clocksKey = key;
    const root = clear($("#mq-clocks"));
    for (const side of SIDES) {
      const seat = table?.seats?.[seatOfSide(table, side)];
      const mine = side === g.side;
      const running = !g.over && !g.paused && view.turn === side;
      const card = el("section", {
        class: ["mq-clock", side, mine ? "me" : "", running ? "running" : "", seat?.connected === false ? "offline" : "online"].join(" ").trim(),
        attrs: { "aria-labelledby": `mq-clock-${side}-name` },
        data: { side },
      });
      const name = el("h2", { class: "mq-clock-name", attrs: { id: `mq-clock-${side}-name` } }, [
        el("span", { class: "conn-dot", attrs: { "aria-hidden": "true" } }),
        bdi(sideName(table, side)),
      ]);
      const badges = el("span", { class: "mq-clock-badges" }, [el("span", { class: "badge side-badge", text: t(`mq.side.${side}`) })]);
      if (mine) badges.append(el("span", { class: "badge", text: t("game.you") }));
      if (seat && !seat.connected) badges.append(el("span", { class: "badge offline-badge", text: t("seat.disconnected") }));
      const time = el("p", { class: "mq-clock-time" }, [
        el("span", { class: "mq-time", attrs: { dir: "ltr", "aria-hidden": "true" } }),
        el("span", { class: "mq-time-words visually-hidden" }),
        el("span", { class: "visually-hidden", text: t(running ? "mq.clock.running" : "mq.clock.stopped") }),
      ]);
      const meta = el("p", { class: "mq-clock-meta" }, [
        el("span", { text: t("tiles", { count: view[`${side}_rack_count`] }) }),
        el("span", { text: t("mq.bag", { count: view[`${side}_bag_count`] }) }),
        el("span", { text: t("mq.pauses_left", { count: view[`${side}_pauses_left`] }) }),
      ]);
      card.append(name, badges, time, meta);
      root.append(card);
    }
  }

  renderStatus() {
    const g = this.game;
    this.renderTurnLine($("#mq-turn"), g.paused ? t("mq.status.paused", { name: sideName(g.table, g.view.pause.by) }) : null);
  }

  /** M30: both clocks stopped, the last accepted move's words as the dictionary spells them. */
  renderPause() {
    const g = this.game;
    const panel = $("#mq-pause-panel");
    if (!g.paused) {
      // The resume button goes with the panel: the keyboard stays on the pause's own button
      // (or, when it cannot be used, on the board) rather than falling to the page (D2).
      const hadFocus = !panel.hidden && panel.contains(document.activeElement);
      show(panel, false);
      this.pauseKey = "";
      if (hadFocus) this.focusAfterPause();
      return;
    }
    const view = g.view;
    const key = `${currentLanguage()}|${view.pause.by}|${view.pause.until}|${g.app.log.length}|${g.side}`;
    if (key === this.pauseKey) return;
    this.pauseKey = key;
    clear(panel);
    show(panel, true);
    const by = bdi(sideName(g.table, view.pause.by));
    panel.append(
      el("h2", { attrs: { id: "mq-pause-title" }, text: t("mq.pause.title") }),
      el("p", {}, [tNodes("mq.pause.stopped", { name: by }), " ", el("strong", { class: "mq-pause-left", attrs: { dir: "ltr" } })]),
    );
    // The words of the last accepted placement before the pause, with their spellings.
    const pauseAt = g.app.log.findLastIndex((/** @type {any} */ entry) => entry.kind === "pause");
    const entry = lastPlacement(g.app.log, pauseAt < 0 ? g.app.log.length : pauseAt);
    if (!entry) {
      panel.append(el("p", { class: "muted", text: t("mq.pause.no_words") }));
    } else {
      panel.append(el("p", {}, [tNodes("mq.pause.words", { name: bdi(sideName(g.table, entry.side)) })]));
      const list = el("ul", { class: "mq-spellings" });
      const latin = g.table?.options?.latin;
      for (const word of entry.words) {
        const spellings = el("span", { class: "mq-spelling-list" });
        (word.spellings?.length ? word.spellings : [word.word]).forEach((/** @type {string} */ spelling, /** @type {number} */ i) => {
          if (i > 0) spellings.append(t("log.separator"));
          spellings.append(wordNode(spelling, word.script || entry.side, latin));
        });
        list.append(
          el("li", {}, [
            wordNode(word.word, word.script || entry.side, latin),
            " ",
            el("span", { class: "muted" }, [tNodes("mq.pause.spellings", { spellings })]),
          ]),
        );
      }
      panel.append(list);
    }
    if (g.pausedByMe) {
      panel.append(
        el("div", { class: "actions" }, [
          el("button", { class: "primary", text: t("mq.resume"), attrs: { type: "button", id: "mq-resume" } }),
        ]),
      );
    } else {
      panel.append(el("p", { class: "muted" }, [tNodes("mq.pause.only_caller", { name: bdi(sideName(g.table, view.pause.by)) })]));
    }
  }

  focusAfterPause() {
    this.renderButtons();
    const pause = /** @type {HTMLButtonElement} */ ($("#mq-pause"));
    if (!pause.disabled && !pause.closest("[hidden]")) pause.focus();
    else this.game.focusCursor();
  }

  renderButtons() {
    const g = this.game;
    const view = g.view;
    const playing = Boolean(view) && !g.over;
    const acting = Boolean(g.acting);
    const blocked = !g.myTurn || g.paused || acting;
    /** @type {HTMLButtonElement} */ ($("#mq-validate")).disabled = blocked || !g.pending.length;
    /** @type {HTMLButtonElement} */ ($("#mq-pass")).disabled = blocked;
    /** @type {HTMLButtonElement} */ ($("#mq-recall")).disabled = !g.pending.length;
    /** @type {HTMLButtonElement} */ ($("#mq-shuffle")).disabled = g.rackTiles().length < 2;
    const pause = /** @type {HTMLButtonElement} */ ($("#mq-pause"));
    const left = view?.[`${g.side}_pauses_left`] ?? 0;
    pause.textContent = g.pausedByMe ? t("mq.resume") : t("mq.pause.button", { count: left });
    // While a pause or resume (or any action) is on its way the button is only marked busy,
    // never disabled: a focused button that is disabled loses the focus to <body> when the
    // page is next drawn, and on a phone that comes before the reply does (issue 39). A press
    // meanwhile does nothing (the game's togglePause).
    const unusable = !playing || (g.paused && !g.pausedByMe) || (!g.paused && left <= 0);
    pause.disabled = unusable;
    if (acting && !unusable) pause.setAttribute("aria-disabled", "true");
    else pause.removeAttribute("aria-disabled");
    pause.classList.toggle("busy", acting && !unusable);
    /** @type {HTMLButtonElement} */ ($("#mq-resign")).disabled = !playing;
  }

  /** M33–M35: why it ended, who won, both clocks, and both racks revealed (M12).
   *  @param {HTMLElement} body */
  drawEnding(body) {
    drawEnding(body, this.game.table, this.game.view);
  }

  renderAttention() {
    const g = this.game;
    if (!g.view) return;
    setAttention(g.myTurn && !g.paused && document.hidden);
  }

  /** Four times a second: both clocks (the mover's counts down), the pause, the reserve. */
  tick() {
    const g = this.game;
    const view = g.view;
    if (this.wasPaused !== g.paused) {
      // A pause that ran out by itself (M30: no frame says so; the next action's log will):
      // the mover's clock runs again, and the player is told.
      const ranOut = this.wasPaused === true && !g.paused && Boolean(view.pause) && !g.over;
      this.wasPaused = g.paused;
      if (ranOut) g.pauseRanOut(view.pause);
      this.clocksKey = "";
      this.renderClocks();
      this.renderStatus();
      this.renderPause();
      this.renderControls();
    }
    for (const side of SIDES) {
      const card = $(`#mq-clocks .mq-clock[data-side="${side}"]`);
      if (!card) continue;
      const left = g.bank(side);
      const text = formatSeconds(Math.ceil(left));
      const time = $(".mq-time", card);
      if (time.textContent !== text) {
        time.textContent = text;
        $(".mq-time-words", card).textContent = this.timeWords(left);
      }
      const running = !g.over && !g.paused && view.turn === side;
      card.classList.toggle("urgent", running && left <= LAST_MINUTE);
      if (side === g.side) g.clockTick(left);
      else if (running) g.otherClockTick(left);
    }
    const left = $("#mq-pause-panel .mq-pause-left");
    if (left) {
      const text = formatSeconds(Math.ceil(g.pauseLeft()));
      if (left.textContent !== text) left.textContent = text;
    }
    renderReserve($("#mq-reserve"), g.reserve, g.over, "mq.reserve");
  }
}
