// al-Mishqaq as the client knows it: everything the shared page needs of the game
// (js/games.js says what each field is for). Its rules and screens are the other modules of
// this folder.
import { MishqaqGame } from "./game.js";
import { MishqaqOptionsForm, renderOptions } from "./options.js";

const here = (path) => new URL(path, import.meta.url).pathname;

export const game = {
  id: "mishqaq",
  name: "games.mishqaq.name",
  about: "games.mishqaq.about",
  home: {
    tagline: "games.mishqaq.tagline",
    players: "games.mishqaq.players",
    // M1, M2: Arabic on one side, French or English on the other, as the host chose.
    words: { id: "home-words-mishqaq", key: "games.mishqaq.words" },
    // M32: nobody plays for an absent side; its clock runs on.
    away: "mq.home.away_text",
  },
  markup: here("./mishqaq.html"),
  styles: here("./mishqaq.css"),
  catalog: (lang) => here(`./i18n/${lang}.json`),
  screen: "mishqaq",
  firstFocus: "#mq-board .cell.cursor",
  Controller: MishqaqGame,
  optionsForm: { root: "#home-mq-options", Form: MishqaqOptionsForm },
  renderOptions,
};
