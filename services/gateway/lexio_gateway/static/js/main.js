// @ts-check
// The page: one connection, the state it keeps (seat token, table, view, log, last event
// seen), and which screen shows. Every frame of docs/protocol.md is handled here; what a
// game's table screen does is its module's (games.js, keyed by table.game).
import { $, clear, el, show } from "./dom.js";
import { LANGUAGES, initialLanguage, onLanguageChange, setLanguage, t, translateTree } from "./i18n.js";
import { Net } from "./net.js";
import { finishedGame, forgetFinished, load, rememberFinished, save } from "./store.js";
import { syncServerTime } from "./clock.js";
import { Home, invitedCode, normalizeCode } from "./home.js";
import { TableScreen } from "./tablescreen.js";
import { GAMES, GAME_SCREENS, gameModule, installGames } from "./games.js";
import { initDialogs } from "./dialogs.js";
import { setAttention, setTitleGame } from "./attention.js";
import { errorText } from "./errors.js";
import { ReviewScreen } from "./kit/review.js";

/** @typedef {import("./protocol.js").ServerFrame} ServerFrame */
/** @typedef {import("./protocol.js").Reply} Reply */

const PROTOCOL = 1;

/** @type {import("./games.js").App} */
const app = {
  token: load("token"),
  // The player left a game in progress on purpose: the seat (and its token) is kept, but the
  // page does not sit back down until they ask to, even after a reload.
  away: load("away") === "1",
  games: null,
  table: null,
  view: null,
  log: [],
  seq: -1,
  rematch: null,
  screen: "loading",
  welcomed: false,
};
/** @type {Window & {lexio?: import("./games.js").App}} */ (window).lexio = app; // for the curious (and the browser tests)

/** @type {Map<string, (reply: Reply) => void>} request id → what its answer is for */
const handlers = new Map();
/** @type {(() => void) | null} */
let afterWelcome = null;
/** @type {Net} */
let net;
/** @type {Home} */
let home;
/** @type {TableScreen} */
let tableScreen;
/** @type {ReviewScreen} */
let review;
/** @type {Record<string, import("./games.js").Controller>} game id → its table screen's controller (games.js) */
const controllers = {};

/** The controller of the current table's game (null without a table, or for a game this
 *  client cannot play). */
function controller() {
  const module = app.table ? gameModule(app.table.game) : null;
  return module ? controllers[module.id] : null;
}

/**
 * Send a request with a fresh id; ``onReply`` gets the answer with that id (or an error).
 * Without a connection nothing is sent: null, and the player is told (unless ``quiet``).
 * @type {import("./games.js").Context["request"]}
 */
function request(frame, onReply, { quiet = false } = {}) {
  const id = net.nextId(frame.type[0]);
  if (!net.send({ ...frame, id })) {
    if (!quiet) toast(t("conn.offline_action"));
    return null;
  }
  if (onReply) handlers.set(id, onReply);
  return id;
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let toastTimer;

/** @param {string} text */
function toast(text) {
  const box = $("#toast");
  box.textContent = text;
  show(box, true);
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => show(box, false), 6000);
}

// Where the keyboard lands when a screen appears (if focus was on the screen that went away).
/** @type {Record<string, string>} */
const FIRST_FOCUS = { home: "#home-name", table: "#copy-code", review: "#review-title" };
for (const module of Object.values(GAMES)) FIRST_FOCUS[module.screen] = module.firstFocus;
const SCREENS = ["loading", "home", "table", "review", ...GAME_SCREENS];

// The review covers whatever the connection would show meanwhile (a table resumed, home after
// a welcome): that screen is kept for when the review closes, and shown then.
/** @type {string} */
let screenAfterReview = "loading";
/** @type {string | null} the id of what had the keyboard when the review opened */
let focusAfterReview = null;
let closingReview = false;
/** @type {string | null} the table whose review is open */
let reviewed = null;

/**
 * The header and the tab's title name the game on its screens (its table before the start,
 * its game, its review), the site elsewhere.
 */
function renderBrand() {
  let game = ["home", "loading"].includes(app.screen) ? null : app.table?.game;
  if (app.screen === "review") game = reviewed ? finishedGame(reviewed)?.game : null;
  const module = game ? gameModule(game) : null;
  $("#brand-name").textContent = module ? t(module.name) : t("app.title");
  setTitleGame(module ? t(module.name) : null);
}

/**
 * Show a screen, the others hidden. ``draw`` draws it (its controller's render) while the screen
 * the player was on is still there, so that the keyboard goes to the new screen's first control
 * (a focus a screen reader follows) before the control that had it goes: hidden first, it
 * dropped the focus to the document, and Orca took the board's focus after it without a word,
 * in browse mode (issue 41: the focused "copy code" button at a game's start; the next letter
 * typed was Orca's own navigation key). The screen left goes out of sight with leave().
 * @param {string} name @param {() => void} [draw]
 */
function showScreen(name, draw = () => {}) {
  if (app.screen === "review" && name !== "review" && !closingReview) {
    screenAfterReview = name;
    draw();
    return;
  }
  if (app.screen === name) {
    draw();
    return;
  }
  const first = app.screen === "loading";
  const active = document.activeElement;
  // On the screen that goes (or nowhere): the new screen's first control takes the keyboard.
  const leaving = !active || active === document.body || Boolean(active.closest(`.screen:not(#screen-${name})`));
  const moveFocus = () => {
    const target = FIRST_FOCUS[name] ? document.querySelector(FIRST_FOCUS[name]) : null;
    // Not on arrival at home: a phone would open its keyboard over the page.
    if (!(target instanceof HTMLElement) || target.closest("[hidden]") || (first && name === "home")) return false;
    target.focus({ preventScroll: true });
    return document.activeElement === target;
  };
  app.screen = name;
  show($(`#screen-${name}`), true);
  $(`#screen-${name}`).classList.remove("screen-leaving");
  document.body.dataset.screen = name;
  renderBrand();
  draw();
  const moved = leaving && moveFocus();
  for (const screen of SCREENS) {
    if (screen === name) continue;
    const node = $(`#screen-${screen}`);
    if (moved && active && node.contains(active)) leave(node, screen);
    else show(node, false);
  }
  if (!GAME_SCREENS.includes(name)) setAttention(false);
  if (moved) return;
  // A screen drawn later (its first control not there yet): once it is.
  requestAnimationFrame(() => {
    const now = document.activeElement;
    if (!now || now === document.body || now.closest("[hidden]")) moveFocus();
  });
}

/** How long a screen the keyboard left stays in the accessibility tree (see leave()). */
const LEAVING_MS = 1500;

/**
 * The screen that had the keyboard, out of sight at once, hidden a moment later: until then it
 * stays in the accessibility tree. Orca (43) handling a focus change first looks at where the
 * focus was; when that element is already gone from the tree, it takes the new focus without
 * a word and stays in browse mode (issue 41: the board at a game's start, its letters typed
 * then taken as Orca's navigation keys).
 * @param {HTMLElement} node @param {string} screen its name
 */
function leave(node, screen) {
  node.classList.add("screen-leaving");
  setTimeout(() => {
    node.classList.remove("screen-leaving");
    if (app.screen !== screen) show(node, false);
  }, LEAVING_MS);
}

function render() {
  renderBrand();
  if (app.screen === "home") home.render();
  else if (app.screen === "table") tableScreen.render();
  else if (app.screen === "review") review.render();
  else if (GAME_SCREENS.includes(app.screen)) controller()?.render();
}

/** The page's address says which review is open (a reload opens it again), or none.
 *  @param {string | null} tableId */
function setReviewAddress(tableId) {
  const params = new URLSearchParams(location.search);
  if (tableId) params.set("review", tableId);
  else params.delete("review");
  const query = params.toString();
  history.replaceState(null, "", `${location.pathname}${query ? `?${query}` : ""}`);
}

/**
 * The review of a finished game this browser remembers (its token from the list, never from
 * the address), over whatever screen was shown.
 * @param {string} tableId
 */
function openReview(tableId) {
  if (app.screen !== "review") {
    screenAfterReview = app.screen;
    focusAfterReview = document.activeElement?.id || null;
  }
  setReviewAddress(tableId);
  reviewed = tableId;
  showScreen("review");
  review.open(tableId);
}

/** Back to the screen the review covered (home once the page knows nothing else to show). */
function closeReview() {
  review.close();
  setReviewAddress(null);
  let back = screenAfterReview;
  if (GAME_SCREENS.includes(back) && !app.view) back = "home";
  if (back === "loading" && app.welcomed && (!app.token || app.away)) back = "home";
  closingReview = true;
  showScreen(back);
  closingReview = false;
  render();
  const returnTo = focusAfterReview;
  focusAfterReview = null;
  requestAnimationFrame(() => {
    const node = returnTo ? document.getElementById(returnTo) : null;
    if (node && !node.closest("[hidden]")) node.focus();
  });
}

/** A game that ended at this seat is remembered with its token, for its review later. */
function rememberEnd() {
  const table = app.table;
  const ending = /** @type {{at?: number} | null | undefined} */ (app.view?.ending);
  const module = gameModule(table?.game);
  if (!table || !ending || !app.token || !module?.review) return;
  rememberFinished({
    table_id: table.table_id,
    game: table.game,
    token: app.token,
    ended_at: ending.at ?? app.log.at(-1)?.at ?? Date.now() / 1000,
    players: table.seats.map((seat) => seat.name),
    you: table.you,
  });
}

/** The tables whose game this page has shown (in play or at its end). */
const shownTables = new Set();
/** Whether this page is a reload of the one before (then it shows what that one showed). */
const reloaded = performance.getEntriesByType("navigation").some(
  (entry) => /** @type {PerformanceNavigationTiming} */ (entry).type === "reload",
);

/** Whether the seat's game is over and this page never showed it: the page was opened again
 *  (the address typed, a bookmark, back from elsewhere) after the game, not reloaded. */
function endedBeforeThisPage() {
  const tableId = app.table?.table_id;
  if (!tableId || shownTables.has(tableId)) return false;
  if (!app.view?.ending || reloaded) {
    shownTables.add(tableId);
    return false;
  }
  return true;
}

/** What belonged to the previous table: its game, its log, its rematch offer. */
function resetTable() {
  app.table = null;
  app.view = null;
  app.log = [];
  app.seq = -1;
  app.rematch = null;
  for (const each of Object.values(controllers)) each.reset();
}

/** @param {boolean} away */
function setAway(away) {
  app.away = away;
  save("away", away ? "1" : null);
}

function forgetSeat() {
  app.token = null;
  save("token", null);
  setAway(false);
  resetTable();
}

/**
 * Leave a game in progress (no protocol message: during a game, a closed socket is what
 * "away" means, R29). The seat and its token stay; a new connection without the token
 * serves the home page, which offers the way back.
 */
function leaveGame() {
  save("away-game", app.table?.game); // home says what being away means for it
  setAway(true);
  resetTable();
  showScreen("loading");
  net.restart();
}

let comingBack = false;

function comeBack() {
  if (!app.token) return;
  setAway(false);
  comingBack = true;
  showScreen("loading");
  net.restart();
}

function goHome() {
  forgetSeat();
  showScreen("home");
  home.render();
}

/**
 * A new connection without a seat (this one may hold a finished table's), then ``then``.
 * @param {() => void} then
 */
function freshStart(then) {
  forgetSeat();
  afterWelcome = then;
  showScreen("loading");
  net.restart();
}

/**
 * After the end, the host's new table (rematch): join it by its code with the same name.
 * @param {string} code
 */
function joinNewTable(code) {
  const name = app.table?.seats?.[app.table.you]?.name || load("name") || "";
  /** @param {boolean} retry */
  const join = (retry) =>
    request({ type: "join", code, name }, (reply) => {
      if (reply.type !== "error") return;
      if (reply.code === "already_seated" && retry) {
        // An older gateway keeps a finished game's seat on the connection: use a new one.
        freshStart(() => join(false));
        return;
      }
      goHome();
      /** @type {HTMLInputElement} */
      const codeInput = $("#home-code");
      codeInput.value = code;
      toast(errorText(reply, { request: "join" }));
    });
  join(true);
}

function clearInvite() {
  const params = new URLSearchParams(location.search);
  if (!params.has("join")) return;
  params.delete("join");
  const query = params.toString();
  history.replaceState(null, "", `${location.pathname}${query ? `?${query}` : ""}`);
}

// Frames ---------------------------------------------------------------------------------

/** @param {ServerFrame} frame */
function onFrame(frame) {
  const id = "id" in frame ? frame.id : undefined;
  const handler = id !== undefined ? handlers.get(id) : undefined;
  if (handler && id !== undefined && frame.type !== "seated") handlers.delete(id);
  switch (frame.type) {
    case "welcome":
      app.welcomed = true;
      syncServerTime(frame.server_time);
      app.games = frame.games || {};
      hideBanner();
      for (const each of Object.values(controllers)) each.reconnected();
      handlers.clear();
      if (!app.token || app.away) {
        if (afterWelcome) {
          const then = afterWelcome;
          afterWelcome = null;
          then();
        } else {
          showScreen("home");
        }
      }
      render();
      break;
    case "seated":
      handlers.delete(frame.id);
      handler?.(frame);
      forgetSeat();
      app.token = frame.token;
      save("token", frame.token);
      clearInvite();
      break;
    case "table":
      onTable(frame);
      break;
    case "snapshot":
      comingBack = false;
      app.seq = frame.seq;
      app.log = [...(frame.view.log || [])];
      app.view = frame.view;
      if (endedBeforeThisPage()) {
        // Opened anew after the game ended (not a reload of its end): home, with the game
        // among the finished ones to review; the seat of a game over is let go.
        rememberEnd();
        goHome();
        break;
      }
      enterGame();
      break;
    case "event":
      if (frame.seq === app.seq + 1) {
        app.log.push(frame.entry);
        app.seq = frame.seq;
      } else if (frame.seq > app.seq + 1) {
        net.restart(); // a gap: resume from the last event seen
      }
      break;
    case "view":
      if (frame.seq >= app.seq) {
        app.view = { ...frame.view, log: [] };
        enterGame();
      }
      break;
    case "ack":
    case "refused":
    case "preview":
    case "invitation":
      handler?.(frame);
      break;
    case "left":
      goHome();
      break;
    case "rematch":
      app.rematch = frame;
      render();
      break;
    case "replaced":
      showBanner(t("conn.replaced"), t("conn.take_back"), () => net.restart());
      break;
    case "reconnect":
      showBanner(t(frame.reason === "busy" ? "conn.busy" : "conn.restarting"));
      break;
    case "error":
      onError(frame, handler);
      break;
    default:
      break;
  }
}

/** @param {import("./protocol.js").TableFrame} frame */
function onTable(frame) {
  if (app.table && app.table.table_id !== frame.table_id) resetTable();
  app.table = frame;
  if (frame.rematch && !app.rematch) app.rematch = { ...frame.rematch, host: frame.seats[0]?.name };
  const invited = normalizeCode(invitedCode());
  if (invited && normalizeCode(frame.code) !== invited && frame.state === "over") {
    // An invitation to another table while this seat's game is over: go and accept it.
    freshStart(() => {
      showScreen("home");
      home.render();
    });
    return;
  }
  if (frame.state === "open") {
    showScreen("table", () => tableScreen.render());
  } else if (app.view) {
    enterGame();
  } else if (frame.state === "closed") {
    // Closed before any game (expired idle, or emptied): nothing to sit at any more.
    goHome();
    toast(t("error.table_closed"));
  }
}

function enterGame() {
  if (!app.table) return;
  const module = gameModule(app.table.game);
  if (!module) {
    // A game this page cannot show (a newer site): say so rather than draw it as another.
    goHome();
    toast(t("error.unknown_game"));
    return;
  }
  showScreen(module.screen, () => controllers[module.id].update());
  rememberEnd();
}

/**
 * @param {import("./protocol.js").ErrorFrame} frame
 * @param {((reply: Reply) => void) | undefined} handler what the request it answers waits for
 */
function onError(frame, handler) {
  if (frame.code === "bad_token") {
    // The seat is gone (left, or the table was closed): start afresh.
    goHome();
    if (comingBack) toast(errorText(frame));
    comingBack = false;
    return;
  }
  if (handler) {
    handler(frame);
    return;
  }
  toast(errorText(frame));
  if (app.screen === "loading" && !app.table) {
    if (comingBack) {
      // Not a lost seat, only a failed try: the way back stays offered.
      comingBack = false;
      setAway(true);
      showScreen("home");
      home.render();
    } else {
      goHome();
    }
  }
}

// Connection banner ----------------------------------------------------------------------

/** @type {ReturnType<typeof setInterval> | undefined} */
let bannerTimer;

/**
 * @param {string} text
 * @param {string} [action] the button's label (none without)
 * @param {() => void} [onAction]
 */
function showBanner(text, action, onAction) {
  const banner = $("#banner");
  const message = $("#banner-text");
  message.textContent = text;
  const button = $("#banner-action");
  show(button, Boolean(action));
  if (action) {
    button.textContent = action;
    button.onclick = onAction ?? null;
  }
  show(banner, true);
}

function hideBanner() {
  clearInterval(bannerTimer);
  show($("#banner"), false);
}

/** @type {import("./net.js").NetHooks["onStatus"]} */
function onStatus(status, detail) {
  if (status === "open") {
    hideBanner();
    return;
  }
  if (status === "lost") {
    app.welcomed = false;
    const retryIn = typeof detail === "object" && detail ? detail.retryIn : 0;
    const until = Date.now() + retryIn;
    const draw = () => {
      const seconds = Math.max(0, Math.ceil((until - Date.now()) / 1000));
      showBanner(
        seconds > 0 ? t("conn.lost", { seconds }) : t("conn.retrying"),
        t("conn.retry"),
        () => net.retryNow(),
      );
    };
    clearInterval(bannerTimer);
    draw();
    bannerTimer = setInterval(draw, 500);
    return;
  }
  if (status === "replaced") {
    clearInterval(bannerTimer);
    showBanner(t("conn.replaced"), t("conn.take_back"), () => net.restart());
  }
}

function hello() {
  /** @type {import("./protocol.js").HelloFrame} */
  const frame = { type: "hello", protocol: PROTOCOL };
  if (app.token && !app.away) {
    frame.token = app.token;
    if (app.seq >= 0) frame.last_seq = app.seq;
  }
  return frame;
}

// Language switcher ----------------------------------------------------------------------

function buildSwitcher() {
  /** @type {HTMLSelectElement} */
  const select = $("#lang");
  clear(select);
  for (const code of LANGUAGES) {
    select.append(el("option", { text: t(`lang.${code}`), attrs: { value: code, lang: code } }));
  }
  select.value = document.documentElement.lang;
}

async function start() {
  // The games' screens, options and dialogs arrive with the catalogs (both fetched at once):
  // translated once both are in, before anything draws.
  await Promise.all([installGames(), setLanguage(initialLanguage())]);
  translateTree(document);
  buildSwitcher();
  onLanguageChange(() => {
    buildSwitcher();
    render();
  });
  /** @type {HTMLSelectElement} */
  const languages = $("#lang");
  languages.addEventListener("change", () => setLanguage(languages.value, { remember: true }));
  initDialogs();
  const ctx = { app, request, errorText, joinNewTable, goHome, toast, leaveGame, comeBack, openReview };
  home = new Home(ctx);
  tableScreen = new TableScreen(ctx);
  review = new ReviewScreen({
    gameOf: (game) => {
      const module = gameModule(game);
      return module?.review ? { hook: module.review, name: module.name } : null;
    },
    finished: finishedGame,
    expired: forgetFinished,
    close: closeReview,
  });
  for (const module of Object.values(GAMES)) controllers[module.id] = new module.Controller(ctx);
  net = new Net({ hello, onFrame, onStatus });
  // /?review=<table_id>: that review at once (the connection opens behind it, as usual).
  const reviewed = new URLSearchParams(location.search).get("review");
  if (reviewed) openReview(reviewed);
  net.connect();
}

start();
