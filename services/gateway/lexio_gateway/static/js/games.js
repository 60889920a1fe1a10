// @ts-check
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
//   review        how its finished games are drawn in the review (kit/review.js: a ReviewHook,
//                 below), or absent: a game without one has no review, its finished games
//                 are not remembered and its end panel offers none
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

/** @typedef {import("./protocol.js").TableOptions} TableOptions */

/**
 * The page's state (main.js's `app`, also window.lexio for the curious and the tests).
 * @typedef {object} App
 * @property {string | null} token     the seat's secret, kept across reloads
 * @property {boolean} away            the player left the game on purpose (the seat is kept)
 * @property {Record<string, boolean> | null} games  welcome.games; null before the welcome
 * @property {import("./protocol.js").TableFrame | null} table
 * @property {import("./protocol.js").GameView | null} view  the last view (its log apart)
 * @property {import("./protocol.js").LogEntry[]} log
 * @property {number} seq              the last event seen (-1: none)
 * @property {{code: string, table_id: string, host?: string} | null} rematch  the host's new table
 * @property {string} screen           the screen shown (loading, home, table or a game's)
 * @property {boolean} welcomed        this connection got its welcome
 */

/**
 * What main.js gives the screens: home, the waiting table and each game's controller.
 * @typedef {object} Context
 * @property {App} app
 * @property {(frame: import("./protocol.js").Request,
 *   onReply?: ((reply: import("./protocol.js").Reply) => void) | null,
 *   options?: {quiet?: boolean}) => string | null} request
 *   sends with a fresh id (returned); null without a connection (the player is told unless quiet)
 * @property {typeof import("./errors.js").errorText} errorText
 * @property {(code: string) => void} joinNewTable  after the end, the host's new table
 * @property {() => void} goHome
 * @property {(text: string) => void} toast
 * @property {() => void} leaveGame   away from a game in progress, the seat kept
 * @property {() => void} comeBack    back to the seat left
 * @property {(tableId: string) => void} openReview  the review of a finished game of this browser
 */

/**
 * A game's table screen (below).
 * @typedef {object} Controller
 * @property {() => void} reset
 * @property {() => void} update
 * @property {() => void} render
 * @property {() => void} reconnected
 */

/**
 * A game's table options on the home page.
 * @typedef {object} OptionsForm
 * @property {() => TableOptions} read  the options chosen
 * @property {() => void} relabel       its labels again, in the language now set
 */

/**
 * How an invitation and the waiting table show a table's options: into ``list``; ``whom``
 * says who reads them (a guest, or the seated players' names).
 * @typedef {(list: HTMLElement, options: TableOptions, whom: {you?: string, names?: string[]}) => void} RenderOptions
 */

/**
 * A game's package as its index.js describes it (the fields above).
 * @typedef {object} GamePackage
 * @property {string} id
 * @property {string} name
 * @property {string} about
 * @property {{tagline: string, players: string, words: {id: string, key: string, french?: string},
 *   away: string}} home
 * @property {string} markup
 * @property {string} styles
 * @property {(lang: string) => string} catalog
 * @property {string} screen
 * @property {string} firstFocus
 * @property {new (ctx: Context) => Controller} Controller
 * @property {{root: string, Form: new (root: HTMLElement) => OptionsForm} | null} optionsForm
 * @property {RenderOptions | null} renderOptions
 * @property {ReviewHook | null} [review]
 */

/**
 * The table as a game's panels read it in the review: the names in seat order (no one is
 * connected or not: the review does not know), the viewer's seat, the options the steps imply.
 * @typedef {object} ReviewTable
 * @property {string} game
 * @property {{name: string, host: boolean}[]} seats
 * @property {number} you
 * @property {TableOptions} options
 */

/**
 * One step of the review as the kit hands it to the game: the seat's view after ``entry``
 * (at the start: before any entry, ``entry`` and ``before`` null), the view before it.
 * @typedef {object} ReviewStep
 * @property {ReviewTable} table
 * @property {any} view
 * @property {any} before
 * @property {any} entry
 * @property {number} index   0 at the start, i after the i-th entry
 */

/**
 * How a game draws its finished games in the review (kit/review.js, which names no game and
 * does the rest: the steps, the buttons, the slider, the keys, the log, the live region, the
 * download). Each function draws only from what it is given: the review carries only what
 * the seat saw during play, and so does the screen.
 * @typedef {object} ReviewHook
 * @property {import("./kit/board.js").Geometry} geometry  its board's geometry, as in play
 * @property {{board: string, wrap: string, ltr: boolean}} look  the classes of its board and
 *   of the board's window (its own CSS sizes them); ltr: the board is never mirrored (false:
 *   it follows the page's direction, as in play)
 * @property {(review: import("./protocol.js").Review) => ReviewTable} table
 * @property {(entry: any, table: ReviewTable) => HTMLElement} logLine  a line of the log, as in play
 * @property {(step: ReviewStep) => Node} summary  what the entry did: its words with their
 *   points, or the distance gained toward the goal (shown)
 * @property {(step: ReviewStep) => Node} spoken   the same as the live region says it, the
 *   words marked with their language
 * @property {(root: HTMLElement, step: ReviewStep) => void} standing  the scores or the clocks then
 * @property {(root: HTMLElement, step: ReviewStep) => void} rack      the viewer's rack then
 * @property {(root: HTMLElement, step: ReviewStep) => void} ending    once the view has its
 *   ending: the reckoning and every rack revealed
 * @property {(step: ReviewStep) => Node} spokenEnding  the end, said
 */

export { GAME_LIST };

export const GAMES = Object.fromEntries(GAME_LIST.map((game) => [game.id, game]));

/** The order the home page offers them in (only those `welcome.games` lists). */
export const GAME_ORDER = GAME_LIST.map((game) => game.id);

/**
 * The module of a table's game, or null for a game this client cannot play.
 * @param {string | null | undefined} id
 * @returns {GamePackage | null}
 */
export function gameModule(id) {
  return id && Object.hasOwn(GAMES, id) ? GAMES[id] : null;
}

/** The screens games show (besides loading, home and table). */
export const GAME_SCREENS = [...new Set(GAME_LIST.map((game) => game.screen))];

for (const game of GAME_LIST) addCatalog(game.catalog);

/**
 * Where each part of a game's markup goes (its data-install).
 * @type {Record<string, (node: Element) => void>}
 */
const PLACES = {
  screen: (node) => $("#main").append(node),
  "home-options": (node) => $("#home-create").before(node),
  dialog: (node) => document.body.append(node),
};

/** @param {string} href */
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

/** @param {string} url */
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
/**
 * The kit's shared controls (index.html's <template data-kit-part>) put into a game's markup
 * where it asks (data-kit="<part>"), before the game's own there; each data-part element takes
 * the id data-kit-prefix + part, by which the game's controller finds it.
 * @param {HTMLElement} root
 */
function expandKitParts(root) {
  /** @type {NodeListOf<HTMLElement>} */
  const slots = root.querySelectorAll("[data-kit]");
  for (const slot of slots) {
    const template = document.querySelector(`template[data-kit-part="${slot.dataset.kit}"]`);
    if (!(template instanceof HTMLTemplateElement)) throw new Error(`markup: no kit part "${slot.dataset.kit}"`);
    const content = /** @type {DocumentFragment} */ (template.content.cloneNode(true));
    for (const node of /** @type {NodeListOf<HTMLElement>} */ (content.querySelectorAll("[data-part]"))) {
      node.id = `${slot.dataset.kitPrefix ?? ""}${node.dataset.part}`;
    }
    slot.prepend(content);
  }
}

export async function installGames() {
  const styles = GAME_LIST.map((game) => linkStyles(game.styles));
  const markups = await Promise.all(GAME_LIST.map((game) => fetchMarkup(game.markup)));
  for (const markup of markups) {
    /** @type {NodeListOf<HTMLElement>} */
    const parts = markup.body.querySelectorAll(":scope > [data-install]");
    for (const part of parts) {
      const place = PLACES[part.dataset.install ?? ""];
      if (!place) throw new Error(`markup: no place "${part.dataset.install}"`);
      delete part.dataset.install;
      const node = document.adoptNode(part);
      expandKitParts(node);
      place(node);
    }
  }
  await Promise.all(styles);
}
