// Lexio as the client knows it: everything the shared page needs of the game (js/games.js
// says what each field is for). Its rules and screens are the other modules of this folder.
import { Game } from "./game.js";

const here = (path) => new URL(path, import.meta.url).pathname;

export const game = {
  id: "lexio",
  name: "games.lexio.name",
  about: "games.lexio.about",
  home: {
    tagline: "games.lexio.tagline",
    players: "games.lexio.players",
    // R17, R34: the words placed are always French (without accents, as the example shows).
    words: { id: "home-words-french", key: "games.lexio.words", french: "été" },
    // R29: a seat left alone is passed for.
    away: "games.lexio.away_text",
  },
  markup: here("./lexio.html"),
  styles: here("./lexio.css"),
  catalog: (lang) => here(`./i18n/${lang}.json`),
  screen: "game",
  firstFocus: "#board .cell.cursor",
  Controller: Game,
  // No table options: nothing to ask for, nothing to show.
  optionsForm: null,
  renderOptions: null,
};
