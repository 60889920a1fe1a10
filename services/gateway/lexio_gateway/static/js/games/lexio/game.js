// The game screen's controller: the tiles placed this turn (not yet validated), the cursor,
// the preview (R25), validating, exchanging, passing. Drawing is gameview.js's.
import { $ } from "../../dom.js";
import { french, isRtl, onLanguageChange, t, tNodes } from "../../i18n.js";
import { reorder, shuffle, unplaced } from "../../rack.js";
import { enableDrag } from "../../drag.js";
import { confirmDialog } from "../../dialogs.js";
import { chooseBlankLetter, chooseExchange } from "./dialogs.js";
import { BLANK, SIZE, cellName, squareAt } from "./layout.js";
import { bdi } from "../../text.js";
import { names, seatName, spokenEnding, spokenEntry } from "./panels.js";
import { GameView, URGENT, reasonText } from "./gameview.js";
import { bonusWords, tileWords } from "./board.js";
import { secondsLeft } from "../../clock.js";
import { announce } from "../../announce.js";
import { load, save } from "../../store.js";

const PREVIEW_DELAY = 150; // ms after the last change

const inside = (row, col) => row >= 0 && row < SIZE && col >= 0 && col < SIZE;
const indexOf = (row, col) => row * SIZE + col;

/** R19: every refused word named, never "does not exist"; then the reserve (R20). */
function refusalLines(frame) {
  if (frame.reason !== "unknown_words") return [reasonText(frame.reason)];
  return [
    ...frame.words.map((word) => tNodes("refusal.unknown_word", { word: french(word) })),
    t("refusal.reserve_left", { count: frame.reserve_tries }),
    t("refusal.keep_turn"),
  ];
}

export class Game {
  /** ctx: { app, request(frame, onReply, options) → id | null, errorText(frame), toast(text),
   *  joinNewTable(code), goHome(), leaveGame() } */
  constructor(ctx) {
    this.ctx = ctx;
    this.noteSaid = false; // the preview's disclaimer is said once (gameview.js)
    this.ui = new GameView(this);
    this.reset();
    this.wire();
    setInterval(() => this.ui.tick(), 250);
  }

  reset() {
    this.tiles = []; // own rack, in the player's order: [{id, letter}]
    this.pending = []; // placed this turn: [{id, row, col, letter, blank}]
    this.selected = null;
    this.cursor = { row: 6, col: 6, across: true };
    this.cursorBefore = null;
    this.nextId = 1;
    clearTimeout(this.previewTimer);
    this.previewId = null;
    this.preview = null;
    this.message = null;
    this.acting = null;
    this.clearAtSeq = null;
    this.reserve = null;
    // What the live region has said of this table: the last log entry, whose turn, which
    // clock warnings (R28) of this turn.
    this.heardNumber = null;
    this.turnKey = null;
    this.clockWarned = new Set();
    this.ui.reset();
  }

  get app() {
    return this.ctx.app;
  }

  /** The view, when the table is a Lexio one (another game's view is not this screen's). */
  get view() {
    const game = this.app.table?.game ?? "lexio";
    return game === "lexio" ? this.app.view : null;
  }

  get seat() {
    return this.app.table?.you ?? -1;
  }

  get over() {
    return Boolean(this.view?.ending);
  }

  get myTurn() {
    return Boolean(this.view) && !this.over && this.view.turn === this.seat;
  }

  // Wiring ------------------------------------------------------------------------------

  wire() {
    const board = $("#board");
    board.addEventListener("click", (event) => {
      const cell = event.target.closest(".cell[data-drop]");
      if (cell) this.clickCell(Number(cell.dataset.row), Number(cell.dataset.col));
    });
    board.addEventListener("keydown", (event) => this.boardKey(event));
    // Where the cursor was before this press (focusing the cell moves it there).
    board.addEventListener("pointerdown", () => {
      this.cursorBefore = { ...this.cursor };
    });
    board.addEventListener("focusin", (event) => {
      const cell = event.target.closest(".cell[data-drop]");
      if (!cell) return;
      const row = Number(cell.dataset.row);
      const col = Number(cell.dataset.col);
      if (row !== this.cursor.row || col !== this.cursor.col) {
        this.cursor = { ...this.cursor, row, col };
        this.ui.renderBoard();
      }
    });
    const rack = $("#rack");
    rack.addEventListener("click", (event) => {
      const button = event.target.closest(".rack-tile");
      if (!button) return;
      const id = Number(button.dataset.tile);
      this.selected = this.selected === id ? null : id;
      this.ui.renderRack();
    });
    rack.addEventListener("keydown", (event) => this.rackKey(event));
    $("#btn-shuffle").addEventListener("click", () => {
      const free = this.rackTiles();
      shuffle(free);
      const placed = this.tiles.filter((tile) => !free.includes(tile));
      this.tiles = [...free, ...placed];
      this.ui.renderRack();
    });
    $("#btn-recall").addEventListener("click", () => this.recallAll());
    $("#btn-validate").addEventListener("click", () => this.validate());
    $("#btn-exchange").addEventListener("click", () => this.exchange());
    $("#btn-pass").addEventListener("click", () => this.pass());
    $("#btn-leave-game").addEventListener("click", () => this.leave());
    // The legend is open until the player closes it once: a newcomer meets M×3 explained.
    const legend = $("#legend-box");
    if (load("legend") === "closed") legend.open = false;
    legend.addEventListener("toggle", () => save("legend", legend.open ? null : "closed"));
    enableDrag({
      canDrag: (source) => Boolean(this.view) && !this.over && source.closest("#screen-game") !== null,
      onDrop: (source, target, event) => this.drop(source, target, event),
    });
    onLanguageChange(() => {
      this.ui.reset();
      this.ui.render();
    });
    document.addEventListener("visibilitychange", () => this.ui.renderAttention());
  }

  // Server frames -----------------------------------------------------------------------

  /** A new snapshot or view (or table): reconcile what is on screen with it. */
  update() {
    const view = this.view;
    if (!view) return;
    if (this.clearAtSeq !== null && this.app.seq >= this.clearAtSeq) {
      this.pending = [];
      this.clearAtSeq = null;
    }
    this.reconcile(view.rack, view.board);
    this.reserve = {
      tries: view.reserve_tries,
      max: view.reserve_max,
      nextIn: view.reserve_next_in,
      at: Date.now() / 1000,
    };
    if (!this.myTurn && this.message?.kind === "refusal") this.message = null;
    this.hear();
    this.ui.render();
  }

  // What the live region says ------------------------------------------------------------

  /** The last seconds of the player's own turn: what is said then is said at once. */
  urgent() {
    return this.myTurn && secondsLeft(this.view.turn_deadline) <= URGENT;
  }

  /**
   * Say what happened since the last frame: each new log entry (every player's move, R11),
   * then whose turn it is, or the end. Nothing of the past when the page (re)opens a game.
   */
  hear() {
    const view = this.view;
    const table = this.app.table;
    const log = this.app.log;
    const first = this.heardNumber === null;
    const lastNumber = log.length ? log[log.length - 1].number : 0;
    if (!first) {
      for (const entry of log) {
        if (entry.number > this.heardNumber) announce(spokenEntry(entry, table));
      }
    }
    this.heardNumber = Math.max(this.heardNumber ?? 0, lastNumber);
    const key = this.over ? "over" : `${view.turn}|${view.turn_deadline}`;
    if (key === this.turnKey) return;
    this.turnKey = key;
    this.clockWarned = new Set();
    if (this.over) {
      announce(spokenEnding(table, view));
      return;
    }
    const turn = this.myTurn ? t("game.your_turn") : tNodes("say.turn_of", { name: bdi(seatName(table, view.turn)) });
    announce(first && !log.length ? [t("say.game_start"), " ", turn] : turn);
  }

  /** Four times a second on the player's own turn: warn at 30 and 10 seconds left (R28). */
  clockTick(left) {
    if (!this.myTurn || left <= 0) return;
    if (left <= URGENT && !this.clockWarned.has(URGENT)) {
      this.clockWarned.add(URGENT).add(30);
      announce(t("say.clock", { count: left }), { urgent: true });
    } else if (left <= 30 && !this.clockWarned.has(30)) {
      this.clockWarned.add(30);
      announce(t("say.clock", { count: left }));
    }
  }

  /** "G7 : C, 2 points, posé ce tour" (and the bonus the tile covers). */
  sayPlaced(row, col) {
    const placed = this.pendingAt(row, col);
    if (!placed) return;
    const kind = squareAt(row, col);
    const tile = tileWords(placed.letter, placed.blank);
    const under = ["plain", "wall"].includes(kind) ? "" : t("sep.comma") + t("cell.under", { bonus: bonusWords(kind) });
    announce(t("say.placed", { cell: cellName(row, col), tile, under }), { urgent: this.urgent() });
  }

  /** The "?" key on the board: time left, the rack, the scores, the bag. */
  saySummary() {
    const view = this.view;
    if (!view) return;
    const parts = [];
    if (!this.over) {
      parts.push(this.myTurn ? t("game.your_turn") : tNodes("say.turn_of", { name: bdi(seatName(this.app.table, view.turn)) }));
      parts.push(" ", t("say.seconds_left", { count: secondsLeft(view.turn_deadline) }), " ");
    }
    const rack = this.rackTiles().map((item) => (item.letter === BLANK ? t("tile.blank") : item.letter));
    parts.push(rack.length ? t("say.rack", { letters: rack.join(t("sep.comma")) }) : t("game.rack_empty"), " ");
    const seats = this.app.table?.seats ?? [];
    const scores = seats.map((seat, index) =>
      t("say.score", { name: seat.name, points: t("points_long", { count: view.scores?.[index] ?? 0 }) }),
    );
    parts.push(t("say.scores", { scores: names(scores) }), " ", `${t("bag_count", { count: view.bag_count })}.`);
    announce(parts, { urgent: this.urgent() });
  }

  render() {
    this.ui.render();
  }

  /** The connection came back: whatever was in flight is over; the view tells the truth. */
  reconnected() {
    this.acting = null;
    this.previewId = null;
    this.schedulePreview();
  }

  reconcile(rack, board) {
    const remaining = [...rack];
    const kept = [];
    for (const item of this.tiles) {
      const at = remaining.indexOf(item.letter);
      if (at >= 0) {
        kept.push(item);
        remaining.splice(at, 1);
      }
    }
    for (const letter of remaining) kept.push({ id: this.nextId++, letter });
    this.tiles = kept;
    const ids = new Set(kept.map((item) => item.id));
    const used = new Set();
    const before = this.pending.length;
    this.pending = this.pending.filter((p) => {
      const i = indexOf(p.row, p.col);
      const ok = ids.has(p.id) && board[i] === "." && !used.has(i);
      used.add(i);
      return ok;
    });
    if (this.pending.length !== before) this.schedulePreview();
    if (this.selected !== null && !ids.has(this.selected)) this.selected = null;
  }

  // Placing -----------------------------------------------------------------------------

  rackTiles() {
    return unplaced(this.tiles, this.pending);
  }

  pendingAt(row, col) {
    return this.pending.find((p) => p.row === row && p.col === col) || null;
  }

  boardAt(row, col) {
    return this.view?.board?.[indexOf(row, col)] ?? "#";
  }

  isFree(row, col) {
    return inside(row, col) && this.boardAt(row, col) === "." && !this.pendingAt(row, col);
  }

  async placeTile(id, row, col, blankLetter = null) {
    const item = this.tiles.find((x) => x.id === id);
    if (!item || this.over) return false;
    const moving = this.pending.find((p) => p.id === id);
    if (!this.isFree(row, col)) return false;
    let letter = item.letter;
    let blank = false;
    if (letter === BLANK) {
      blank = true;
      letter = blankLetter ?? moving?.letter ?? (await chooseBlankLetter());
      if (!letter || !this.isFree(row, col)) return false;
    }
    this.pending = this.pending.filter((p) => p.id !== id);
    this.pending.push({ id, row, col, letter, blank });
    if (this.selected === id) this.selected = null;
    this.changed();
    this.sayPlaced(row, col);
    return true;
  }

  takeBack(id) {
    const taken = this.pending.find((p) => p.id === id);
    this.pending = this.pending.filter((p) => p.id !== id);
    this.changed();
    if (taken) {
      announce(t("say.taken_back", { cell: cellName(taken.row, taken.col), letter: taken.blank ? t("tile.blank") : taken.letter }), {
        urgent: this.urgent(),
      });
    }
  }

  recallAll() {
    const any = this.pending.length > 0;
    this.pending = [];
    this.selected = null;
    this.changed();
    if (any) announce(t("say.recalled"), { urgent: this.urgent() });
  }

  changed() {
    this.message = null;
    this.schedulePreview();
    this.ui.render();
  }

  async clickCell(row, col) {
    if (!this.view || this.over) return;
    const pending = this.pendingAt(row, col);
    const before = this.cursorBefore ?? this.cursor;
    this.cursorBefore = null;
    const sameCell = before.row === row && before.col === col;
    if (this.selected !== null) {
      if (this.isFree(row, col)) {
        this.cursor = { ...this.cursor, row, col };
        await this.placeTile(this.selected, row, col);
        return;
      }
    } else if (pending) {
      this.takeBack(pending.id);
    } else if (sameCell && this.boardAt(row, col) === ".") {
      this.cursor = { ...this.cursor, across: !this.cursor.across };
    }
    this.cursor = { ...this.cursor, row, col };
    this.ui.renderBoard();
  }

  step(row, col, forward) {
    const d = forward ? 1 : -1;
    return this.cursor.across ? [row, col + d] : [row + d, col];
  }

  /** From (row, col), the next cell along the cursor's direction not holding a board tile. */
  skipTiles(row, col, forward) {
    let [r, c] = [row, col];
    while (inside(r, c) && /[a-zA-Z]/.test(this.boardAt(r, c))) [r, c] = this.step(r, c, forward);
    return [r, c];
  }

  focusCursor() {
    this.ui.renderBoard();
    this.ui.board.cell(this.cursor.row, this.cursor.col)?.focus();
  }

  moveCursor(dRow, dCol) {
    let row = this.cursor.row + dRow;
    let col = this.cursor.col + dCol;
    while (inside(row, col) && squareAt(row, col) === "wall") {
      row += dRow;
      col += dCol;
    }
    if (inside(row, col)) this.cursor = { ...this.cursor, row, col };
    this.focusCursor();
  }

  async typeLetter(letter) {
    if (!this.view || this.over) return;
    const [row, col] = this.skipTiles(this.cursor.row, this.cursor.col, true);
    if (!inside(row, col) || squareAt(row, col) === "wall") return;
    const here = this.pendingAt(row, col);
    const free = this.rackTiles().concat(here ? [this.tiles.find((x) => x.id === here.id)] : []);
    const item = free.find((x) => x.letter === letter) || free.find((x) => x.letter === BLANK);
    if (!item) {
      this.message = { kind: "info", lines: () => [t("game.no_such_tile", { letter })] };
      this.ui.renderMessage();
      return;
    }
    if (here) this.pending = this.pending.filter((p) => p !== here);
    this.cursor = { ...this.cursor, row, col };
    const placed = await this.placeTile(item.id, row, col, item.letter === BLANK ? letter : null);
    if (!placed) return;
    const [nextRow, nextCol] = this.skipTiles(...this.step(row, col, true), true);
    if (inside(nextRow, nextCol) && squareAt(nextRow, nextCol) !== "wall") {
      this.cursor = { ...this.cursor, row: nextRow, col: nextCol };
      // Then where the cursor went (said with the tile, in the same breath).
      announce(t("say.cursor", { cell: cellName(nextRow, nextCol) }), { urgent: this.urgent() });
    }
    this.focusCursor();
  }

  backspace() {
    let pending = this.pendingAt(this.cursor.row, this.cursor.col);
    if (!pending) {
      const [row, col] = this.skipTiles(...this.step(this.cursor.row, this.cursor.col, false), false);
      if (inside(row, col) && squareAt(row, col) !== "wall") {
        this.cursor = { ...this.cursor, row, col };
        pending = this.pendingAt(row, col);
      }
    }
    if (pending) this.takeBack(pending.id);
    this.focusCursor();
  }

  boardKey(event) {
    if (event.altKey || event.ctrlKey || event.metaKey || !this.view) return;
    const mirror = isRtl() ? -1 : 1;
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -mirror], ArrowRight: [0, mirror] };
    const key = event.key;
    if (moves[key]) {
      event.preventDefault();
      this.moveCursor(...moves[key]);
    } else if (key === " " || key === "Enter") {
      event.preventDefault();
      if (this.selected !== null) {
        this.placeTile(this.selected, this.cursor.row, this.cursor.col).then(() => this.focusCursor());
      } else if (key === " ") {
        this.cursor = { ...this.cursor, across: !this.cursor.across };
        this.focusCursor();
        const dir = t(this.cursor.across ? "dir.across_words" : "dir.down_words");
        announce(t("say.direction", { dir }), { urgent: this.urgent() });
      } else {
        this.validate();
      }
    } else if (key === "Backspace") {
      event.preventDefault();
      this.backspace();
    } else if (key === "Delete") {
      event.preventDefault();
      const pending = this.pendingAt(this.cursor.row, this.cursor.col);
      if (pending) this.takeBack(pending.id);
      this.focusCursor();
    } else if (key === "Escape") {
      event.preventDefault();
      this.recallAll();
      this.focusCursor();
    } else if (/^[a-zA-Z]$/.test(key)) {
      event.preventDefault();
      this.typeLetter(key.toUpperCase());
    } else if (key === "?") {
      event.preventDefault();
      this.saySummary();
    }
  }

  rackKey(event) {
    const button = event.target.closest(".rack-tile");
    if (!button || !["ArrowLeft", "ArrowRight"].includes(event.key)) return;
    event.preventDefault();
    const forward = (event.key === "ArrowRight") !== isRtl();
    const free = this.rackTiles();
    const id = Number(button.dataset.tile);
    const at = free.findIndex((x) => x.id === id);
    const to = at + (forward ? 1 : -1);
    if (to < 0 || to >= free.length) return;
    if (event.shiftKey) {
      this.moveTile(id, free[to].id, forward);
      this.ui.renderRack();
      $(`#rack [data-tile="${id}"]`)?.focus();
    } else {
      $(`#rack [data-tile="${free[to].id}"]`)?.focus();
    }
  }

  /** Move tile ``id`` next to tile ``targetId`` on the rack (after it if ``after``). */
  moveTile(id, targetId, after) {
    this.tiles = reorder(this.tiles, id, targetId, after);
  }

  async drop(source, target, event) {
    const onRack = target?.dataset.drop === "rack";
    let rackTarget = null;
    let after = false;
    if (onRack && target.dataset.tile) {
      rackTarget = Number(target.dataset.tile);
      const box = target.getBoundingClientRect();
      after = (event.clientX > box.left + box.width / 2) !== isRtl();
    }
    if (source.dataset.drag === "rack") {
      const id = Number(source.dataset.tile);
      if (target?.dataset.drop === "cell") {
        const row = Number(target.dataset.row);
        const col = Number(target.dataset.col);
        this.cursor = { ...this.cursor, row, col };
        await this.placeTile(id, row, col);
      } else if (onRack) {
        this.moveTile(id, rackTarget, after);
        this.ui.renderRack();
      }
    } else if (source.dataset.drag === "cell") {
      const index = Number(source.dataset.index);
      const pending = this.pendingAt(Math.floor(index / SIZE), index % SIZE);
      if (!pending) return;
      if (target?.dataset.drop === "cell") {
        const row = Number(target.dataset.row);
        const col = Number(target.dataset.col);
        if (this.isFree(row, col)) {
          pending.row = row;
          pending.col = col;
          this.cursor = { ...this.cursor, row, col };
          this.changed();
        }
      } else if (onRack) {
        this.moveTile(pending.id, rackTarget, after);
        this.takeBack(pending.id);
      }
    }
  }

  // Acting ------------------------------------------------------------------------------

  placeAction() {
    const tiles = this.pending.map((p) => {
      const placed = { row: p.row, col: p.col, letter: p.letter };
      if (p.blank) placed.blank = true;
      return placed;
    });
    return { place: { tiles } };
  }

  schedulePreview() {
    clearTimeout(this.previewTimer);
    this.preview = null;
    this.previewId = null;
    if (!this.pending.length || !this.view || this.over) return;
    this.previewTimer = setTimeout(() => {
      const id = this.ctx.request(
        { type: "preview", action: this.placeAction() },
        (frame) => {
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
    const seats = this.app.table?.seats?.length ?? 2;
    let without = 0;
    for (let i = this.app.log.length - 1; i >= 0 && this.app.log[i].kind !== "place"; i -= 1) without += 1;
    return without + 1 >= 2 * seats;
  }

  act(action, kind) {
    if (this.acting) return;
    const id = this.ctx.request({ type: "act", action }, (frame) => this.actReply(frame, kind));
    if (!id) return;
    this.acting = id;
    this.message = null;
    this.ui.render();
  }

  validate() {
    if (this.acting || this.over) return;
    if (!this.pending.length) {
      this.message = { kind: "info", lines: () => [t("game.place_first")] };
      this.ui.renderMessage();
      return;
    }
    if (!this.myTurn) {
      this.message = { kind: "info", lines: () => [t("reason.not_your_turn")] };
      this.ui.renderMessage();
      return;
    }
    this.act(this.placeAction(), "place");
  }

  async exchange() {
    if (this.acting || !this.myTurn) return;
    const letters = await chooseExchange(this.view.rack, this.view.bag_count);
    if (!letters || !this.myTurn) return;
    if (this.wouldEndGame()) {
      const ok = await confirmDialog({
        title: t("confirm.end_title"),
        text: t("confirm.end_exchange"),
        ok: t("confirm.end_ok"),
      });
      if (!ok) return;
    }
    this.pending = [];
    this.selected = null;
    this.schedulePreview();
    this.act({ exchange: { tiles: letters } }, "exchange");
  }

  async pass() {
    if (this.acting || !this.myTurn) return;
    if (this.wouldEndGame()) {
      const ok = await confirmDialog({
        title: t("confirm.end_title"),
        text: t("confirm.end_pass"),
        ok: t("confirm.end_ok"),
      });
      if (!ok || !this.myTurn) return;
    }
    this.act({ pass_turn: {} }, "pass");
  }

  /** R29: the seat stays, the table passes for an absent player; coming back is from home. */
  async leave() {
    if (!this.view || this.over) return;
    const ok = await confirmDialog({
      title: t("confirm.leave_title"),
      text: t("confirm.leave_text"),
      ok: t("confirm.leave_ok"),
    });
    if (ok && this.view && !this.over) this.ctx.leaveGame();
  }

  actReply(frame, kind) {
    if (frame.id === this.acting) this.acting = null;
    if (frame.type === "ack") {
      if (kind === "place") {
        if (this.app.seq >= frame.seq) this.pending = [];
        else this.clearAtSeq = frame.seq;
      }
      this.selected = null;
      this.message = null;
    } else if (frame.type === "refused") {
      this.reserve = {
        tries: frame.reserve_tries,
        max: this.view?.reserve_max ?? 10,
        nextIn: frame.reserve_next_in,
        at: Date.now() / 1000,
      };
      this.message = { kind: "refusal", reason: frame.reason, lines: () => refusalLines(frame) };
    } else if (frame.type === "error") {
      this.message = { kind: "error", lines: () => [this.ctx.errorText(frame)] };
    }
    this.ui.render();
  }
}
