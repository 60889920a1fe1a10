// @ts-check
// The page: one connection, the state it keeps (seat token, table, view, log, last event
// seen), and which screen shows. Every frame of docs/protocol.md is handled here; what a
// game's table screen does is its module's (games.js, keyed by table.game).
import { $, clear, el, show } from "./dom.js";
import { LANGUAGES, initialLanguage, onLanguageChange, setLanguage, t, translateTree } from "./i18n.js";
import { Net } from "./net.js";
import { load, save } from "./store.js";
import { syncServerTime } from "./clock.js";
import { Home, invitedCode, normalizeCode } from "./home.js";
import { TableScreen } from "./tablescreen.js";
import { GAMES, GAME_SCREENS, gameModule, installGames } from "./games.js";
import { initDialogs } from "./dialogs.js";
import { setAttention } from "./attention.js";
import { errorText } from "./errors.js";

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
const FIRST_FOCUS = { home: "#home-name", table: "#copy-code" };
for (const module of Object.values(GAMES)) FIRST_FOCUS[module.screen] = module.firstFocus;
const SCREENS = ["loading", "home", "table", ...GAME_SCREENS];

/** @param {string} name */
function showScreen(name) {
  if (app.screen === name) return;
  const first = app.screen === "loading";
  app.screen = name;
  for (const screen of SCREENS) show($(`#screen-${screen}`), screen === name);
  document.body.dataset.screen = name;
  if (!GAME_SCREENS.includes(name)) setAttention(false);
  requestAnimationFrame(() => {
    const active = document.activeElement;
    const lost = !active || active === document.body || active.closest("[hidden]");
    // Not on arrival at home: a phone would open its keyboard over the page.
    if (lost && FIRST_FOCUS[name] && !(first && name === "home")) {
      $(FIRST_FOCUS[name])?.focus({ preventScroll: true });
    }
  });
}

function render() {
  if (app.screen === "home") home.render();
  else if (app.screen === "table") tableScreen.render();
  else if (GAME_SCREENS.includes(app.screen)) controller()?.render();
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
      showBanner(t("conn.restarting"));
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
    showScreen("table");
    tableScreen.render();
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
  showScreen(module.screen);
  controllers[module.id].update();
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
  const ctx = { app, request, errorText, joinNewTable, goHome, toast, leaveGame, comeBack };
  home = new Home(ctx);
  tableScreen = new TableScreen(ctx);
  for (const module of Object.values(GAMES)) controllers[module.id] = new module.Controller(ctx);
  net = new Net({ hello, onFrame, onStatus });
  net.connect();
}

start();
