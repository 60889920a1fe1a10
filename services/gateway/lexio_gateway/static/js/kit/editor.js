// @ts-check
// A word game's table controller as every tile game shares it: a turn-based game
// (kit/turns.js) with the player's own rack in the player's order, the tiles placed this turn
// (not yet played), the selection, the cursor and its directions, typing, click-then-click,
// drag and drop, rack keys, and the reserve a refusal spends. A game subclasses it and
// supplies what differs through the hooks below (its tiles, its geometry, its words).
import { $ } from "../dom.js";
import { currentLanguage, isRtl, t } from "../i18n.js";
import { reorder, shuffle, unplaced } from "../rack.js";
import { enableDrag } from "../drag.js";
import { announce } from "../announce.js";
import { TurnGame } from "./turns.js";

/**
 * @typedef {{ id: number, letter: string, blank?: boolean, [field: string]: any }} RackItem
 * @typedef {RackItem & { row: number, col: number }} Placed
 * @typedef {{ row: number, col: number, dir: string }} Cursor
 * @typedef {import("./turns.js").Message} Message
 * @typedef {{ tries: number, max: number, nextIn: number, at: number }} Reserve
 * @typedef {import("./turns.js").TurnIds & { board: string, rack: string, shuffle: string,
 *   recall: string, validate: string }} EditorIds where the screen keeps its parts, and the
 *   game's id
 */

/** The keys that move the cursor on the board, as (row, col) steps. */
const ARROWS = ["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight"];

export class TileEditor extends TurnGame {
  /**
   * @param {import("../games.js").Context} ctx
   * @param {EditorIds} ids where the game's screen keeps its parts
   */
  constructor(ctx, ids) {
    super(ctx, ids);
    this.ids = ids;
    /** @type {RackItem[]} */ this.tiles = [];
    /** @type {Placed[]} */ this.pending = [];
    /** @type {number | null} */ this.selected = null;
    /** @type {Cursor | null} */ this.cursor = null;
    /** @type {Cursor | null} */ this.cursorBefore = null;
    this.nextId = 1;
    /** @type {Reserve | null} */ this.reserve = null;
  }

  /** Forget everything of the table before (a new table, or none). */
  resetEditor() {
    this.resetTurns();
    this.tiles = [];
    this.pending = [];
    this.selected = null;
    this.cursor = null; // where startCursor() says, once the view has come
    this.cursorBefore = null;
    this.nextId = 1;
    this.reserve = null;
  }

  reset() {
    this.resetEditor();
    this.ui.reset();
  }

  wire() {
    super.wire();
    this.wireEditor();
  }

  // Hooks a game supplies ---------------------------------------------------------------

  /** @returns {Cursor | null} where the cursor starts (null: not known before the view) */
  startCursor() {
    return null;
  }

  /** @returns {string[]} the cursor's directions, in the order Space turns through them */
  get directions() {
    return ["across", "down"];
  }

  /** @param {string} _dir @returns {string} a direction in words */
  directionWords(_dir) {
    return "";
  }

  /** @returns {number} the board's side */
  get size() {
    return 0;
  }

  /** @param {number} row @param {number} col @returns {boolean} a cell a tile may go on */
  playable(row, col) {
    return this.inside(row, col);
  }

  /** @param {number} _row @param {number} _col @returns {any} the board's tile there, or a falsy value */
  tileAt(_row, _col) {
    return null;
  }

  /** @param {string} _cell a cell of the view's board @returns {boolean} whether it is empty */
  cellEmpty(_cell) {
    return false;
  }

  /** @param {RackItem} _item @param {any} _entry @returns {boolean} the same tile as the view's */
  sameTile(_item, _entry) {
    return false;
  }

  /** @param {any} entry a tile of the view's rack @returns {RackItem} it on the player's rack */
  rackItem(entry) {
    return { id: this.nextId++, letter: String(entry) };
  }

  /** @param {RackItem} item @returns {boolean} */
  isBlank(item) {
    return Boolean(item.blank);
  }

  /** @returns {Promise<string | null>} the letter a blank stands for, or null if cancelled */
  async chooseBlank() {
    return null;
  }

  /** @returns {string} what a blank is called */
  blankWord() {
    return "";
  }

  /** @param {string} _key @returns {boolean} whether a key types a tile's letter */
  isTypingKey(_key) {
    return false;
  }

  /** @param {string} key @returns {string | null} the typed key as one of the player's letters */
  foldTyped(key) {
    return key;
  }

  /** The key typed is a letter the player cannot play (another script). */
  typedOtherScript() {}

  /** @param {RackItem[]} free @param {string} letter @returns {RackItem | undefined} the tile typing it */
  pickTile(free, letter) {
    return free.find((x) => !this.isBlank(x) && x.letter === letter) || free.find((x) => this.isBlank(x));
  }

  /** @returns {string} the message key when a typed letter is on no tile */
  get noSuchTileKey() {
    return "game.no_such_tile";
  }

  /** @returns {Record<string, [number, number]>} the arrows' (row, col) steps */
  arrowMoves() {
    return { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
  }

  /** @param {number} row @param {number} col @param {boolean} forward @returns {[number, number]} */
  step(row, col, forward) {
    const d = forward ? 1 : -1;
    return this.cursor?.dir === "across" ? [row, col + d] : [row + d, col];
  }

  /** @param {Placed} _placed @param {number} _row @param {number} _col @returns {string} */
  placedWords(_placed, _row, _col) {
    return "";
  }

  /** @param {number} _row @param {number} _col @returns {string} a cell's name ("G7") */
  cellName(_row, _col) {
    return "";
  }

  /**
   * Another use of a rack tile dropped on (row, col) than placing it (a swap): whether it did.
   * @param {number} _id @param {number} _row @param {number} _col @returns {boolean}
   */
  dropOther(_id, _row, _col) {
    return false;
  }

  /** @returns {boolean} whether a click on the cell the cursor is on says its new direction */
  get sayTurnOnClick() {
    return true;
  }

  /** @returns {{ scrollers?: () => (Element | null)[], pageScroll?: boolean }} */
  dragOptions() {
    return {};
  }

  /** @returns {any} the action that plays the tiles placed */
  placeAction() {
    return {};
  }

  /** @returns {string} the message key when nothing is placed yet */
  get placeFirstKey() {
    return "game.place_first";
  }

  /** @returns {string | null} why the tiles cannot be played now (a message key), or null */
  whyNotPlay() {
    return this.myTurn ? null : "reason.not_your_turn";
  }

  /** The tiles placed changed (they are drawn again). */
  changed() {
    this.message = null;
    this.ui.render();
  }

  /** The view took back some of the tiles placed. */
  pendingDropped() {}

  // Wiring ------------------------------------------------------------------------------

  wireEditor() {
    const board = $(this.ids.board);
    board.addEventListener("click", (event) => {
      const cell = /** @type {HTMLElement} */ (event.target).closest(".cell[data-drop]");
      if (cell instanceof HTMLElement) this.clickCell(Number(cell.dataset.row), Number(cell.dataset.col));
    });
    board.addEventListener("keydown", (event) => this.boardKey(event));
    // Where the cursor was before this press (focusing the cell moves it there).
    board.addEventListener("pointerdown", () => {
      this.cursorBefore = this.cursor ? { ...this.cursor } : null;
    });
    board.addEventListener("focusin", (event) => {
      const cell = /** @type {HTMLElement} */ (event.target).closest(".cell[data-drop]");
      if (!(cell instanceof HTMLElement) || !this.cursor) return;
      const row = Number(cell.dataset.row);
      const col = Number(cell.dataset.col);
      if (row !== this.cursor.row || col !== this.cursor.col) {
        this.cursor = { ...this.cursor, row, col };
        this.ui.renderBoard();
      }
    });
    const rack = $(this.ids.rack);
    rack.addEventListener("click", (event) => {
      const button = /** @type {HTMLElement} */ (event.target).closest(".rack-tile");
      if (!(button instanceof HTMLElement)) return;
      const id = Number(button.dataset.tile);
      this.selected = this.selected === id ? null : id;
      this.ui.renderRack();
    });
    rack.addEventListener("keydown", (event) => this.rackKey(event));
    $(this.ids.shuffle).addEventListener("click", () => {
      const free = this.rackTiles();
      shuffle(free);
      const placed = this.tiles.filter((tile) => !free.includes(tile));
      this.tiles = [...free, ...placed];
      this.ui.renderRack();
    });
    $(this.ids.recall).addEventListener("click", () => this.recallAll());
    $(this.ids.validate).addEventListener("click", () => this.validate());
    enableDrag({
      canDrag: (/** @type {HTMLElement} */ source) => Boolean(this.view) && !this.over && source.closest(this.ids.screen) !== null,
      onDrop: (/** @type {HTMLElement} */ source, /** @type {HTMLElement | null} */ target, /** @type {PointerEvent} */ event) =>
        this.drop(source, target, event),
      ...this.dragOptions(),
    });
  }

  // Server frames -----------------------------------------------------------------------

  /** A new snapshot or view (or table): the rack, the tiles placed and the reserve
   *  reconciled with it, then said and drawn (kit/turns.js). */
  update() {
    const view = this.view;
    if (view) {
      if (!this.cursor) this.cursor = this.startCursor();
      if (this.actions.viewShowsAcked(this.app.seq)) this.pending = [];
      this.reconcile(view.rack, view.board);
      this.reserve = { tries: view.reserve_tries, max: view.reserve_max, nextIn: view.reserve_next_in, at: Date.now() / 1000 };
    }
    super.update();
  }

  /** A refusal stays while the player may still play the tiles it refused. */
  refusalPast() {
    return Boolean(this.whyNotPlay());
  }

  /** @param {string} kind */
  acked(kind) {
    super.acked(kind);
    this.selected = null;
  }

  placedShown() {
    this.pending = [];
  }

  /**
   * The rack as the view has it, in the player's order (tiles kept where they were, new ones
   * at the end); tiles placed whose rack tile or cell is gone are taken back.
   * @param {any[]} rack @param {string[] | string} board
   */
  reconcile(rack, board) {
    const remaining = [...rack];
    const kept = [];
    for (const item of this.tiles) {
      const at = remaining.findIndex((entry) => this.sameTile(item, entry));
      if (at >= 0) {
        kept.push(item);
        remaining.splice(at, 1);
      }
    }
    for (const entry of remaining) kept.push(this.rackItem(entry));
    this.tiles = kept;
    const ids = new Set(kept.map((item) => item.id));
    const used = new Set();
    const before = this.pending.length;
    this.pending = this.pending.filter((p) => {
      const i = p.row * this.size + p.col;
      const ok = ids.has(p.id) && this.cellEmpty(board[i]) && !used.has(i);
      used.add(i);
      return ok;
    });
    if (this.pending.length !== before) this.pendingDropped();
    if (this.selected !== null && !ids.has(this.selected)) this.selected = null;
  }

  /** @returns {any} the last log entry that placed tiles, or null */
  lastMove() {
    const log = this.app.log;
    for (let i = log.length - 1; i >= 0; i -= 1) if (log[i].kind === "place") return log[i];
    return null;
  }

  /** @returns {boolean} whether the cursor is drawn after the end */
  get cursorAfterEnd() {
    return true;
  }

  /** What the board shows now (kit/board.js's render). */
  boardState() {
    const size = this.size;
    const at = (/** @type {{ row: number, col: number }} */ p) => p.row * size + p.col;
    return {
      board: this.view.board,
      pending: new Map(this.pending.map((p) => [at(p), p])),
      cursor: this.over && !this.cursorAfterEnd ? null : this.cursor,
      last: new Set((this.lastMove()?.tiles ?? []).map(at)),
      lang: currentLanguage(),
    };
  }

  // What the live region says ----------------------------------------------------------

  /** @param {number} row @param {number} col */
  sayPlaced(row, col) {
    const placed = this.pendingAt(row, col);
    if (placed) announce(this.placedWords(placed, row, col), { urgent: this.urgent() });
  }

  // Placing -----------------------------------------------------------------------------

  /** @param {number} row @param {number} col */
  inside(row, col) {
    return row >= 0 && row < this.size && col >= 0 && col < this.size;
  }

  rackTiles() {
    return unplaced(this.tiles, this.pending);
  }

  /** @param {number} row @param {number} col @returns {Placed | null} */
  pendingAt(row, col) {
    return this.pending.find((p) => p.row === row && p.col === col) || null;
  }

  /** @param {number} row @param {number} col */
  isFree(row, col) {
    return this.inside(row, col) && this.playable(row, col) && !this.tileAt(row, col) && !this.pendingAt(row, col);
  }

  /** @param {number} id @param {number} row @param {number} col @param {string | null} blankLetter */
  async placeTile(id, row, col, blankLetter = null) {
    const item = this.tiles.find((x) => x.id === id);
    if (!item || this.over || !this.isFree(row, col)) return false;
    const moving = this.pending.find((p) => p.id === id);
    const blank = this.isBlank(item);
    let letter = item.letter;
    if (blank) {
      const chosen = blankLetter ?? moving?.letter ?? (await this.chooseBlank());
      if (!chosen || !this.isFree(row, col)) return false;
      letter = chosen;
    }
    this.pending = this.pending.filter((p) => p.id !== id);
    this.pending.push({ ...item, id, row, col, letter, blank });
    if (this.selected === id) this.selected = null;
    this.changed();
    this.sayPlaced(row, col);
    return true;
  }

  /** @param {number} id */
  takeBack(id) {
    const taken = this.pending.find((p) => p.id === id);
    this.pending = this.pending.filter((p) => p.id !== id);
    this.changed();
    if (taken) {
      const letter = taken.blank ? this.blankWord() : taken.letter;
      announce(t("say.taken_back", { cell: this.cellName(taken.row, taken.col), letter }), { urgent: this.urgent() });
    }
  }

  recallAll() {
    const any = this.pending.length > 0;
    this.pending = [];
    this.selected = null;
    this.changed();
    if (any) announce(t("say.recalled"), { urgent: this.urgent() });
  }

  /** @param {number} row @param {number} col */
  async clickCell(row, col) {
    if (!this.view || this.over || !this.cursor) return;
    const pending = this.pendingAt(row, col);
    const before = this.cursorBefore ?? this.cursor;
    this.cursorBefore = null;
    const sameCell = before.row === row && before.col === col;
    this.cursor = { ...this.cursor, row, col };
    if (this.selected !== null) {
      if (this.dropOther(this.selected, row, col)) return;
      if (this.isFree(row, col)) {
        await this.placeTile(this.selected, row, col);
        return;
      }
    } else if (pending) {
      this.takeBack(pending.id);
    } else if (sameCell && !this.tileAt(row, col)) {
      this.turnDirection(this.sayTurnOnClick);
    }
    this.ui.renderBoard();
  }

  /** The cursor's next direction (Space, or a second click on its cell). */
  turnDirection(say = true) {
    if (!this.cursor) return;
    const dirs = this.directions;
    const dir = dirs[(dirs.indexOf(this.cursor.dir) + 1) % dirs.length];
    this.cursor = { ...this.cursor, dir };
    if (say) announce(t("say.direction", { dir: this.directionWords(dir) }), { urgent: this.urgent() });
  }

  /**
   * From (row, col), the next cell along the cursor's direction not holding a board tile.
   * @param {number} row @param {number} col @param {boolean} forward @returns {[number, number]}
   */
  skipTiles(row, col, forward) {
    let [r, c] = [row, col];
    while (this.inside(r, c) && this.tileAt(r, c)) [r, c] = this.step(r, c, forward);
    return [r, c];
  }

  focusBoard() {
    this.focusCursor();
  }

  focusCursor() {
    this.ui.renderBoard();
    if (this.cursor) this.ui.board.cell(this.cursor.row, this.cursor.col)?.focus();
  }

  /** @param {number} dRow @param {number} dCol */
  moveCursor(dRow, dCol) {
    if (!this.cursor) return;
    let row = this.cursor.row + dRow;
    let col = this.cursor.col + dCol;
    while (this.inside(row, col) && !this.playable(row, col)) {
      row += dRow;
      col += dCol;
    }
    if (this.inside(row, col)) this.cursor = { ...this.cursor, row, col };
    this.focusCursor();
  }

  /** @param {string} key */
  async typeLetter(key) {
    if (!this.view || this.over || !this.cursor) return;
    const letter = this.foldTyped(key);
    if (!letter) {
      this.typedOtherScript();
      return;
    }
    const [row, col] = this.skipTiles(this.cursor.row, this.cursor.col, true);
    if (!this.inside(row, col) || !this.playable(row, col)) return;
    const here = this.pendingAt(row, col);
    const hereItem = here ? this.tiles.find((x) => x.id === here.id) : undefined;
    const free = this.rackTiles().concat(hereItem ? [hereItem] : []);
    const item = this.pickTile(free, letter);
    if (!item) {
      this.info(this.noSuchTileKey, { letter });
      return;
    }
    if (here) this.pending = this.pending.filter((p) => p !== here);
    this.cursor = { ...this.cursor, row, col };
    const placed = await this.placeTile(item.id, row, col, this.isBlank(item) ? letter : null);
    if (!placed) return;
    const [nextRow, nextCol] = this.skipTiles(...this.step(row, col, true), true);
    if (this.inside(nextRow, nextCol) && this.playable(nextRow, nextCol)) {
      this.cursor = { ...this.cursor, row: nextRow, col: nextCol };
      // Then where the cursor went (said with the tile, in the same breath).
      announce(t("say.cursor", { cell: this.cellName(nextRow, nextCol) }), { urgent: this.urgent() });
    }
    this.focusCursor();
  }

  backspace() {
    if (!this.cursor) return;
    let pending = this.pendingAt(this.cursor.row, this.cursor.col);
    if (!pending) {
      const [row, col] = this.skipTiles(...this.step(this.cursor.row, this.cursor.col, false), false);
      if (this.inside(row, col) && this.playable(row, col)) {
        this.cursor = { ...this.cursor, row, col };
        pending = this.pendingAt(row, col);
      }
    }
    if (pending) this.takeBack(pending.id);
    this.focusCursor();
  }

  /** The selected rack tile under the cursor: placed (or used as dropOther says). */
  async placeSelected() {
    if (!this.cursor || this.selected === null) return;
    const { row, col } = this.cursor;
    if (!this.dropOther(this.selected, row, col)) await this.placeTile(this.selected, row, col);
    this.focusCursor();
  }

  /** @param {KeyboardEvent} event */
  boardKey(event) {
    if (event.altKey || event.ctrlKey || event.metaKey || !this.view || !this.cursor) return;
    const moves = this.arrowMoves();
    const key = event.key;
    if (ARROWS.includes(key)) {
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
    } else if (key === "?" || key === "؟") {
      // "?", or "؟" (U+061F): what an Arabic layout sends for the same key.
      event.preventDefault();
      if (!event.repeat) this.saySummary();
    } else if (key === "End") {
      event.preventDefault();
      this.jumpTo(this.lastMove()?.tiles ?? [], t("game.log_empty"));
    } else if (key === "PageDown" || key === "PageUp") {
      event.preventDefault();
      this.jumpTo(this.pending, t(this.placeFirstKey), key === "PageUp");
    } else if (this.isTypingKey(key)) {
      event.preventDefault();
      this.typeLetter(key);
    }
  }

  /**
   * The cursor to the next of ``cells`` in reading order (End: the last move's tiles;
   * PageDown/PageUp: the tiles placed this turn, forwards/backwards), round again after the
   * last: a player who cannot see the board finds them without walking cell by cell. Where
   * it lands is said; ``none`` is said when there is no such cell.
   * @param {{ row: number, col: number }[]} cells @param {string} none @param {boolean} back
   */
  jumpTo(cells, none, back = false) {
    if (!this.cursor) return;
    if (!cells.length) {
      announce(none, { urgent: this.urgent() });
      return;
    }
    const order = [...cells].sort((a, b) => a.row - b.row || a.col - b.col);
    if (back) order.reverse();
    const at = order.findIndex((c) => c.row === this.cursor?.row && c.col === this.cursor?.col);
    const next = order[(at + 1) % order.length];
    this.cursor = { ...this.cursor, row: next.row, col: next.col };
    this.focusCursor();
    announce(t("say.cursor", { cell: this.cellName(next.row, next.col) }), { urgent: this.urgent() });
  }

  /** The "?" key on the board: what a sighted player sees at a glance (said as an answer:
   *  announce.js). */
  saySummary() {}

  /** @param {KeyboardEvent} event */
  rackKey(event) {
    const button = /** @type {HTMLElement} */ (event.target).closest(".rack-tile");
    if (!(button instanceof HTMLElement) || !["ArrowLeft", "ArrowRight"].includes(event.key)) return;
    event.preventDefault();
    const forward = (event.key === "ArrowRight") !== isRtl();
    const free = this.rackTiles();
    const id = Number(button.dataset.tile);
    const at = free.findIndex((x) => x.id === id);
    const to = at + (forward ? 1 : -1);
    if (to < 0 || to >= free.length) return;
    const root = $(this.ids.rack);
    if (event.shiftKey) {
      this.moveTile(id, free[to].id, forward);
      this.ui.renderRack();
      /** @type {HTMLElement | null} */ (root.querySelector(`[data-tile="${id}"]`))?.focus();
    } else {
      /** @type {HTMLElement | null} */ (root.querySelector(`[data-tile="${free[to].id}"]`))?.focus();
    }
  }

  /** Move tile ``id`` next to tile ``targetId`` on the rack (after it if ``after``).
   *  @param {number} id @param {number | null} targetId @param {boolean} after */
  moveTile(id, targetId, after) {
    this.tiles = reorder(this.tiles, id, targetId, after);
  }

  /** @param {HTMLElement} source @param {HTMLElement | null} target @param {PointerEvent} event */
  async drop(source, target, event) {
    const onRack = target?.dataset.drop === "rack";
    let rackTarget = null;
    let after = false;
    if (target && onRack && target.dataset.tile) {
      rackTarget = Number(target.dataset.tile);
      const box = target.getBoundingClientRect();
      after = (event.clientX > box.left + box.width / 2) !== isRtl();
    }
    const onCell = target?.dataset.drop === "cell";
    const row = Number(target?.dataset.row);
    const col = Number(target?.dataset.col);
    if (source.dataset.drag === "rack") {
      const id = Number(source.dataset.tile);
      if (onCell) {
        this.cursor = this.cursor && { ...this.cursor, row, col };
        if (!this.dropOther(id, row, col)) await this.placeTile(id, row, col);
      } else if (onRack) {
        this.moveTile(id, rackTarget, after);
        this.ui.renderRack();
      }
    } else if (source.dataset.drag === "cell") {
      const index = Number(source.dataset.index);
      const pending = this.pendingAt(Math.floor(index / this.size), index % this.size);
      if (!pending) return;
      if (onCell) {
        if (this.isFree(row, col)) {
          pending.row = row;
          pending.col = col;
          this.cursor = this.cursor && { ...this.cursor, row, col };
          this.changed();
        }
      } else if (onRack) {
        this.moveTile(pending.id, rackTarget, after);
        this.takeBack(pending.id);
      }
    }
  }

  // Acting ------------------------------------------------------------------------------

  validate() {
    if (this.acting || this.over) return;
    const why = this.pending.length ? this.whyNotPlay() : this.placeFirstKey;
    if (why) this.info(why);
    else this.act(this.placeAction(), "place");
  }

  /** @param {any} frame a refusal of an act: the reserve it leaves, and why */
  refused(frame) {
    this.reserve = {
      tries: frame.reserve_tries,
      max: this.view?.reserve_max ?? 10,
      nextIn: frame.reserve_next_in,
      at: Date.now() / 1000,
    };
    super.refused(frame);
  }
}
