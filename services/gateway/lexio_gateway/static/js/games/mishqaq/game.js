// al-Mishqaq's table screen, its controller (games.js): the tiles placed this turn (not yet
// played), the cursor, blanks and their swap (M26, M27), playing, passing, the meaning pause
// (M30), resigning (M31), the chess clock as the view states it (M28). Drawing is
// mishqaq-view.js's; the server judges every move (M25: no preview).
import { $, clear, el } from "../../dom.js";
import { isRtl, onLanguageChange, t, tNodes } from "../../i18n.js";
import { reorder, shuffle, unplaced } from "../../rack.js";
import { enableDrag } from "../../drag.js";
import { confirmDialog, open } from "../../dialogs.js";
import { announce } from "../../announce.js";
import { bdi } from "../../text.js";
import {
  LETTERS,
  RED,
  SIZE,
  cellName,
  foldKey,
  indexOf,
  inside,
  isLetterKey,
  otherSide,
  parseCell,
} from "./tiles.js";
import { entryNode, sideName, spokenEnding, wordNode } from "./panels.js";
import { tileWords } from "./board.js";
import { MishqaqView, URGENT } from "./view.js";

const DIRECTIONS = ["across", "down", "up"];
/** Own clock warnings (M28), in seconds left: said once each per game. */
const WARNINGS = [300, 60, URGENT];
/** M11, M35: a rack holds at most 12 tiles; a pass then draws nothing. */
const RACK_MAX = 12;
const DRAW = 3;
/** Log entries that are not turns (M35 counts turns). */
const NOT_TURNS = new Set(["pause", "resume", "pause_expired", "swap", "opening"]);

/** M26: the letter a blank stands for, among its owner's script; null if cancelled. */
async function chooseBlankLetter(side) {
  const dialog = $("#dlg-mq-blank");
  const grid = $("#mq-blank-letters", dialog);
  if (grid.dataset.side !== side) {
    clear(grid);
    grid.dataset.side = side;
    for (const letter of LETTERS[side]) {
      grid.append(
        el("button", {
          class: "letter-choice",
          text: letter,
          attrs: { type: "button", lang: side === "arabic" ? "ar" : null },
          data: { letter },
          on: { click: () => dialog.close(letter) },
        }),
      );
    }
  }
  const letter = await open(dialog, (event) => {
    const typed = foldKey(event.key, side);
    if (typed && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      dialog.close(typed);
    }
  });
  return LETTERS[side].includes(letter) && letter.length === 1 ? letter : null;
}

export class MishqaqGame {
  /** ctx: { app, request(frame, onReply, options) → id | null, errorText(frame), toast(text),
   *  joinNewTable(code), goHome(), leaveGame() } */
  constructor(ctx) {
    this.ctx = ctx;
    this.ui = new MishqaqView(this);
    this.reset();
    this.wire();
    setInterval(() => this.ui.tick(), 250);
  }

  reset() {
    this.tiles = []; // own rack, in the player's order: [{id, code, letter, partner, blank, owner}]
    this.pending = []; // placed this turn: [{id, row, col, code, letter, partner, blank, owner}]
    this.selected = null;
    this.cursor = null; // {row, col, dir: across|down|up}; at the own red square to begin with
    this.cursorBefore = null;
    this.nextId = 1;
    this.message = null;
    this.acting = null;
    this.clearAtSeq = null;
    this.reserve = null;
    this.viewAt = 0; // local seconds when the view arrived (its banks count from then)
    // What the live region has said of this table: the last log entry, whose turn, which
    // clock warnings (M28).
    this.heardNumber = null;
    this.turnKey = null;
    this.warned = new Set();
    this.expiredPause = null;
    this.ui.reset();
  }

  get app() {
    return this.ctx.app;
  }

  /** The view, when the table is an al-Mishqaq one. */
  get view() {
    return this.app.table?.game === "mishqaq" ? this.app.view : null;
  }

  get table() {
    return this.app.table;
  }

  get side() {
    return this.view?.side ?? "latin";
  }

  get over() {
    return Boolean(this.view?.ending);
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
   *  pause that ran out meanwhile); the other's stands (M28). */
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

  // Wiring ------------------------------------------------------------------------------

  wire() {
    const board = $("#mq-board");
    board.addEventListener("click", (event) => {
      const cell = event.target.closest(".cell[data-drop]");
      if (cell) this.clickCell(Number(cell.dataset.row), Number(cell.dataset.col));
    });
    board.addEventListener("keydown", (event) => this.boardKey(event));
    board.addEventListener("pointerdown", () => {
      this.cursorBefore = this.cursor ? { ...this.cursor } : null;
    });
    board.addEventListener("focusin", (event) => {
      const cell = event.target.closest(".cell[data-drop]");
      if (!cell || !this.cursor) return;
      const row = Number(cell.dataset.row);
      const col = Number(cell.dataset.col);
      if (row !== this.cursor.row || col !== this.cursor.col) {
        this.cursor = { ...this.cursor, row, col };
        this.ui.renderBoard();
      }
    });
    const rack = $("#mq-rack");
    rack.addEventListener("click", (event) => {
      const button = event.target.closest(".rack-tile");
      if (!button) return;
      const id = Number(button.dataset.tile);
      this.selected = this.selected === id ? null : id;
      this.ui.renderRack();
    });
    rack.addEventListener("keydown", (event) => this.rackKey(event));
    $("#mq-shuffle").addEventListener("click", () => {
      const free = this.rackTiles();
      shuffle(free);
      const placed = this.tiles.filter((tile) => !free.includes(tile));
      this.tiles = [...free, ...placed];
      this.ui.renderRack();
    });
    $("#mq-recall").addEventListener("click", () => this.recallAll());
    $("#mq-validate").addEventListener("click", () => this.validate());
    $("#mq-pass").addEventListener("click", () => this.pass());
    $("#mq-pause").addEventListener("click", () => this.togglePause());
    $("#mq-resign").addEventListener("click", () => this.resign());
    $("#mq-leave").addEventListener("click", () => this.leave());
    $("#mq-pause-panel").addEventListener("click", (event) => {
      if (event.target.closest("#mq-resume")) this.togglePause();
    });
    enableDrag({
      canDrag: (source) => Boolean(this.view) && !this.over && source.closest("#screen-mishqaq") !== null,
      onDrop: (source, target, event) => this.drop(source, target, event),
      scrollers: () => [$("#mq-board-wrap")],
      pageScroll: false,
    });
    onLanguageChange(() => {
      this.ui.reset(false);
      this.ui.render();
    });
    document.addEventListener("visibilitychange", () => this.ui.renderAttention());
  }

  // Server frames -----------------------------------------------------------------------

  update() {
    const view = this.view;
    if (!view) return;
    this.viewAt = Date.now() / 1000;
    if (!this.cursor) {
      const [row, col] = RED[view.side];
      this.cursor = { row, col, dir: "across" };
    }
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
    if ((!this.myTurn || this.paused) && this.message?.kind === "refusal") this.message = null;
    this.hear();
    this.ui.render();
  }

  render() {
    this.ui.render();
  }

  reconnected() {
    this.acting = null;
  }

  reconcile(rack, board) {
    const remaining = [...rack];
    const kept = [];
    for (const item of this.tiles) {
      const at = remaining.findIndex((tile) => tile.code === item.code);
      if (at >= 0) {
        kept.push(item);
        remaining.splice(at, 1);
      }
    }
    for (const tile of remaining) {
      kept.push({ id: this.nextId++, code: tile.code, letter: tile.letter, partner: tile.partner, blank: tile.blank, owner: tile.owner });
    }
    this.tiles = kept;
    const ids = new Set(kept.map((item) => item.id));
    const used = new Set();
    this.pending = this.pending.filter((p) => {
      const i = indexOf(p.row, p.col);
      const ok = ids.has(p.id) && !board[i] && !used.has(i);
      used.add(i);
      return ok;
    });
    if (this.selected !== null && !ids.has(this.selected)) this.selected = null;
  }

  // What the live region says ------------------------------------------------------------

  /** The last seconds of the player's own clock: what is said then is said at once. */
  urgent() {
    return this.myTurn && !this.paused && this.bank(this.side) <= URGENT;
  }

  /**
   * Say what happened since the last frame: each new log entry (both sides' moves, with
   * their words and directions), then whose turn it is, or the end. Nothing of the past
   * when the page (re)opens a game.
   */
  hear() {
    const view = this.view;
    const table = this.table;
    const log = this.app.log;
    const first = this.heardNumber === null;
    const lastNumber = log.length ? log[log.length - 1].number : 0;
    if (!first) {
      for (const entry of log) {
        const ranOut = entry.kind === "pause_expired" && entry.at === this.expiredPause;
        if (entry.number > this.heardNumber && entry.kind !== "result" && !ranOut) {
          announce(entryNode(entry, table, { spoken: true }), { urgent: this.urgent() });
        }
      }
    }
    this.heardNumber = Math.max(this.heardNumber ?? 0, lastNumber);
    const key = this.over ? "over" : view.turn;
    if (key === this.turnKey) return;
    this.turnKey = key;
    if (this.over) {
      announce(spokenEnding(table, view));
      return;
    }
    const turn = this.myTurn ? t("game.your_turn") : tNodes("say.turn_of", { name: bdi(sideName(table, view.turn)) });
    if (first && log.every((entry) => entry.kind === "opening")) {
      announce([t("say.game_start"), " ", t("mq.say.you_play", { side: t(`mq.side.${this.side}`) }), " ", turn]);
    } else {
      announce(turn);
    }
  }

  /** The meaning pause ran out by itself (the page saw it end; no frame came): said once. */
  pauseRanOut(pause) {
    this.expiredPause = pause.until;
    announce(tNodes("mq.log.pause_expired", { name: bdi(sideName(this.table, pause.by)) }));
  }

  /** Four times a second while the player's own clock runs: 5 min, 1 min, 10 s (M28). */
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

  /** "B11 : R ر, jeton latin bilingue, posé ce tour." */
  sayPlaced(row, col) {
    const placed = this.pendingAt(row, col);
    if (!placed) return;
    announce(t("mq.say.placed", { cell: cellName(row, col), tile: tileWords(placed) }), { urgent: this.urgent() });
  }

  /** The "?" key on the board: both clocks, the rack, the bags. */
  saySummary() {
    const view = this.view;
    if (!view) return;
    const parts = [];
    if (!this.over) {
      if (this.paused) parts.push(tNodes("mq.status.paused", { name: bdi(sideName(this.table, view.pause.by)) }));
      else parts.push(this.myTurn ? t("game.your_turn") : tNodes("say.turn_of", { name: bdi(sideName(this.table, view.turn)) }));
      for (const side of ["latin", "arabic"]) {
        parts.push(" ", tNodes("mq.say.bank", { name: bdi(sideName(this.table, side)), time: this.ui.timeWords(this.bank(side)) }));
      }
      parts.push(" ");
    }
    const rack = this.rackTiles().map((item) => tileWords(item));
    parts.push(rack.length ? t("say.rack", { letters: rack.join(t("say.word_sep")) }) : t("game.rack_empty"), " ");
    parts.push(t("mq.say.bags", { latin: view.latin_bag_count, arabic: view.arabic_bag_count }));
    announce(parts, { urgent: this.urgent() });
  }

  // Placing -----------------------------------------------------------------------------

  rackTiles() {
    return unplaced(this.tiles, this.pending);
  }

  pendingAt(row, col) {
    return this.pending.find((p) => p.row === row && p.col === col) || null;
  }

  boardAt(row, col) {
    return parseCell(this.view?.board?.[indexOf(row, col)] ?? "");
  }

  isFree(row, col) {
    return inside(row, col) && !this.boardAt(row, col) && !this.pendingAt(row, col);
  }

  /** One of the player's own blanks on the board (M27: only its owner may swap it). */
  ownBlankAt(row, col) {
    const tile = this.boardAt(row, col);
    return tile && tile.blank && tile.owner === this.side ? tile : null;
  }

  info(key, params = {}) {
    this.message = { kind: "info", lines: () => [t(key, params)] };
    this.ui.renderMessage();
  }

  async placeTile(id, row, col, blankLetter = null) {
    const item = this.tiles.find((x) => x.id === id);
    if (!item || this.over || !this.isFree(row, col)) return false;
    const moving = this.pending.find((p) => p.id === id);
    let letter = item.letter;
    if (item.blank) {
      letter = blankLetter ?? moving?.letter ?? (await chooseBlankLetter(this.side));
      if (!letter || !this.isFree(row, col)) return false;
    }
    this.pending = this.pending.filter((p) => p.id !== id);
    this.pending.push({ ...item, id, row, col, letter });
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
      const letter = taken.blank ? t("mq.blank") : taken.letter;
      announce(t("say.taken_back", { cell: cellName(taken.row, taken.col), letter }), { urgent: this.urgent() });
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
    this.ui.render();
  }

  /**
   * M27: the rack tile ``id`` onto the player's own blank at (row, col): it must bear the
   * blank's letter (a blank cannot replace a blank); swapped on the player's own turn,
   * before placing or passing; the blank comes back to the rack.
   */
  swap(id, row, col) {
    const blank = this.ownBlankAt(row, col);
    const item = this.tiles.find((x) => x.id === id);
    if (!blank || !item) return false;
    if (item.blank || item.letter !== blank.letter) {
      this.info("mq.swap_letter", { letter: blank.letter, cell: cellName(row, col) });
      return true;
    }
    if (!this.myTurn) {
      this.info("reason.not_your_turn");
      return true;
    }
    if (this.paused) {
      this.info("mq.reason.paused");
      return true;
    }
    this.selected = null;
    this.act({ swap: { row, col, tile: item.code } }, "swap");
    return true;
  }

  async clickCell(row, col) {
    if (!this.view || this.over || !this.cursor) return;
    const pending = this.pendingAt(row, col);
    const before = this.cursorBefore ?? this.cursor;
    this.cursorBefore = null;
    const sameCell = before.row === row && before.col === col;
    this.cursor = { ...this.cursor, row, col };
    if (this.selected !== null) {
      if (this.ownBlankAt(row, col)) {
        this.swap(this.selected, row, col);
        this.ui.renderBoard();
        return;
      }
      if (this.isFree(row, col)) {
        await this.placeTile(this.selected, row, col);
        return;
      }
    } else if (pending) {
      this.takeBack(pending.id);
    } else if (sameCell && !this.boardAt(row, col)) {
      this.turnDirection();
    }
    this.ui.renderBoard();
  }

  /** One step along the cursor's direction: across is the player's reading direction (M20:
   *  rightwards for Latin, leftwards for Arabic), down and up follow a column. */
  step(row, col, forward) {
    const d = forward ? 1 : -1;
    const dir = this.cursor.dir;
    if (dir === "across") return [row, col + (this.side === "arabic" ? -d : d)];
    return dir === "down" ? [row + d, col] : [row - d, col];
  }

  skipTiles(row, col, forward) {
    let [r, c] = [row, col];
    while (inside(r, c) && this.boardAt(r, c)) [r, c] = this.step(r, c, forward);
    return [r, c];
  }

  focusCursor() {
    this.ui.renderBoard();
    this.ui.board.cell(this.cursor.row, this.cursor.col)?.focus();
  }

  moveCursor(dRow, dCol) {
    const row = this.cursor.row + dRow;
    const col = this.cursor.col + dCol;
    if (inside(row, col)) this.cursor = { ...this.cursor, row, col };
    this.focusCursor();
  }

  turnDirection() {
    const dir = DIRECTIONS[(DIRECTIONS.indexOf(this.cursor.dir) + 1) % DIRECTIONS.length];
    this.cursor = { ...this.cursor, dir };
    announce(t("say.direction", { dir: t(`mq.dir.${dir}`) }), { urgent: this.urgent() });
  }

  async typeLetter(key) {
    if (!this.view || this.over) return;
    const letter = foldKey(key, this.side);
    if (!letter) {
      this.info(`mq.other_script_${this.side}`);
      return;
    }
    const [row, col] = this.skipTiles(this.cursor.row, this.cursor.col, true);
    if (!inside(row, col)) return;
    const here = this.pendingAt(row, col);
    const free = this.rackTiles().concat(here ? [this.tiles.find((x) => x.id === here.id)] : []);
    // A plain tile first: a bilingual one is readable by the other side too (M17).
    const item =
      free.find((x) => !x.blank && x.letter === letter && !x.partner) ||
      free.find((x) => !x.blank && x.letter === letter) ||
      free.find((x) => x.blank);
    if (!item) {
      this.info("mq.no_such_tile", { letter });
      return;
    }
    if (here) this.pending = this.pending.filter((p) => p !== here);
    this.cursor = { ...this.cursor, row, col };
    const placed = await this.placeTile(item.id, row, col, item.blank ? letter : null);
    if (!placed) return;
    const [nextRow, nextCol] = this.skipTiles(...this.step(row, col, true), true);
    if (inside(nextRow, nextCol)) {
      this.cursor = { ...this.cursor, row: nextRow, col: nextCol };
      announce(t("say.cursor", { cell: cellName(nextRow, nextCol) }), { urgent: this.urgent() });
    }
    this.focusCursor();
  }

  backspace() {
    let pending = this.pendingAt(this.cursor.row, this.cursor.col);
    if (!pending) {
      const [row, col] = this.skipTiles(...this.step(this.cursor.row, this.cursor.col, false), false);
      if (inside(row, col)) {
        this.cursor = { ...this.cursor, row, col };
        pending = this.pendingAt(row, col);
      }
    }
    if (pending) this.takeBack(pending.id);
    this.focusCursor();
  }

  /** The selected rack tile under the cursor: placed, or swapped onto the player's blank. */
  async placeSelected() {
    const { row, col } = this.cursor;
    if (this.ownBlankAt(row, col)) this.swap(this.selected, row, col);
    else await this.placeTile(this.selected, row, col);
    this.focusCursor();
  }

  boardKey(event) {
    if (event.altKey || event.ctrlKey || event.metaKey || !this.view || !this.cursor) return;
    // Never mirrored (M4): Left is towards column A in every language.
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    const key = event.key;
    if (moves[key]) {
      event.preventDefault();
      this.moveCursor(...moves[key]);
    } else if (key === " " || key === "Enter") {
      event.preventDefault();
      if (this.selected !== null) {
        this.placeSelected();
      } else if (key === " ") {
        this.turnDirection();
        this.focusCursor();
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
    } else if (key === "?") {
      event.preventDefault();
      this.saySummary();
    } else if (isLetterKey(key)) {
      event.preventDefault();
      this.typeLetter(key);
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
      $(`#mq-rack [data-tile="${id}"]`)?.focus();
    } else {
      $(`#mq-rack [data-tile="${free[to].id}"]`)?.focus();
    }
  }

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
        if (this.ownBlankAt(row, col)) {
          this.swap(id, row, col);
          this.ui.renderBoard();
        } else {
          await this.placeTile(id, row, col);
        }
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
      const placed = { row: p.row, col: p.col, tile: p.code };
      if (p.blank) placed.as = p.letter;
      return placed;
    });
    return { place: { tiles } };
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

  act(action, kind, { always = false } = {}) {
    if (this.acting && !always) return;
    const id = this.ctx.request({ type: "act", action }, (frame) => this.actReply(frame, kind));
    if (!id) return;
    this.acting = id;
    this.message = null;
    this.ui.render();
  }

  validate() {
    if (this.acting || this.over) return;
    if (!this.pending.length) this.info("mq.place_first");
    else if (!this.myTurn) this.info("reason.not_your_turn");
    else if (this.paused) this.info("mq.reason.paused");
    else this.act(this.placeAction(), "place");
  }

  async pass() {
    if (this.acting || !this.myTurn || this.paused) return;
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
    if (this.over) return;
    if (this.pausedByMe) this.act({ resume: {} }, "resume");
    else if (!this.paused) this.act({ pause: {} }, "pause");
  }

  /** M31: at any moment, also out of turn and during a pause; asked first. */
  async resign() {
    if (!this.view || this.over) return;
    const ok = await confirmDialog({
      title: t("mq.confirm.resign_title"),
      text: t("mq.confirm.resign_text", { name: sideName(this.table, otherSide(this.side)) }),
      ok: t("mq.confirm.resign_ok"),
    });
    if (ok && this.view && !this.over) this.act({ resign: {} }, "resign", { always: true });
  }

  /** M32: the seat stays and the clock runs as if the player were thinking. */
  async leave() {
    if (!this.view || this.over) return;
    const ok = await confirmDialog({ title: t("confirm.leave_title"), text: t("mq.confirm.leave_text"), ok: t("confirm.leave_ok") });
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
      this.message = { kind: "refusal", reason: frame.reason, lines: () => this.refusalLines(frame) };
    } else if (frame.type === "error") {
      this.message = { kind: "error", lines: () => [this.ctx.errorText(frame)] };
    }
    this.ui.render();
  }

  /** M24 (as R19): every unknown word named, never "does not exist"; then the reserve. */
  refusalLines(frame) {
    if (frame.reason !== "unknown_words") return [this.ui.reasonText(frame.reason)];
    const latin = this.table?.options?.latin;
    return [
      ...(frame.words || []).map((word) => tNodes("refusal.unknown_word", { word: wordNode(word, this.side, latin) })),
      t("mq.refusal.reserve_left", { count: frame.reserve_tries }),
      t("refusal.keep_turn"),
    ];
  }
}

