// @ts-check
// The review of a finished game (issue 26): fetched once with the seat's token, then stepped
// through — first, previous, next, last, a slider, the arrow keys (Home/End) — the board as it
// stood after the chosen entry, the entry's words, the scores or clocks then, the viewer's
// rack then, the end's reveal at the last step, the log with the entry marked, each step said
// in the live region, and the record downloaded from what was fetched. The game's hook
// (js/games.js, ReviewHook) draws its board and panels; this module names no game.
// Steps are not log entries: a step is a move, numbered "Coup n sur N" with N the game's
// moves, or something else the log holds (a draw, a pause), shown and named as what it is;
// an entry that only records the end the entry before it caused is one step with it.
import { $, clear, el, show } from "../dom.js";
import { currentLanguage, isRtl, t, tNodes } from "../i18n.js";
import { GridBoard } from "./board.js";
import { LogView } from "./log.js";
import { bdi } from "../text.js";

/** @typedef {import("../protocol.js").Review} Review */
/** @typedef {import("../store.js").FinishedGame} FinishedGame */
/** @typedef {import("../games.js").ReviewHook} ReviewHook */
/** @typedef {import("../games.js").ReviewTable} ReviewTable */

/**
 * What a game adds to its ReviewHook so that the review counts moves, not log entries. Each
 * is optional: without them every entry is a move, a step of its own.
 * @typedef {object} ReviewSteps
 * @property {(entry: any) => boolean} [isMove]  a move of the game (a turn played): numbered;
 *   any other entry is still a step, named by stepLabel
 * @property {(entry: any, table: ReviewTable) => string} [stepLabel]  what a step that is not
 *   a move is ("Tirage d'ouverture"), in the page's language
 * @property {(entry: any, previous: any) => boolean} [endedBy]  ``entry`` only records the end
 *   that ``previous``, the entry before it, caused (a resignation's result): one step with it
 */

/** @typedef {ReviewHook & ReviewSteps} StepHook */

/**
 * A step of the review: the view it shows (an index of the review's steps), the log entries
 * it shows (indexes; more than one when an end was caused by the first), whether it is a move
 * and how many moves were played by its end.
 * @typedef {{view: number, entries: number[], move: boolean, moves: number}} Stop
 */

/**
 * The review's steps from its log: the start, then one per entry but an ending that joins the
 * entry that caused it.
 * @param {any[]} entries @param {ReviewSteps} hook @returns {Stop[]}
 */
export function stopsOf(entries, hook) {
  /** @type {Stop[]} */
  const stops = [{ view: 0, entries: [], move: false, moves: 0 }];
  let moves = 0;
  entries.forEach((entry, i) => {
    const previous = stops[stops.length - 1];
    if (i > 0 && hook.endedBy?.(entry, entries[i - 1])) {
      previous.view = i + 1;
      previous.entries.push(i);
      return;
    }
    const move = hook.isMove ? hook.isMove(entry) : true;
    if (move) moves += 1;
    stops.push({ view: i + 1, entries: [i], move, moves });
  });
  return stops;
}

/** What is said waits this long after the last step (a held key says only where it stops). */
const SAY_DELAY = 250; // ms

/**
 * What the review needs of the page: the game's hook and name, the remembered game of a
 * table, what to do when a record expired, and how to leave.
 * @typedef {object} ReviewHost
 * @property {(game: string) => {hook: ReviewHook, name: string} | null} gameOf  its hook and
 *   its name's catalog key (null: a game this page cannot review)
 * @property {(tableId: string) => FinishedGame | null} finished
 * @property {(tableId: string) => void} expired   the record is gone: forget the game
 * @property {() => void} close
 */

/**
 * The answer to the review's request: the review, or why not (the HTTP status and the code
 * the body names; status 0: no answer at all).
 * @typedef {{ok: true, review: Review} | {ok: false, status: number, code: string}} Fetched
 */

/**
 * The review of ``tableId`` with ``token`` (never in the URL: it would be logged).
 * @param {string} tableId @param {string} token @returns {Promise<Fetched>}
 */
async function fetchReview(tableId, token) {
  try {
    const reply = await fetch(`/api/tables/${encodeURIComponent(tableId)}/review`, {
      headers: { Authorization: `Bearer ${token}`, Accept: "application/json" },
      cache: "no-store",
    });
    if (reply.ok) return { ok: true, review: await reply.json() };
    let code = "";
    try {
      code = String((await reply.json()).error ?? "");
    } catch {
      // A body that is not the gateway's JSON (a proxy's page): the status says enough.
    }
    return { ok: false, status: reply.status, code };
  } catch {
    return { ok: false, status: 0, code: "" };
  }
}

/**
 * Why a review cannot be shown, in the catalog's words, and whether trying again may help.
 * @param {number} status @returns {{key: string, retry: boolean}}
 */
function failure(status) {
  if (status === 410) return { key: "review.error.expired", retry: false };
  if (status === 401 || status === 403) return { key: "review.error.unknown_seat", retry: false };
  if (status === 409) return { key: "review.error.not_over", retry: false };
  if (status === 404) return { key: "review.error.unavailable", retry: false };
  return { key: "review.error.later", retry: true };
}

/** An instant of the review (Unix seconds, or ISO 8601) as a date in the page's language.
 *  @param {number | string | undefined} when */
export function reviewDate(when) {
  if (when === undefined || when === null || when === "") return "";
  const date = typeof when === "number" ? new Date(when * 1000) : new Date(when);
  if (Number.isNaN(date.getTime())) return "";
  return new Intl.DateTimeFormat(currentLanguage(), { dateStyle: "long", timeStyle: "short" }).format(date);
}

/**
 * Players' names as a list in the page's language ("Ana (vous) et Bruno"), each name kept
 * whole in its own direction (a Latin name in Arabic text, and back).
 * @param {string[]} names
 */
export function namesNode(names) {
  const list = document.createDocumentFragment();
  for (const part of new Intl.ListFormat(currentLanguage(), { type: "conjunction" }).formatToParts(names)) {
    list.append(part.type === "element" ? bdi(part.value) : part.value);
  }
  return list;
}

export class ReviewScreen {
  /** @param {ReviewHost} host */
  constructor(host) {
    this.host = host;
    /** @type {string | null} the table reviewed */
    this.tableId = null;
    /** @type {Review | null} */
    this.review = null;
    /** @type {StepHook | null} */
    this.hook = null;
    /** @type {Stop[]} the review's steps (the slider's values) */
    this.stops = [];
    this.moves = 0; // the game's moves: the "N" of "Coup n sur N"
    this.gameName = ""; // its catalog key
    /** @type {ReviewTable | null} */
    this.table = null;
    /** @type {GridBoard | null} */
    this.board = null;
    /** @type {LogView | null} */
    this.log = null;
    this.index = 0;
    /** @type {{key: string, retry: boolean} | null} why the review is not shown */
    this.problem = null;
    this.loading = false;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.sayTimer = undefined;
    /** the request answered last (an older answer arriving late is dropped) */
    this.asked = 0;
    this.wire();
  }

  wire() {
    $("#review-close").addEventListener("click", () => this.host.close());
    $("#review-retry").addEventListener("click", () => {
      if (this.tableId) this.open(this.tableId);
    });
    // aria-disabled rather than disabled: the focus stays on a button at either end.
    /** @type {Array<[string, () => number]>} */
    const steps = [
      ["#review-first", () => 0],
      ["#review-prev", () => this.index - 1],
      ["#review-next", () => this.index + 1],
      ["#review-last", () => this.last],
    ];
    for (const [selector, target] of steps) $(selector).addEventListener("click", () => this.go(target()));
    /** @type {HTMLInputElement} */
    const slider = $("#review-slider");
    slider.addEventListener("input", () => this.go(Number(slider.value)));
    // On the document: a key pressed with the focus on the page itself (a button that went
    // away) still steps; one meant for the header's controls (the language) does not.
    document.addEventListener("keydown", (event) => {
      const target = /** @type {HTMLElement} */ (event.target);
      const onPage = target === document.body || target.id === "main";
      if (!$("#screen-review").hidden && (onPage || target.closest("#screen-review"))) this.key(event);
    });
    $("#review-download").addEventListener("click", () => this.download());
  }

  get last() {
    return this.review ? this.stops.length - 1 : 0;
  }

  /**
   * Arrows step in the reading direction (in Arabic ← is forward, as the slider runs), Home
   * and End go to the start and the end, wherever the focus is on the screen (the board
   * included: each step brings its tiles into the board's window) but where those keys are an
   * element's own (the log and the reckoning scroll with them). Escape goes back.
   * @param {KeyboardEvent} event
   */
  key(event) {
    if (event.key === "Escape" && !event.defaultPrevented) {
      // Back where the review was opened from, as its Back button does.
      event.preventDefault();
      this.host.close();
      return;
    }
    if (!this.review || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const target = /** @type {HTMLElement} */ (event.target);
    if (target.closest("[data-own-keys]")) return;
    const forward = isRtl() ? "ArrowLeft" : "ArrowRight";
    const back = isRtl() ? "ArrowRight" : "ArrowLeft";
    /** @type {Record<string, number>} */
    const moves = { [forward]: this.index + 1, [back]: this.index - 1, Home: 0, End: this.last };
    if (target.id === "review-slider") {
      // Up and Down as on any slider; PageUp/PageDown are the browser's (its input event).
      moves.ArrowUp = this.index + 1;
      moves.ArrowDown = this.index - 1;
    }
    if (!Object.hasOwn(moves, event.key)) return;
    event.preventDefault();
    this.go(moves[event.key]);
  }

  /**
   * Show the review of ``tableId`` (a finished game this browser remembers): fetched, then
   * drawn at its last step (the end, where a player coming from the end panel was).
   * @param {string} tableId
   */
  async open(tableId) {
    const asked = ++this.asked;
    this.tableId = tableId;
    this.review = null;
    this.problem = null;
    const finished = this.host.finished(tableId);
    const game = finished ? this.host.gameOf(finished.game) : null;
    this.gameName = game?.name ?? "";
    if (!finished || !game) {
      this.problem = failure(finished ? 404 : 403);
      this.render();
      return;
    }
    this.loading = true;
    this.render();
    const fetched = await fetchReview(tableId, finished.token);
    if (asked !== this.asked) return;
    this.loading = false;
    if (!fetched.ok) {
      if (fetched.status === 410) this.host.expired(tableId);
      this.problem = failure(fetched.status);
      this.render();
      return;
    }
    this.start(fetched.review, game.hook);
  }

  /** Forget the review shown (the screen is left). */
  close() {
    this.asked += 1;
    clearTimeout(this.sayTimer);
    this.review = null;
    this.stops = [];
    this.tableId = null;
    $("#review-live").textContent = "";
  }

  /** @param {Review} review @param {StepHook} hook */
  start(review, hook) {
    this.review = review;
    this.hook = hook;
    this.stops = stopsOf(review.entries, hook);
    this.moves = this.stops.reduce((most, stop) => Math.max(most, stop.moves), 0);
    this.table = hook.table(review);
    const wrap = $("#review-board-wrap");
    const root = $("#review-board");
    wrap.className = `review-board-wrap ${hook.look.wrap}`.trim();
    if (hook.look.ltr) wrap.dir = "ltr";
    else wrap.removeAttribute("dir");
    root.className = hook.look.board;
    this.board = new GridBoard(root, hook.geometry);
    this.log = new LogView($("#review-log"), hook.logLine);
    /** @type {HTMLInputElement} */
    const slider = $("#review-slider");
    slider.max = String(this.last);
    this.index = this.last;
    this.render();
    this.say();
  }

  /** The step shown (clamped to the game), drawn and, a moment later, said. @param {number} index */
  go(index) {
    if (!this.review) return;
    const next = Math.max(0, Math.min(this.last, index));
    if (next === this.index) return;
    this.index = next;
    this.renderStep();
    clearTimeout(this.sayTimer);
    this.sayTimer = setTimeout(() => this.say(), SAY_DELAY);
  }

  /** The step shown: its view, the entry that made it (the first of a merged step: the one
   *  the game tells) and the view before that entry.
   *  @returns {import("../games.js").ReviewStep} */
  step() {
    const review = /** @type {Review} */ (this.review);
    const stop = this.stops[this.index];
    const first = stop.entries[0];
    return {
      table: /** @type {ReviewTable} */ (this.table),
      view: review.steps[stop.view],
      before: first === undefined ? null : review.steps[first],
      entry: first === undefined ? null : review.entries[first],
      index: stop.view,
    };
  }

  /** "Coup 5 sur 32", the start, or what a step that is not a move is and where it falls
   *  ("Pause sens, après le coup 4 sur 32"): as shown, as the slider says its value, as said. */
  positionText() {
    const stop = this.stops[this.index];
    const count = this.moves;
    if (!stop || this.index === 0) return t("review.position_start", { count });
    if (stop.move) return t("review.position", { n: stop.moves, count });
    const entry = this.review?.entries[stop.entries[0]];
    const what = this.hook?.stepLabel?.(entry, /** @type {ReviewTable} */ (this.table)) ?? "";
    return stop.moves === 0 ? t("review.position_other_start", { what, count }) : t("review.position_other", { what, n: stop.moves, count });
  }

  /** Everything again (a new review, a new language). */
  render() {
    const ready = Boolean(this.review);
    const finished = this.tableId ? this.host.finished(this.tableId) : null;
    $("#review-title").textContent = this.gameName ? t("review.title_game", { game: t(this.gameName) }) : t("review.title");
    const players = this.review?.players ?? finished?.players ?? [];
    const you = this.review?.seat ?? finished?.you ?? -1;
    const ended = this.review?.ended_at ?? finished?.ended_at;
    const names = players.map((name, seat) => (seat === you ? t("review.player_you", { name }) : name));
    const meta = clear($("#review-meta"));
    if (names.length) meta.append(tNodes("review.meta", { players: namesNode(names), date: reviewDate(ended) }));
    // Waiting is said politely; a refusal at once (index.html: a status and an alert).
    $("#review-loading").textContent = this.loading ? t("review.loading") : "";
    show($("#review-status"), Boolean(this.problem));
    $("#review-status-text").textContent = this.problem ? t(this.problem.key) : "";
    show($("#review-retry"), Boolean(this.problem?.retry));
    show($("#review-body"), ready);
    this.keepFocus();
    if (!ready) return;
    this.log?.reset();
    this.renderStep();
  }

  /** A control that went away with what it was for (Try again, once answered) leaves the
   *  keyboard on the screen's title rather than on the page. */
  keepFocus() {
    const active = document.activeElement;
    if ($("#screen-review").hidden || !(active instanceof HTMLElement) || !active.closest("#screen-review [hidden]")) return;
    $("#review-title").focus();
  }

  renderStep() {
    const hook = /** @type {ReviewHook} */ (this.hook);
    const step = this.step();
    const { view, entry } = step;
    const position = this.positionText();
    const root = $("#review-board");
    root.setAttribute("aria-label", t("review.board", { position }));
    const last = new Set((entry?.tiles ?? []).map((/** @type {any} */ tile) => tile.row * hook.geometry.size + tile.col));
    this.board?.render({ board: view.board ?? [], pending: new Map(), cursor: null, last, lang: currentLanguage() });
    this.bringIntoWindow([...last].map((index) => this.board?.cells[index]).filter((cell) => cell !== undefined));
    /** @type {HTMLInputElement} */
    const slider = $("#review-slider");
    slider.value = String(this.index);
    slider.setAttribute("aria-valuetext", position);
    for (const [selector, end] of [["#review-first", 0], ["#review-prev", 0], ["#review-next", this.last], ["#review-last", this.last]]) {
      $(String(selector)).setAttribute("aria-disabled", String(this.index === end));
    }
    $("#review-position").textContent = position;
    const summary = clear($("#review-words"));
    summary.append(entry ? hook.summary(step) : el("p", { text: t("review.start_summary") }));
    hook.standing(clear($("#review-scores")), step);
    hook.rack(clear($("#review-rack")), step);
    const reveal = $("#review-reveal");
    show(reveal, Boolean(view.ending));
    if (view.ending) hook.ending(clear($("#review-reveal-body")), step);
    this.renderLog();
  }

  /**
   * The step's tiles brought into the board's window where the board pans in it (a phone):
   * the window scrolls, never the page, and only when they are not all in sight.
   * @param {HTMLElement[]} cells
   */
  bringIntoWindow(cells) {
    const wrap = $("#review-board-wrap");
    if (!cells.length || (wrap.scrollWidth <= wrap.clientWidth && wrap.scrollHeight <= wrap.clientHeight)) return;
    const box = wrap.getBoundingClientRect();
    const rects = cells.map((cell) => cell.getBoundingClientRect());
    const top = Math.min(...rects.map((r) => r.top));
    const bottom = Math.max(...rects.map((r) => r.bottom));
    const left = Math.min(...rects.map((r) => r.left));
    const right = Math.max(...rects.map((r) => r.right));
    if (left >= box.left && right <= box.right && top >= box.top && bottom <= box.bottom) return;
    wrap.scrollLeft += (left + right) / 2 - (box.left + box.right) / 2;
    wrap.scrollTop += (top + bottom) / 2 - (box.top + box.bottom) / 2;
  }

  /** The log, drawn once per review and language; the step's entries marked and in sight
   *  (aria-current on the first only: one step, said once). */
  renderLog() {
    const list = $("#review-log");
    this.log?.render(this.review?.entries ?? [], this.table);
    const items = /** @type {HTMLElement[]} */ ([...list.children].filter((item) => !item.classList.contains("log-empty")));
    const shown = this.stops[this.index]?.entries ?? [];
    items.forEach((item, i) => {
      item.classList.toggle("current", shown.includes(i));
      if (i === shown[0]) item.setAttribute("aria-current", "step");
      else item.removeAttribute("aria-current");
    });
    // Within the log only: the page does not jump (a phone's controls stay under the finger).
    const first = items[shown[0]];
    const end = items[shown[shown.length - 1]];
    if (!first || !end) {
      list.scrollTop = 0;
      return;
    }
    const top = first.offsetTop - list.offsetTop;
    const bottom = end.offsetTop - list.offsetTop + end.offsetHeight;
    if (top < list.scrollTop) list.scrollTop = top;
    else if (bottom > list.scrollTop + list.clientHeight) list.scrollTop = Math.min(top, bottom - list.clientHeight);
  }

  /** The step in the live region: "Coup 5 sur 32 : …" (the visible label, then what the
   *  step did), the end's account at the last. */
  say() {
    if (!this.review || !this.hook) return;
    const step = this.step();
    const what = el("span", {}, [step.entry ? this.hook.spoken(step) : t("review.start_summary")]);
    if (step.view.ending) what.append(" ", this.hook.spokenEnding(step));
    const line = el("p", {}, [tNodes("review.say", { position: this.positionText(), what })]);
    $("#review-live").replaceChildren(line);
  }

  /** The record as fetched, saved under the gateway's name for it (no second request). */
  download() {
    const review = this.review;
    if (!review) return;
    const blob = new Blob([`${JSON.stringify(review.record, null, 2)}\n`], { type: "application/json" });
    const url = URL.createObjectURL(blob);
    const link = el("a", { attrs: { href: url, download: review.filename || "record.json", hidden: true } });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}
