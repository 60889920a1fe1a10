// @ts-check
// The narrator of a table screen: what the live region says as frames come. Each new log
// entry, then whose turn it is, or the end; nothing of the past when the page (re)opens a game.
// The game's words come from its screen (the hooks of NarratorHost, which a TileEditor has).
import { t, tNodes } from "../i18n.js";
import { announce } from "../announce.js";
import { bdi } from "../text.js";
import { finishedGame } from "./firstgame.js";

/**
 * @typedef {object} NarratorHost the screen whose game the narrator tells
 * @property {any} app the app (its log)
 * @property {boolean} over whether the game is over
 * @property {boolean} myTurn whether the player is to move
 * @property {(entry: any) => any} spokenEntry a log entry as said, or null
 * @property {() => boolean} entriesUrgent whether the entries are said at once
 * @property {(entry: any) => boolean} endingSays whether the end's own sentence says the entry
 * @property {() => string} currentTurnKey what changes when another player is to move
 * @property {() => void} turnChanged a new turn (or the end)
 * @property {() => string} moverName the name of the player to move
 * @property {() => any} spokenEnding the end as said
 * @property {() => any[] | null} startWords what is said before the first turn, or null
 */

export class Narrator {
  /** @param {NarratorHost} host @param {string} game the game's id (its first game ended) */
  constructor(host, game) {
    this.host = host;
    this.game = game;
    /** @type {number | null} the number of the last log entry said */ this.heardNumber = null;
    /** @type {string | null} whose turn was said last ("over": the end) */ this.turnKey = null;
  }

  /** A new table (or none): nothing of it said yet. */
  reset() {
    this.heardNumber = null;
    this.turnKey = null;
  }

  /**
   * Say what happened since the last frame: each new log entry, then whose turn it is, or the
   * end. Nothing of the past when the page (re)opens a game. What the end says (a
   * resignation) is not said before it as well.
   */
  hear() {
    const host = this.host;
    const log = host.app.log;
    const first = this.heardNumber === null;
    const lastNumber = log.length ? log[log.length - 1].number : 0;
    const ending = host.over && this.turnKey !== "over";
    if (!first) {
      for (const entry of log) {
        if (entry.number <= (this.heardNumber ?? 0)) continue;
        if (ending && host.endingSays(entry)) continue;
        const spoken = host.spokenEntry(entry);
        if (spoken) announce(spoken, { urgent: host.entriesUrgent() });
      }
    }
    this.heardNumber = Math.max(this.heardNumber ?? 0, lastNumber);
    const key = host.over ? "over" : host.currentTurnKey();
    if (key === this.turnKey) return;
    this.turnKey = key;
    host.turnChanged();
    if (host.over) {
      finishedGame(this.game);
      announce(host.spokenEnding());
      return;
    }
    const turn = host.myTurn ? t("game.your_turn") : tNodes("say.turn_of", { name: bdi(host.moverName()) });
    const start = first ? host.startWords() : null;
    announce(start ? [...start, " ", turn] : turn);
  }
}
