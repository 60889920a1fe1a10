// @ts-check
// Noughts and crosses' table screen on the kit's turn-based layer (kit/turns.js: acting,
// refusals, narration, leaving and resigning; kit/turnscreen.js: turn line, players, log,
// message, end and rematch). What is noughts' own: the grid, the mark each seat plays (N1),
// its moves and its end in words. The client holds no rule: a mark is sent as pressed and the
// server judges it (docs/noughts.md).
import { $, el } from "../../dom.js";
import { t, tNodes } from "../../i18n.js";
import { bdi } from "../../text.js";
import { TurnGame } from "../../kit/turns.js";
import { TurnScreen } from "../../kit/turnscreen.js";
import { logItem } from "../../kit/log.js";
import { NoughtsBoard, cellName } from "./board.js";

/** N1: the host, seat 0, plays X; the other seat O. */
const MARKS = ["X", "O"];

/**
 * How the game ended, a seat's view and a log entry: docs/noughts.md.
 * @typedef {import("./board.js").Cell} Cell
 * @typedef {{cause: "full_board" | "line" | "resign", winner: number | null, line: Cell[]}} Ending
 * @typedef {{seat: number, mark: string, board: string[], turn: number, ending: Ending | null}} NoughtsView
 * @typedef {{number: number, kind: "mark" | "resign" | "result", seat: number, cell: Cell, ending: Ending}} NoughtsEntry
 */

export class NoughtsGame extends TurnGame {
  /** @param {import("../../games.js").Context} ctx */
  constructor(ctx) {
    const screen = "#screen-noughts";
    super(ctx, { game: "noughts", screen, help: `${screen} .help-box details`, leave: "#noughts-leave", resign: "#noughts-resign" });
    this.board = new NoughtsBoard($("#noughts-board"), (row, col) => {
      if (this.view && !this.over) this.act({ mark: { row, col } }, "mark");
    });
    this.start(new NoughtsScreen(this));
  }

  reset() {
    super.reset();
    this.board.reset();
  }

  /** @param {number} seat */
  seatName(seat) {
    return super.seatName(seat) || MARKS[seat];
  }

  /** No clock: the seat stays and the game waits for its player (or a resignation). */
  get leaveText() {
    return t("noughts.confirm.leave_text");
  }

  /** @param {NoughtsEntry} entry "Ana plays X: top left." (the result: the end says it) */
  spokenEntry(entry) {
    return entry.kind === "result" ? null : this.entryNode(entry);
  }

  /** @param {NoughtsEntry} entry */
  endingSays(entry) {
    return entry.kind === "resign";
  }

  spokenEnding() {
    return [t("say.end_title"), " ", this.endingNode(this.view.ending)];
  }

  startWords() {
    return this.app.log.length ? null : [t("say.game_start"), " ", t("noughts.you_play", { mark: this.view.mark })];
  }

  /** @param {NoughtsEntry} entry */
  entryNode(entry) {
    if (entry.kind === "result") return this.endingNode(entry.ending);
    const name = bdi(this.seatName(entry.seat));
    if (entry.kind === "resign") return tNodes("noughts.log.resign", { name });
    const cell = cellName(entry.cell.row, entry.cell.col);
    return tNodes("noughts.log.mark", { name, mark: bdi(MARKS[entry.seat]), cell });
  }

  /** "Three in a row: … Ana wins!", a resignation and its winner, or a draw. @param {Ending} ending */
  endingNode(ending) {
    if (ending.winner === null) return el("span", { text: t("noughts.end.full_board") });
    const cells = ending.line.map(({ row, col }) => cellName(row, col)).join(t("sep.comma"));
    const loser = bdi(this.seatName(1 - ending.winner));
    const why = ending.cause === "line" ? t("noughts.end.line", { cells }) : tNodes("noughts.log.resign", { name: loser });
    return el("span", {}, [why, " ", tNodes("end.winner", { name: bdi(this.seatName(ending.winner)) })]);
  }
}

class NoughtsScreen extends TurnScreen {
  /** @param {NoughtsGame} game */
  constructor(game) {
    const endButtons = { rematch: "noughts-rematch", joinNew: "noughts-join-new", home: "noughts-home" };
    super(game, { message: "#noughts-message", log: "#noughts-log", end: "#noughts-end", endBody: "#noughts-end", turn: "#noughts-turn", players: "#noughts-players", endButtons }, {
      logLine: (entry) => logItem(entry, game.entryNode(entry)),
      player: { beside: (seat) => [el("span", { class: "noughts-player-mark", text: MARKS[seat], data: { mark: MARKS[seat] } })] },
    });
    this.noughts = game;
  }

  render() {
    const view = this.noughts.view;
    if (!view) return;
    this.noughts.board.render({ board: view.board, over: this.noughts.over, line: view.ending?.line ?? [] });
    $("#noughts-you").textContent = t("noughts.you_play", { mark: view.mark });
    super.render();
  }

  /** @param {HTMLElement} body */
  drawEnding(body) {
    const ending = this.noughts.view.ending;
    body.append(el("h2", { text: t("end.title"), attrs: { tabindex: "-1" } }), el("p", { class: "end-winners" }, [this.noughts.endingNode(ending)]));
  }
}
