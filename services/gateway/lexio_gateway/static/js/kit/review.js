// @ts-check
// The review of a finished game (issue 26): fetched once with the seat's token, then stepped
// through — first, previous, next, last, a slider, the arrow keys (Home/End) — the board as it
// stood after the chosen entry, the entry's words, the scores or clocks then, the viewer's
// rack then, the end's reveal at the last step, the log with the entry marked, each step said
// in the live region, and the record downloaded from what was fetched. The game's hook
// (js/games.js, ReviewHook) draws its board and panels; this module names no game.
import { $, clear, el, show } from "../dom.js";
import { currentLanguage, isRtl, t, tNodes } from "../i18n.js";
import { GridBoard } from "./board.js";
import { LogView } from "./log.js";
import { bdi } from "../text.js";

/** @typedef {import("../protocol.js").Review} Review */
/** @typedef {import("../store.js").FinishedGame} FinishedGame */
/** @typedef {import("../games.js").ReviewHook} ReviewHook */
/** @typedef {import("../games.js").ReviewTable} ReviewTable */

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
    /** @type {ReviewHook | null} */
    this.hook = null;
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
    return this.review ? this.review.steps.length - 1 : 0;
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
    this.tableId = null;
    $("#review-live").textContent = "";
  }

  /** @param {Review} review @param {ReviewHook} hook */
  start(review, hook) {
    this.review = review;
    this.hook = hook;
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

  /** @returns {import("../games.js").ReviewStep} */
  step() {
    const review = /** @type {Review} */ (this.review);
    const i = this.index;
    return {
      table: /** @type {ReviewTable} */ (this.table),
      view: review.steps[i],
      before: i > 0 ? review.steps[i - 1] : null,
      entry: i > 0 ? review.entries[i - 1] : null,
      index: i,
    };
  }

  /** "Coup 5 sur 32" (or the start), as shown and as the slider says its value. */
  positionText() {
    const total = this.review?.entries.length ?? 0;
    return this.index === 0 ? t("review.position_start", { count: total }) : t("review.position", { n: this.index, count: total });
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

  /** The log, drawn once per review and language; the step's entry marked and in sight. */
  renderLog() {
    const list = $("#review-log");
    this.log?.render(this.review?.entries ?? [], this.table);
    const items = [...list.children].filter((item) => !item.classList.contains("log-empty"));
    items.forEach((item, i) => {
      const current = i === this.index - 1;
      item.classList.toggle("current", current);
      if (current) item.setAttribute("aria-current", "step");
      else item.removeAttribute("aria-current");
    });
    // Within the log only: the page does not jump (a phone's controls stay under the finger).
    const item = /** @type {HTMLElement | undefined} */ (items[this.index - 1]);
    if (!item) {
      list.scrollTop = 0;
      return;
    }
    const top = item.offsetTop - list.offsetTop;
    if (top < list.scrollTop) list.scrollTop = top;
    else if (top + item.offsetHeight > list.scrollTop + list.clientHeight) list.scrollTop = top + item.offsetHeight - list.clientHeight;
  }

  /** The step in the live region: "Coup 5 sur 32 : …", the end's account at the last. */
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
