// The games this client can play, keyed by `table.game` (docs/protocol.md). Each module
// brings what is its own: the controller of its table screen and which <section> that is,
// where the keyboard lands on it, and its table options (how the home page asks for them,
// how an invitation and the waiting table show them). Everything else is shared and stays
// in main.js and its helpers: the connection, home, the waiting table, dialogs, languages,
// announcements.
//
// A controller: new Controller(ctx) wires its own screen once; then
//   reset()        a new table (or none): forget everything of the previous one
//   update()       a new snapshot or view of its game arrived (app.view, app.log)
//   render()       draw again (a new language, a presence change, a rematch offer)
//   reconnected()  the connection came back: nothing is in flight any more
import { Game as LexioGame } from "./game.js";
import { MishqaqGame } from "./mishqaq-game.js";
import { MishqaqOptionsForm, renderOptions } from "./mishqaq-options.js";

export const GAMES = {
  lexio: {
    id: "lexio",
    screen: "game",
    firstFocus: "#board .cell.cursor",
    Controller: LexioGame,
    // No table options: nothing to ask for, nothing to show.
    optionsForm: null,
    renderOptions: null,
  },
  mishqaq: {
    id: "mishqaq",
    screen: "mishqaq",
    firstFocus: "#mq-board .cell.cursor",
    Controller: MishqaqGame,
    optionsForm: { root: "#home-mq-options", Form: MishqaqOptionsForm },
    renderOptions,
  },
};

/** The order the home page offers them in (only those `welcome.games` lists). */
export const GAME_ORDER = ["lexio", "mishqaq"];

/** The module of a table's game, or null for a game this client cannot play. */
export function gameModule(id) {
  return Object.hasOwn(GAMES, id ?? "lexio") ? GAMES[id ?? "lexio"] : null;
}

/** The screens games show (besides loading, home and table). */
export const GAME_SCREENS = [...new Set(Object.values(GAMES).map((game) => game.screen))];
