// @ts-check
// Lexio's table controller: what the kit's tile editor (kit/editor.js) leaves to a game —
// its tiles (letters, the blank "?"), its board (R7–R9: walls), the preview (R25),
// exchanging (R26), passing (R31), the turn clock's warnings (R28) and its words. Drawing is
// gameview.js's.
import { french, isRtl, t, tNodes } from "../../i18n.js";
import { confirmDialog } from "../../dialogs.js";
import { TileEditor } from "../../kit/editor.js";
import { chooseBlankLetter, chooseExchange } from "./dialogs.js";
import { BLANK, SIZE, cellName, squareAt } from "./layout.js";
import { bdi } from "../../text.js";
import { names, seatName, spokenEnding, spokenEntry } from "./panels.js";
import { GameView, URGENT } from "./gameview.js";
import { bonusWords, tileWords } from "./board.js";
import { secondsLeft } from "../../clock.js";
import { announce, answer } from "../../announce.js";
import { load, save } from "../../store.js";
import { $ } from "../../dom.js";
import { fillLegend } from "../../kit/legend.js";

const PREVIEW_DELAY = 150; // ms after the last change
/** The squares the key explains (R8, R9); the multipliers' marks are read, the symbols not. */
const LEGEND = ["letter2", "letter3", "word2", "word3", "crossing", "source", "wall"];
const MULTIPLIERS = new Set(["letter2", "letter3", "word2", "word3"]);
/** clockWarned's mark of another player's last seconds (said once per turn). */
const OTHER_LAST = -1;

/** R19: every refused word named, never "does not exist"; then the reserve (R20).
 *  @param {any} frame @param {(reason: string) => string} reasonText */
function refusalLines(frame, reasonText) {
  if (frame.reason !== "unknown_words") return [reasonText(frame.reason)];
  return [
    ...frame.words.map((/** @type {string} */ word) => tNodes("refusal.unknown_word", { word: french(word) })),
    t("refusal.reserve_left", { count: frame.reserve_tries }),
    t("refusal.keep_turn"),
  ];
}

export class Game extends TileEditor {
  /** @param {any} ctx */
  constructor(ctx) {
    super(ctx, {
      board: "#board",
      rack: "#rack",
      shuffle: "#btn-shuffle",
      recall: "#btn-recall",
      validate: "#btn-validate",
      screen: "#screen-game",
      help: "#screen-game .help-box details",
      game: "lexio",
      leave: "#btn-leave",
    });
    this.noteSaid = false; // the preview's disclaimer is said once (gameview.js)
    /** @type {ReturnType<typeof setTimeout> | undefined} */ this.previewTimer = undefined;
    /** @type {string | null} */ this.previewId = null;
    /** @type {any} */ this.preview = null;
    /** @type {Set<number>} */ this.clockWarned = new Set();
    this.start(new GameView(this));
  }

  reset() {
    this.resetEditor();
    this.cursor = this.startCursor();
    clearTimeout(this.previewTimer);
    this.previewId = null;
    this.preview = null;
    // Which clock warnings (R28) of this turn were said.
    this.clockWarned = new Set();
    this.ui.reset();
  }

  wire() {
    super.wire();
    $("#btn-exchange").addEventListener("click", () => this.exchange());
    $("#btn-pass").addEventListener("click", () => this.pass());
    // The legend is open until the player closes it once: a newcomer meets M×3 explained.
    const legend = /** @type {HTMLDetailsElement} */ ($("#legend-box"));
    fillLegend(
      $(".legend", legend),
      LEGEND.map((kind) => ({
        swatch: `sq-${kind}`,
        name: `bonus.${kind}.name`,
        short: kind === "wall" ? undefined : `bonus.${kind}.short`,
        spoken: MULTIPLIERS.has(kind),
      })),
    );
    if (load("legend") === "closed") legend.open = false;
    legend.addEventListener("toggle", () => save("legend", legend.open ? null : "closed"));
  }

  // The kit's hooks ---------------------------------------------------------------------

  startCursor() {
    return { row: 6, col: 6, dir: "across" };
  }

  /** @param {string} dir */
  directionWords(dir) {
    return t(dir === "across" ? "dir.across_words" : "dir.down_words");
  }

  get size() {
    return SIZE;
  }

  /** @param {number} row @param {number} col */
  playable(row, col) {
    return squareAt(row, col) !== "wall";
  }

  /** @param {number} row @param {number} col */
  boardAt(row, col) {
    return this.view?.board?.[row * SIZE + col] ?? "#";
  }

  /** @param {number} row @param {number} col */
  tileAt(row, col) {
    return /[a-zA-Z]/.test(this.boardAt(row, col));
  }

  /** @param {string} cell */
  cellEmpty(cell) {
    return cell === ".";
  }

  /** @param {import("../../kit/editor.js").RackItem} item @param {string} letter */
  sameTile(item, letter) {
    return item.letter === letter;
  }

  /** @param {string} letter */
  rackItem(letter) {
    return { id: this.nextId++, letter };
  }

  /** @param {import("../../kit/editor.js").RackItem} item */
  isBlank(item) {
    return item.letter === BLANK;
  }

  chooseBlank() {
    return chooseBlankLetter();
  }

  blankWord() {
    return t("tile.blank");
  }

  /** @param {string} key */
  isTypingKey(key) {
    return /^[a-zA-Z]$/.test(key);
  }

  /** @param {string} key */
  foldTyped(key) {
    return key.toUpperCase();
  }

  /** @returns {Record<string, [number, number]>} */
  arrowMoves() {
    const mirror = isRtl() ? -1 : 1;
    return { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -mirror], ArrowRight: [0, mirror] };
  }

  /** @param {number} row @param {number} col */
  cellName(row, col) {
    return cellName(row, col);
  }

  /** "G7 : C, 2 points, posé ce tour" (and the bonus the tile covers).
   *  @param {import("../../kit/editor.js").Placed} placed @param {number} row @param {number} col */
  placedWords(placed, row, col) {
    const kind = squareAt(row, col);
    const tile = tileWords(placed.letter, placed.blank);
    const under = ["plain", "wall"].includes(kind) ? "" : t("sep.comma") + t("cell.under", { bonus: bonusWords(kind) });
    return t("say.placed", { cell: cellName(row, col), tile, under });
  }

  get cursorAfterEnd() {
    return false;
  }

  get sayTurnOnClick() {
    return false;
  }

  /** The last seconds of the player's own turn: what is said then is said at once. */
  urgent() {
    return this.myTurn && secondsLeft(this.view.turn_deadline) <= URGENT;
  }

  placeAction() {
    const tiles = this.pending.map((p) => {
      /** @type {{ row: number, col: number, letter: string, blank?: boolean }} */
      const placed = { row: p.row, col: p.col, letter: p.letter };
      if (p.blank) placed.blank = true;
      return placed;
    });
    return { place: { tiles } };
  }

  /** @param {any} frame */
  refusalLines(frame) {
    return refusalLines(frame, (reason) => this.reasonText(reason));
  }

  changed() {
    this.message = null;
    this.schedulePreview();
    this.ui.render();
  }

  pendingDropped() {
    this.schedulePreview();
  }

  reconnected() {
    super.reconnected();
    this.previewId = null;
    this.schedulePreview();
  }

  // What the live region says ------------------------------------------------------------

  /** @param {any} entry every player's move (R11) */
  spokenEntry(entry) {
    return spokenEntry(entry, this.table);
  }

  /** @param {any} entry */
  isOwnEntry(entry) {
    return entry.seat === this.seat;
  }

  currentTurnKey() {
    return `${this.view.turn}|${this.view.turn_deadline}`;
  }

  turnChanged() {
    this.clockWarned = new Set();
  }

  moverName() {
    return seatName(this.table, this.view.turn);
  }

  spokenEnding() {
    return spokenEnding(this.table, this.view);
  }

  /** Four times a second on the player's own turn: warn at 30 and 10 seconds left (R28).
   *  @param {number} left */
  clockTick(left) {
    if (!this.myTurn) {
      this.otherClockTick(left);
      return;
    }
    if (left <= 0) return;
    if (left <= URGENT && !this.clockWarned.has(URGENT)) {
      this.clockWarned.add(URGENT).add(30);
      announce(t("say.clock", { count: left }), { urgent: true });
    } else if (left <= 30 && !this.clockWarned.has(30)) {
      this.clockWarned.add(30);
      announce(t("say.clock", { count: left }));
    }
  }

  /**
   * Another player's turn in its last seconds (R28: then the table passes for them): said
   * once per turn, politely, so that a player waiting knows the turn is about to come round.
   * @param {number} left
   */
  otherClockTick(left) {
    if (this.over || !this.view || left <= 0 || left > URGENT || this.clockWarned.has(OTHER_LAST)) return;
    this.clockWarned.add(OTHER_LAST);
    announce([tNodes("say.turn_of", { name: bdi(this.moverName()) }), " ", t("say.seconds_left", { count: left })]);
  }

  /** The "?" key on the board: time left, the rack, the scores, the bag. */
  saySummary() {
    if (!this.view) return;
    const rack = this.rackTiles().map((item) => (item.letter === BLANK ? t("tile.blank") : item.letter));
    const rackWords = rack.length ? t("say.rack", { letters: rack.join(t("sep.comma")) }) : t("game.rack_empty");
    answer([...this.turnAndTime(), rackWords, " ", ...this.scoresAndBag()]);
  }

  /** Alt+P (kit/ask.js): whose turn and the time left, the scores, the bag; at the end, the
   *  end as it was said (the winner, the final scores). */
  spokenState() {
    if (!this.view) return null;
    if (this.over) return this.spokenEnding();
    return [...this.turnAndTime(), ...this.scoresAndBag()];
  }

  /** "Au tour de Ana. Il reste 41 secondes. " (nothing after the end) @returns {any[]} */
  turnAndTime() {
    if (this.over) return [];
    return [this.spokenTurn(), " ", t("say.seconds_left", { count: secondsLeft(this.view.turn_deadline) }), " "];
  }

  /** "Scores : Ana 12 points et Bruno 0 point. 86 jetons dans le sac." @returns {any[]} */
  scoresAndBag() {
    const view = this.view;
    const seats = this.table?.seats ?? [];
    const scores = seats.map((/** @type {any} */ seat, /** @type {number} */ index) =>
      t("say.score", { name: seat.name, points: t("points_long", { count: view.scores?.[index] ?? 0 }) }),
    );
    return [t("say.scores", { scores: names(scores) }), " ", `${t("bag_count", { count: view.bag_count })}.`];
  }

  // The preview (R25), exchanging and passing --------------------------------------------

  schedulePreview() {
    clearTimeout(this.previewTimer);
    this.preview = null;
    this.previewId = null;
    if (!this.pending.length || !this.view || this.over) return;
    this.previewTimer = setTimeout(() => {
      const id = this.ctx.request(
        { type: "preview", action: this.placeAction() },
        (/** @type {any} */ frame) => {
          if (frame.id !== this.previewId) return;
          this.preview = frame;
          this.ui.renderPreview();
        },
        { quiet: true },
      );
      this.previewId = id;
    }, PREVIEW_DELAY);
  }

  /** R31: would one more turn without a placement end the game? */
  wouldEndGame() {
    const seats = this.table?.seats?.length ?? 2;
    let without = 0;
    for (let i = this.app.log.length - 1; i >= 0 && this.app.log[i].kind !== "place"; i -= 1) without += 1;
    return without + 1 >= 2 * seats;
  }

  /** @param {string} text */
  confirmEnd(text) {
    return confirmDialog({ title: t("confirm.end_title"), text, ok: t("confirm.end_ok") });
  }

  async exchange() {
    if (this.acting || !this.myTurn) return;
    const letters = await chooseExchange(this.view.rack, this.view.bag_count);
    if (!letters || !this.myTurn) return;
    if (this.wouldEndGame() && !(await this.confirmEnd(t("confirm.end_exchange")))) return;
    this.pending = [];
    this.selected = null;
    this.schedulePreview();
    this.act({ exchange: { tiles: letters } }, "exchange");
  }

  async pass() {
    if (this.acting || !this.myTurn) return;
    if (this.wouldEndGame()) {
      const ok = await this.confirmEnd(t("confirm.end_pass"));
      if (!ok || !this.myTurn) return;
    }
    this.act({ pass_turn: {} }, "pass");
  }
}
