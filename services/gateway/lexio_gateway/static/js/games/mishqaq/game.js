// @ts-check
// al-Mishqaq's table controller: what the kit's tile editor (kit/editor.js) leaves to a
// game — its tiles (two scripts, bilingual tiles, blanks and their swap: M26, M27), its
// cursor's three directions (M20), passing (M35), the meaning pause (M30), resigning (M31),
// the chess clock as the view states it (M28) and its words. Drawing is view.js's; the
// server judges every move (M25: no preview).
import { t, tNodes } from "../../i18n.js";
import { confirmDialog } from "../../dialogs.js";
import { announce, answer } from "../../announce.js";
import { bdi } from "../../text.js";
import { $ } from "../../dom.js";
import { TileEditor } from "../../kit/editor.js";
import { fillLegend } from "../../kit/legend.js";
import { chooseLetter } from "../../kit/picker.js";
import { LETTERS, RED, SIZE, cellName, foldKey, isLetterKey, otherSide, parseCell } from "./tiles.js";
import { entryNode, sideName, spokenEnding, wordNode } from "./panels.js";
import { tileWords } from "./board.js";
import { MishqaqView, URGENT } from "./view.js";

/** The other side's last minute (said once per game). */
const LAST_MINUTE = 60;
/** Own clock warnings (M28), in seconds left: said once each per game. */
const WARNINGS = [300, 60, URGENT];
/** M11, M35: a rack holds at most 12 tiles; a pass then draws nothing. */
const RACK_MAX = 12;
const DRAW = 3;
/** The key's swatches (mishqaq.css) and the catalog keys of what they are. */
const LEGEND = { "half-latin": "halves", red: "red", target: "target", "tile-latin": "tiles", "tile-bilingual": "bilingual", "tile-blank": "blank" };
/** Log entries that are not turns (M35 counts turns). */
const NOT_TURNS = new Set(["pause", "resume", "pause_expired", "swap", "opening"]);
/** Log entries that are not moves (Alt+L, the last move: a placement, a pass, a swap, a
 *  resignation); a pause is in the state (Alt+P), the result in the end. */
const NOT_MOVES = new Set(["pause", "resume", "pause_expired", "opening", "result"]);

/** @typedef {import("../../kit/editor.js").RackItem} RackItem */

export class MishqaqGame extends TileEditor {
  /** @param {any} ctx */
  constructor(ctx) {
    super(ctx, {
      board: "#mq-board",
      rack: "#mq-rack",
      shuffle: "#mq-shuffle",
      recall: "#mq-recall",
      validate: "#mq-validate",
      screen: "#screen-mishqaq",
      help: "#screen-mishqaq .help-box details",
      game: "mishqaq",
      catalog: "mq",
      leave: "#mq-leave",
      resign: "#mq-resign",
    });
    this.viewAt = 0; // local seconds when the view arrived (its banks count from then)
    /** @type {Set<number>} */ this.warned = new Set();
    /** @type {number | null} */ this.expiredPause = null;
    this.start(new MishqaqView(this));
  }

  reset() {
    this.resetEditor();
    this.viewAt = 0;
    // Which own clock warnings (M28) were said, and the pause that ran out by itself.
    this.warned = new Set();
    this.expiredPause = null;
    this.ui.reset();
  }

  /** @returns {string} */
  get side() {
    return this.view?.side ?? "latin";
  }

  /** The server's instant now, as counted from the view's own (M28: it decides). */
  serverNow() {
    const view = this.view;
    return view ? view.now + (Date.now() / 1000 - this.viewAt) : 0;
  }

  /** A meaning pause stops both clocks (M30) until its caller ends it or its minute is over. */
  get paused() {
    const pause = this.view?.pause;
    return Boolean(pause) && !this.over && this.serverNow() < pause.until;
  }

  get pausedByMe() {
    return this.paused && this.view.pause.by === this.side;
  }

  pauseLeft() {
    return this.paused ? Math.max(0, this.view.pause.until - this.serverNow()) : 0;
  }

  get myTurn() {
    return Boolean(this.view) && !this.over && this.view.turn === this.side;
  }

  /** A side's bank now: the mover's runs down from the view's instant (or from the end of a
   *  pause that ran out meanwhile); the other's stands (M28).
   *  @param {string} side @returns {number} */
  bank(side) {
    const view = this.view;
    const bank = view[`${side}_bank`];
    if (this.over || side !== view.turn) return bank;
    const now = this.serverNow();
    if (view.pause) {
      if (now < view.pause.until) return bank;
      return Math.max(0, bank - (now - view.pause.until));
    }
    return Math.max(0, bank - (now - view.now));
  }

  wire() {
    super.wire();
    const legend = Object.entries(LEGEND).map(([swatch, key]) => ({ swatch: `mq-swatch ${swatch}`, name: `mq.legend.${key}` }));
    fillLegend($("#mq-legend .legend"), legend);
    $("#mq-pass").addEventListener("click", () => this.pass());
    $("#mq-pause").addEventListener("click", () => this.togglePause());
    $("#mq-pause-panel").addEventListener("click", (event) => {
      if (/** @type {HTMLElement} */ (event.target).closest("#mq-resume")) this.togglePause();
    });
  }

  languageChanged() {
    this.ui.reset(false);
    this.ui.render();
  }

  viewArrived() {
    this.viewAt = Date.now() / 1000;
  }

  // The kit's hooks ---------------------------------------------------------------------

  startCursor() {
    const view = this.view;
    if (!view) return null;
    const [row, col] = RED[view.side];
    return { row, col, dir: "across" };
  }

  get directions() {
    return ["across", "down", "up"];
  }

  /** @param {string} dir */
  directionWords(dir) {
    return t(`mq.dir.${dir}`);
  }

  get size() {
    return SIZE;
  }

  /** @param {number} row @param {number} col */
  boardAt(row, col) {
    return parseCell(this.view?.board?.[row * SIZE + col] ?? "");
  }

  /** @param {number} row @param {number} col */
  tileAt(row, col) {
    return this.boardAt(row, col);
  }

  /** @param {string} cell */
  cellEmpty(cell) {
    return !cell;
  }

  /** @param {RackItem} item @param {any} entry */
  sameTile(item, entry) {
    return entry.code === item.code;
  }

  /** @param {any} tile */
  rackItem(tile) {
    return { id: this.nextId++, code: tile.code, letter: tile.letter, partner: tile.partner, blank: tile.blank, owner: tile.owner };
  }

  /** M26: the letter a blank stands for, among its owner's script; null if cancelled. */
  chooseBlank() {
    const side = this.side;
    return chooseLetter({
      letters: LETTERS[side],
      title: "mq.blank.title",
      help: "mq.blank.help",
      lang: side === "arabic" ? "ar" : null,
      rtl: side === "arabic",
      fold: (key) => foldKey(key, side),
    });
  }

  blankWord() {
    return t("mq.blank");
  }

  /** @param {string} key */
  isTypingKey(key) {
    return isLetterKey(key);
  }

  /** @param {string} key */
  foldTyped(key) {
    return foldKey(key, this.side);
  }

  typedOtherScript() {
    this.info(`mq.other_script_${this.side}`);
  }

  /** A plain tile first: a bilingual one is readable by the other side too (M17).
   *  @param {RackItem[]} free @param {string} letter */
  pickTile(free, letter) {
    return (
      free.find((x) => !x.blank && x.letter === letter && !x.partner) ||
      free.find((x) => !x.blank && x.letter === letter) ||
      free.find((x) => x.blank)
    );
  }

  get noSuchTileKey() {
    return "mq.no_such_tile";
  }

  /** One step along the cursor's direction: across is the player's reading direction (M20:
   *  rightwards for Latin, leftwards for Arabic), down and up follow a column. Arrows are
   *  never mirrored (M4): Left is towards column A in every language (the kit's default).
   *  @param {number} row @param {number} col @param {boolean} forward @returns {[number, number]} */
  step(row, col, forward) {
    const d = forward ? 1 : -1;
    const dir = this.cursor?.dir;
    if (dir === "across") return [row, col + (this.side === "arabic" ? -d : d)];
    return dir === "down" ? [row + d, col] : [row - d, col];
  }

  /** @param {number} row @param {number} col */
  cellName(row, col) {
    return cellName(row, col);
  }

  /** "B11 : R ر, jeton latin bilingue, posé ce tour."
   *  @param {import("../../kit/editor.js").Placed} placed @param {number} row @param {number} col */
  placedWords(placed, row, col) {
    return t("mq.say.placed", { cell: cellName(row, col), tile: tileWords(placed) });
  }

  /** A rack tile on the player's own blank is a swap (M27).
   *  @param {number} id @param {number} row @param {number} col */
  dropOther(id, row, col) {
    if (!this.ownBlankAt(row, col)) return false;
    this.swap(id, row, col);
    this.ui.renderBoard();
    return true;
  }

  dragOptions() {
    return { scrollers: () => [$("#mq-board-wrap")], pageScroll: false };
  }

  /** The last seconds of the player's own clock: what is said then is said at once. */
  urgent() {
    return this.myTurn && !this.paused && this.bank(this.side) <= URGENT;
  }

  placeAction() {
    const tiles = this.pending.map((p) => {
      /** @type {{ row: number, col: number, tile: string, as?: string }} */
      const placed = { row: p.row, col: p.col, tile: p.code };
      if (p.blank) placed.as = p.letter;
      return placed;
    });
    return { place: { tiles } };
  }

  get placeFirstKey() {
    return "mq.place_first";
  }

  whyNotPlay() {
    if (!this.myTurn) return "reason.not_your_turn";
    return this.paused ? "mq.reason.paused" : null;
  }

  get leaveText() {
    return t("mq.confirm.leave_text");
  }

  /** M24 (as R19): every unknown word named, never "does not exist"; then the reserve.
   *  @param {any} frame */
  refusalLines(frame) {
    if (frame.reason !== "unknown_words") return [this.reasonText(frame.reason)];
    const latin = /** @type {string | undefined} */ (this.table?.options?.latin);
    return [
      ...(frame.words || []).map((/** @type {string} */ word) =>
        tNodes("refusal.unknown_word", { word: wordNode(word, this.side, latin) }),
      ),
      t("mq.refusal.reserve_left", { count: frame.reserve_tries }),
      t("refusal.keep_turn"),
    ];
  }

  // What the live region says ------------------------------------------------------------

  /** Both sides' moves, with their words and directions; not the result (the end says it),
   *  nor a pause this page already said ran out. @param {any} entry */
  spokenEntry(entry) {
    const ranOut = entry.kind === "pause_expired" && entry.at === this.expiredPause;
    if (entry.kind === "result" || ranOut) return null;
    return entryNode(entry, this.table, { spoken: true });
  }

  entriesUrgent() {
    return this.urgent();
  }

  /** The end's sentence names who resigned (M31): the log's line is not said as well.
   *  @param {any} entry */
  endingSays(entry) {
    return entry.kind === "resign";
  }

  /** @param {any} entry */
  isOwnEntry(entry) {
    return entry.side === this.side;
  }

  moverName() {
    return sideName(this.table, this.view.turn);
  }

  spokenEnding() {
    return spokenEnding(this.table, this.view);
  }

  startWords() {
    if (!this.app.log.every((/** @type {any} */ entry) => entry.kind === "opening")) return null;
    return [t("say.game_start"), " ", t("mq.say.you_play", { side: t(`mq.side.${this.side}`) })];
  }

  /** The meaning pause ran out by itself (the page saw it end; no frame came): said once.
   *  @param {{ by: string, until: number }} pause */
  pauseRanOut(pause) {
    this.expiredPause = pause.until;
    announce(tNodes("mq.log.pause_expired", { name: bdi(sideName(this.table, pause.by)) }));
  }

  /** Four times a second while the player's own clock runs: 5 min, 1 min, 10 s (M28).
   *  @param {number} left */
  clockTick(left) {
    if (!this.myTurn || this.paused || left <= 0) return;
    const due = WARNINGS.filter((limit) => left <= limit && !this.warned.has(limit));
    if (!due.length) return;
    for (const limit of due) this.warned.add(limit);
    const lowest = Math.min(...due);
    const seconds = Math.ceil(left);
    if (lowest <= URGENT) announce(t("say.clock", { count: seconds }), { urgent: true });
    else announce(t("mq.say.clock_minutes", { count: Math.max(1, Math.floor(seconds / 60)) }));
  }

  /**
   * The other side's clock in its last minute (M29: at 0 the game ends, and the player
   * wins): said once per game, politely.
   * @param {number} left
   */
  otherClockTick(left) {
    if (this.myTurn || this.paused || this.over || left <= 0 || left > LAST_MINUTE || this.warned.has(-LAST_MINUTE)) return;
    this.warned.add(-LAST_MINUTE);
    announce(tNodes("mq.say.other_last_minute", { name: bdi(sideName(this.table, otherSide(this.side))) }));
  }

  /** The "?" key on the board: both clocks, the rack, the bags. */
  saySummary() {
    const view = this.view;
    if (!view) return;
    const parts = [];
    if (!this.over) {
      // A sentence, as Alt+P says it (the status line's words have no full stop).
      if (this.paused) parts.push(tNodes("mq.say.paused", { name: bdi(sideName(this.table, view.pause.by)), time: this.ui.timeWords(this.pauseLeft()) }));
      else parts.push(this.spokenTurn());
      for (const side of ["latin", "arabic"]) {
        parts.push(" ", tNodes("mq.say.bank", { name: bdi(sideName(this.table, side)), time: this.ui.timeWords(this.bank(side)) }));
      }
      parts.push(" ");
    }
    const rack = this.rackTiles().map((item) => tileWords(item));
    parts.push(rack.length ? t("say.rack", { letters: rack.join(t("say.word_sep")) }) : t("game.rack_empty"), " ");
    parts.push(t("mq.say.bags", { latin: view.latin_bag_count, arabic: view.arabic_bag_count }));
    answer(parts);
  }

  /** @param {any} entry */
  isMove(entry) {
    return !NOT_MOVES.has(entry.kind);
  }

  /** Alt+P (kit/ask.js): whose turn it is, or the meaning pause and its time left, then both
   *  clocks, each running or stopped; at the end, the end as it was said. */
  spokenState() {
    const view = this.view;
    if (!view) return null;
    if (this.over) return this.spokenEnding();
    const status = this.paused
      ? tNodes("mq.say.paused", { name: bdi(sideName(this.table, view.pause.by)), time: this.ui.timeWords(this.pauseLeft()) })
      : this.spokenTurn();
    const clocks = document.createDocumentFragment();
    ["latin", "arabic"].forEach((side, i) => {
      if (i > 0) clocks.append(t("say.word_sep"));
      const running = !this.paused && view.turn === side;
      clocks.append(
        tNodes("mq.say.clock_state", {
          name: bdi(sideName(this.table, side)),
          side: t(`mq.side.${side}`),
          time: this.ui.timeWords(this.bank(side)),
          state: t(running ? "mq.clock.running" : "mq.clock.stopped"),
        }),
      );
    });
    return [status, " ", tNodes("mq.say.clocks", { clocks })];
  }

  // Swapping, passing, pausing, resigning --------------------------------------------------

  /** One of the player's own blanks on the board (M27: only its owner may swap it).
   *  @param {number} row @param {number} col */
  ownBlankAt(row, col) {
    const tile = this.boardAt(row, col);
    return tile && tile.blank && tile.owner === this.side ? tile : null;
  }

  /**
   * M27: the rack tile ``id`` onto the player's own blank at (row, col): it must bear the
   * blank's letter (a blank cannot replace a blank); swapped on the player's own turn,
   * before placing or passing; the blank comes back to the rack.
   * @param {number} id @param {number} row @param {number} col
   */
  swap(id, row, col) {
    const blank = this.ownBlankAt(row, col);
    const item = this.tiles.find((x) => x.id === id);
    if (!blank || !item) return false;
    if (item.blank || item.letter !== blank.letter) {
      this.info("mq.swap_letter", { letter: blank.letter, cell: cellName(row, col) });
      return true;
    }
    const why = this.whyNotPlay();
    if (why) {
      this.info(why);
      return true;
    }
    this.selected = null;
    this.act({ swap: { row, col, tile: item.code } }, "swap");
    return true;
  }

  /** M35: would this pass be the fourth turn in a row without a draw (the game ends)? */
  wouldEndGame() {
    const view = this.view;
    let passes = 0;
    for (let i = this.app.log.length - 1; i >= 0; i -= 1) {
      const entry = this.app.log[i];
      if (NOT_TURNS.has(entry.kind)) continue;
      if (entry.kind !== "pass" || entry.count !== 0) break;
      passes += 1;
    }
    const rack = view[`${this.side}_rack_count`];
    const bag = view[`${this.side}_bag_count`];
    return passes >= 3 && Math.min(DRAW, RACK_MAX - rack, bag) <= 0;
  }

  async pass() {
    if (this.acting || this.whyNotPlay()) return;
    if (this.wouldEndGame()) {
      const ok = await confirmDialog({ title: t("confirm.end_title"), text: t("mq.confirm.end_pass"), ok: t("confirm.end_ok") });
      if (!ok || !this.myTurn) return;
    }
    this.pending = [];
    this.selected = null;
    this.act({ pass_turn: {} }, "pass");
  }

  /** M30: a meaning pause, at any moment, three per player; only its caller ends it early. */
  togglePause() {
    // Acting: the button only looks busy while an action is on its way (view.js keeps it
    // focusable); a second press then is not a second request.
    if (this.over || this.acting) return;
    if (this.pausedByMe) this.act({ resume: {} }, "resume");
    else if (!this.paused) this.act({ pause: {} }, "pause");
  }

  /** M31: at any moment, also out of turn and during a pause (the kit asks first). */
  resignConfirmation() {
    return {
      title: t("mq.confirm.resign_title"),
      text: t("mq.confirm.resign_text", { name: sideName(this.table, otherSide(this.side)) }),
      ok: t("mq.confirm.resign_ok"),
    };
  }
}
