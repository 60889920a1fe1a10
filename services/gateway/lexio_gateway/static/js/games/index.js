// @ts-check
// The games this client ships, in the order the home page offers them (only those
// `welcome.games` lists). The one file outside a game's own folder that names the games:
// adding a game is a folder js/games/<id>/ and one line here (docs/adding-a-game.md).
import * as lexio from "./lexio/index.js";
import * as mishqaq from "./mishqaq/index.js";
import * as noughts from "./noughts/index.js";

/** @type {import("../games.js").GamePackage[]} */
export const GAME_LIST = [lexio.game, mishqaq.game, noughts.game];
