// @ts-check
// al-Mishqaq as the client knows it: everything the shared page needs of the game
// (js/games.js says what each field is for). Its rules and screens are the other modules of
// this folder.
import { MishqaqGame } from "./game.js";
import { MishqaqOptionsForm, renderOptions } from "./options.js";
import { gamePackage } from "../../kit/package.js";
import { review } from "./review.js";

// Its finished games can be reviewed (review.js).
export const game = {
  ...gamePackage(import.meta.url, "mishqaq", {
    home: {
      // M1, M2: Arabic on one side, French or English on the other, as the host chose.
      words: { id: "home-words-mishqaq", key: "games.mishqaq.words" },
      // M32: nobody plays for an absent side; its clock runs on.
      away: "mq.home.away_text",
    },
    screen: "mishqaq",
    firstFocus: "#mq-board .cell.cursor",
    Controller: MishqaqGame,
    optionsForm: { root: "#home-mq-options", Form: MishqaqOptionsForm },
    renderOptions,
  }),
  review,
};
