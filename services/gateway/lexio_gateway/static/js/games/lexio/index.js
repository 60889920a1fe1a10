// @ts-check
// Lexio as the client knows it: everything the shared page needs of the game (js/games.js
// says what each field is for). Its rules and screens are the other modules of this folder.
import { Game } from "./game.js";
import { gamePackage } from "../../kit/package.js";
import { review } from "./review.js";

// No table options: nothing to ask for, nothing to show. Its finished games can be reviewed.
export const game = {
  ...gamePackage(import.meta.url, "lexio", {
    home: {
      // R17, R34: the words placed are always French (without accents, as the example shows).
      words: { id: "home-words-french", key: "games.lexio.words", french: "été" },
      // R29: a seat left alone is passed for.
      away: "games.lexio.away_text",
    },
    screen: "game",
    firstFocus: "#board .cell.cursor",
    Controller: Game,
  }),
  review,
};
