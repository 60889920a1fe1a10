// The games' registry, derived from the list (js/games/index.js), keyed by `table.game`
// (docs/protocol.md). Each game's package (js/games/<id>/) describes itself in its index.js:
//
//   id            the protocol's name of the game (`table.game`, `create.game`)
//   name          catalog key of its name; about: the line beside its choice on the home page
//   home          what the home page says of it when it is the game chosen or invited to:
//                 tagline, players (its seat limits), words ({id, key, french?}: which words
//                 are played, in an element of that id), away (a seat left in a game of it)
//   markup        its HTML (screen, home-options, dialogs: installed below), styles: its CSS,
//   catalog       catalog(lang): its messages, merged into the site's (js/i18n.js)
//   screen        its table screen is #screen-<screen>; firstFocus: where the keyboard lands
//   Controller    the controller of its table screen (below)
//   optionsForm   {root, Form} its table options on the home page, or null; renderOptions:
//                 how an invitation and the waiting table show them, or null
//
// A controller: new Controller(ctx) wires its own screen once; then
//   reset()        a new table (or none): forget everything of the previous one
//   update()       a new snapshot or view of its game arrived (app.view, app.log)
//   render()       draw again (a new language, a presence change, a rematch offer)
//   reconnected()  the connection came back: nothing is in flight any more
//
// Everything else is shared and stays in main.js and its helpers: the connection, home, the
// waiting table, dialogs, languages, announcements.
import { $ } from "./dom.js";
import { addCatalog } from "./i18n.js";
import { GAME_LIST } from "./games/index.js";

export { GAME_LIST };

export const GAMES = Object.fromEntries(GAME_LIST.map((game) => [game.id, game]));

/** The order the home page offers them in (only those `welcome.games` lists). */
export const GAME_ORDER = GAME_LIST.map((game) => game.id);

/** The module of a table's game, or null for a game this client cannot play. */
export function gameModule(id) {
  return Object.hasOwn(GAMES, id) ? GAMES[id] : null;
}

/** The screens games show (besides loading, home and table). */
export const GAME_SCREENS = [...new Set(GAME_LIST.map((game) => game.screen))];

for (const game of GAME_LIST) addCatalog(game.catalog);

/** Where each part of a game's markup goes (its data-install). */
const PLACES = {
  screen: (node) => $("#main").append(node),
  "home-options": (node) => $("#home-create").before(node),
  dialog: (node) => document.body.append(node),
};

function linkStyles(href) {
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = href;
  const loaded = new Promise((resolve, reject) => {
    link.addEventListener("load", resolve, { once: true });
    link.addEventListener("error", () => reject(new Error(`styles ${href}`)), { once: true });
  });
  document.head.append(link);
  return loaded;
}

async function fetchMarkup(url) {
  // Revalidated like every static file (Cache-Control: no-cache, ETag): a new version is
  // seen at once, an unchanged one costs a 304.
  const reply = await fetch(url, { cache: "no-cache" });
  if (!reply.ok) throw new Error(`markup ${url}: ${reply.status}`);
  return new DOMParser().parseFromString(await reply.text(), "text/html");
}

/**
 * Put every game's markup and styles in the page, in the list's order (the styles after the
 * site's, so a game's rules win over the site's where both apply). Resolves once all of it is
 * there: the screens' controllers and the home page find their elements.
 */
export async function installGames() {
  const styles = GAME_LIST.map((game) => linkStyles(game.styles));
  const markups = await Promise.all(GAME_LIST.map((game) => fetchMarkup(game.markup)));
  for (const markup of markups) {
    for (const part of markup.body.querySelectorAll(":scope > [data-install]")) {
      const place = PLACES[part.dataset.install];
      if (!place) throw new Error(`markup: no place "${part.dataset.install}"`);
      delete part.dataset.install;
      place(document.adoptNode(part));
    }
  }
  await Promise.all(styles);
}
