// @ts-check
// Noughts and crosses as the client knows it: the site's example game (docs/noughts.md), the
// smallest complete package to copy when adding a game (docs/adding-a-game.md). js/games.js
// says what each field is for.
import { NoughtsGame } from "./game.js";

const here = (/** @type {string} */ path) => new URL(path, import.meta.url).pathname;

/** @type {import("../../games.js").GamePackage} */
export const game = {
  id: "noughts",
  name: "games.noughts.name",
  about: "games.noughts.about",
  home: {
    tagline: "games.noughts.tagline",
    players: "games.noughts.players",
    // The home page has a "which words" line for every game; this one has none to play.
    words: { id: "home-words-noughts", key: "games.noughts.words" },
    // No clock: a seat left alone holds the game up until its player comes back or resigns.
    away: "games.noughts.away_text",
  },
  markup: here("./noughts.html"),
  styles: here("./noughts.css"),
  catalog: (lang) => here(`./i18n/${lang}.json`),
  screen: "noughts",
  firstFocus: "#noughts-board .noughts-cell[tabindex='0']",
  Controller: NoughtsGame,
  // No table options (N1): nothing to ask for at home, nothing to show on an invitation.
  optionsForm: null,
  renderOptions: null,
};
