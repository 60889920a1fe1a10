// @ts-check
// Home: create a table with a display name — of the game the host picks among those the site
// offers (welcome.games), with that game's options — or join one by its invite code (R2,
// R18), after seeing what the code opens (`lookup`: the game, its options, the seats); and
// the way back to a game the player left on purpose. The page speaks of one game at a time
// (its name, its players, which words): the one the invitation opens, else the one chosen.
// Below, the finished games this browser may review (issue 26), each a link /?review=<table_id>.
import { $, $$, clear, el, show } from "./dom.js";
import { currentLanguage, t, tNodes, translateTree } from "./i18n.js";
import { finishedGames, load, save } from "./store.js";
import { retryAfter } from "./errors.js";
import { namesNode } from "./kit/review.js";
import { GAMES, GAME_LIST, GAME_ORDER, gameModule } from "./games.js";

const MAX_NAME = 24;
const CODE_LENGTH = 10; // XXXXX-XXXXX without its dash

/**
 * What a code opens, looked up once: "pending" until the answer, then the invitation ("ok")
 * or the error.
 * @typedef {{state: "pending", frame: null, seen: boolean, receivedAt?: number}
 *   | {state: "ok", frame: import("./protocol.js").InvitationFrame, seen: boolean, receivedAt: number}
 *   | {state: "error", frame: import("./protocol.js").ErrorFrame, seen: boolean, receivedAt: number}} Lookup
 */

/**
 * An invite code as typed: any case, spaces and dashes ignored.
 * @param {string} raw
 */
export function normalizeCode(raw) {
  return raw.toUpperCase().replace(/[^A-Z0-9]/g, "");
}

export function invitedCode() {
  return new URLSearchParams(location.search).get("join") || "";
}

export class Home {
  /** @param {import("./games.js").Context} ctx */
  constructor(ctx) {
    this.ctx = ctx;
    this.waiting = false;
    /** @type {(() => string) | null} the error shown, in the language set when drawn */
    this.error = null;
    /** @type {ReturnType<typeof setInterval> | undefined} */
    this.errorTimer = undefined;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.pressTimer = undefined;
    // What each code opens, looked up once per code (a lookup counts toward the same
    // anti-guessing limit as a join).
    /** @type {Map<string, Lookup>} */
    this.lookups = new Map();
    /** @type {string | null} a join asked for while its code was being looked up */
    this.joinAfterLookup = null;
    this.pressingJoin = false;
    // Each game's table options on the home page (the games that have some), by game id.
    /** @type {Map<string, import("./games.js").OptionsForm>} */
    this.forms = new Map();
    this.nameInput.value = load("name") || "";
    this.codeInput.value = invitedCode();
    $("#form-create").addEventListener("submit", (event) => {
      event.preventDefault();
      this.submit("create");
    });
    $("#form-join").addEventListener("submit", (event) => {
      event.preventDefault();
      this.submit("join");
    });
    $("#home-come-back").addEventListener("click", () => this.ctx.comeBack());
    // A code typed and left (Tab, Enter) is looked up, once; not one whose Join button is
    // being pressed: that press asks the server itself, and one code costs one try.
    $("#home-join").addEventListener("pointerdown", () => {
      this.pressingJoin = true;
      clearTimeout(this.pressTimer);
      this.pressTimer = setTimeout(() => {
        this.pressingJoin = false;
      }, 1500);
    });
    $("#home-code").addEventListener("change", () => {
      if (!this.pressingJoin) this.lookUp(normalizeCode(this.codeInput.value));
    });
    $("#home-code").addEventListener("input", () => this.render());
    // A review opens in the page (the link's address is what a new tab or a reload opens).
    $("#home-finished-list").addEventListener("click", (event) => {
      const link = /** @type {HTMLElement} */ (event.target).closest("a[data-table]");
      if (!(link instanceof HTMLAnchorElement) || event.ctrlKey || event.metaKey || event.shiftKey) return;
      event.preventDefault();
      this.ctx.openReview(link.dataset.table ?? "");
    });
    buildGameChoice();
    for (const module of GAME_LIST) {
      if (!module.optionsForm) continue;
      this.forms.set(module.id, new module.optionsForm.Form($(module.optionsForm.root)));
    }
    const chosen = load("game");
    if (chosen && Object.hasOwn(GAMES, chosen)) this.gameRadio(chosen).checked = true;
    for (const radio of document.querySelectorAll('#home-games input[name="game"]')) {
      radio.addEventListener("change", () => this.render());
    }
  }

  /** @returns {HTMLInputElement} */
  get nameInput() {
    return $("#home-name");
  }

  /** @returns {HTMLInputElement} */
  get codeInput() {
    return $("#home-code");
  }

  /**
   * The choice of ``game`` in the game picker.
   * @param {string} game
   * @returns {HTMLInputElement}
   */
  gameRadio(game) {
    return $(`#home-game-${game}`);
  }

  name() {
    return this.nameInput.value.normalize("NFC").trim();
  }

  /** The game the host picked (without a choice: the first the site can start, in the list's order). */
  chosenGame() {
    /** @type {HTMLInputElement | null} */
    const checked = document.querySelector('#home-games input[name="game"]:checked');
    const id = checked && !checked.disabled && !checked.closest("[hidden]") ? checked.value : null;
    return id ?? this.offered().find((game) => this.ctx.app.games?.[game]) ?? GAME_ORDER[0];
  }

  /**
   * The game the page speaks of (its title, players, words): the one the code in the field
   * opens once looked up — an invitee is told of the game they are invited to, whatever the
   * create form holds — else the one the host would create.
   */
  spokenGame() {
    const lookup = this.lookups.get(normalizeCode(this.codeInput.value));
    const invited = lookup?.state === "ok" ? gameModule(lookup.frame.game) : null;
    return invited ?? GAMES[this.chosenGame()];
  }

  /** The games the site offers that this page can play, in the home page's order. */
  offered() {
    const games = this.ctx.app.games || {};
    return GAME_ORDER.filter((game) => Object.hasOwn(games, game));
  }

  /** @param {"create" | "join"} kind */
  submit(kind) {
    if (this.waiting) return;
    const name = this.name();
    if (!name || name.length > MAX_NAME) {
      this.fail(() => t("error.invalid_name"), "#home-name");
      return;
    }
    /** @type {import("./protocol.js").Request} */
    let frame;
    if (kind === "join") {
      const code = normalizeCode(this.codeInput.value);
      if (!code) {
        this.fail(() => t("home.need_code"), "#home-code");
        return;
      }
      const lookup = this.lookups.get(code);
      if (lookup?.state === "pending") {
        // Its answer decides: a game with options is shown first, then joined on a new press.
        this.joinAfterLookup = code;
        this.waiting = true;
        this.render();
        return;
      }
      frame = { type: "join", name, code };
    } else {
      const game = this.chosenGame();
      save("game", game);
      frame = { type: "create", name, game };
      const form = this.forms.get(game);
      if (form) frame.options = form.read();
    }
    save("name", name);
    const id = this.ctx.request(frame, (reply) => {
      this.waiting = false;
      if (reply.type === "error") this.refused(reply, kind);
      else this.fail(null);
      this.render();
    });
    if (!id) {
      this.fail(() => t("conn.offline_action"));
      return;
    }
    this.waiting = true;
    this.fail(null);
  }

  /**
   * What ``code`` opens, asked once per code (the invitation link's, or one typed).
   * @param {string} code
   */
  lookUp(code) {
    if (code.length !== CODE_LENGTH || this.lookups.has(code) || !this.ctx.app.welcomed) return;
    /** @type {Lookup} */
    let entry = { state: "pending", frame: null, seen: false };
    this.lookups.set(code, entry);
    const id = this.ctx.request(
      { type: "lookup", code },
      (reply) => {
        const receivedAt = Date.now();
        if (reply.type === "invitation") entry = { state: "ok", frame: reply, seen: entry.seen, receivedAt };
        else if (reply.type === "error") entry = { state: "error", frame: reply, seen: entry.seen, receivedAt };
        else return;
        this.lookups.set(code, entry);
        const shown = code === normalizeCode(this.codeInput.value);
        if (this.joinAfterLookup === code) {
          this.joinAfterLookup = null;
          this.waiting = false;
          // A game without table options: nothing more to see before sitting down.
          const module = entry.state === "ok" ? gameModule(entry.frame.game) : null;
          if (entry.state === "ok" && module && !module.renderOptions) {
            this.submit("join");
            return;
          }
          if (entry.state === "error") this.refused(entry.frame, "lookup");
        }
        this.render();
        if (shown && entry.state === "ok") entry.seen = true;
      },
      { quiet: true },
    );
    if (!id) this.lookups.delete(code);
    this.renderInvitation();
  }

  /**
   * The server's refusal; a wait it names (rate_limited) counts down until it is over.
   * @param {import("./protocol.js").ErrorFrame} reply
   * @param {string} kind the request it answers
   */
  refused(reply, kind) {
    const receivedAt = Date.now();
    this.fail(() => this.ctx.errorText(reply, { request: kind, receivedAt }));
    const wait = retryAfter(reply);
    if (wait === null) return;
    const over = receivedAt + wait * 1000;
    this.errorTimer = setInterval(() => {
      if (Date.now() >= over) this.fail(null);
      else this.render();
    }, 1000);
  }

  /**
   * @param {(() => string) | null} message the error to show (none: clear it)
   * @param {string} [focus] where the keyboard goes to correct it
   */
  fail(message, focus) {
    clearInterval(this.errorTimer);
    this.errorTimer = undefined;
    this.error = message;
    this.render();
    if (focus) $(focus).focus();
  }

  /** The game picker: only the games welcome.games lists; one not available now, disabled. */
  renderGames() {
    const games = this.ctx.app.games || {};
    const offered = this.offered();
    show($("#home-games"), offered.length > 1);
    for (const id of GAME_ORDER) {
      const item = $(`#home-games [data-game="${id}"]`);
      const radio = this.gameRadio(id);
      const listed = offered.includes(id);
      show(item, listed);
      radio.disabled = !games[id];
      show($(".game-off", item), listed && !games[id]);
    }
    const chosen = this.chosenGame();
    const radio = this.gameRadio(chosen);
    if (radio && !radio.checked) radio.checked = true;
    for (const module of GAME_LIST) {
      if (module.optionsForm) {
        show($(module.optionsForm.root), chosen === module.id && offered.length > 0);
        this.forms.get(module.id)?.relabel();
      }
    }
  }

  /** The title, the players and the words of the game the page speaks of. */
  renderGameSpoken() {
    const game = this.spokenGame();
    $("#home-title").textContent = t("home.title", { game: t(game.name) });
    $("#home-tagline").textContent = `${t(game.home.tagline)} ${t(game.home.players)}`;
    for (const each of GAME_LIST) show($(`#${each.home.words.id}`), each === game);
  }

  /** What the code in the field opens, once looked up (or why it cannot be looked up). */
  renderInvitation() {
    const box = $("#home-invitation");
    const code = normalizeCode(this.codeInput.value);
    const lookup = this.lookups.get(code);
    clear(box);
    box.className = "invitation";
    if (!lookup || lookup.state === "pending") {
      show(box, Boolean(lookup));
      if (lookup) box.append(el("p", { class: "muted", text: t("home.looking_up") }));
      return;
    }
    show(box, true);
    if (lookup.state === "error") {
      box.classList.add("invitation-error");
      box.append(el("p", { text: this.ctx.errorText(lookup.frame, { request: "lookup", receivedAt: lookup.receivedAt }) }));
      return;
    }
    const invitation = lookup.frame;
    const module = gameModule(invitation.game);
    const game = module ? t(module.name) : invitation.game;
    box.append(
      el("p", { class: "invitation-title" }, [
        tNodes("home.invitation", { game: el("strong", { text: game }), seated: invitation.seated, max: invitation.max_seats }),
      ]),
    );
    if (module?.renderOptions) {
      const list = el("ul", { class: "invitation-options" });
      module.renderOptions(list, invitation.options, { you: "guest" });
      box.append(list);
    }
    if (invitation.state && invitation.state !== "open") box.append(el("p", { class: "error", text: t("home.invitation_started") }));
    else if (invitation.seated >= invitation.max_seats) box.append(el("p", { class: "error", text: t("home.invitation_full") }));
  }

  /** The finished games remembered here, newest first: the game, the players, the day. */
  renderFinished() {
    const games = finishedGames().filter((game) => gameModule(game.game)?.review);
    show($("#home-finished"), games.length > 0);
    const list = clear($("#home-finished-list"));
    const day = new Intl.DateTimeFormat(currentLanguage(), { dateStyle: "medium" });
    for (const game of games) {
      const module = gameModule(game.game);
      const when = Number.isFinite(game.ended_at) ? day.format(new Date(game.ended_at * 1000)) : "";
      const players = namesNode(game.players.map((name, seat) => (seat === game.you ? t("review.player_you", { name }) : name)));
      const link = el("a", { attrs: { href: `/?review=${encodeURIComponent(game.table_id)}` }, data: { table: game.table_id } }, [
        tNodes("home.finished_game", { game: module ? t(module.name) : game.game, players, date: when }),
      ]);
      list.append(el("li", {}, [link]));
    }
  }

  render() {
    this.renderFinished();
    const app = this.ctx.app;
    const games = app.games;
    const known = Boolean(games);
    const available = this.offered().some((game) => games?.[game]);
    // R18: without the lexicon no table can be created, but the lobby still seats players at
    // tables already open (lobby.join checks no readiness): an invitee may still join.
    show($("#home-unavailable"), known && !available);
    show($("#home-forms"), known);
    show($("#form-create"), available);
    show($("#home-invited"), known && Boolean(invitedCode()));
    show($("#home-away"), app.away && Boolean(app.token));
    // What being away means depends on the game (a table that passes for the seat, a clock
    // that runs on): its own words, else the site's.
    $("#home-away-text").textContent = t(gameModule(load("away-game"))?.home.away ?? "home.away_text");
    if (known) this.renderGames();
    this.renderGameSpoken();
    for (const button of $$("#home-forms button")) {
      if (button instanceof HTMLButtonElement) button.disabled = this.waiting;
    }
    $("#home-error").textContent = this.error ? this.error() : "";
    const invited = normalizeCode(invitedCode());
    if (known && invited && app.welcomed && (!app.token || app.away)) this.lookUp(invited);
    this.renderInvitation();
  }
}

/**
 * The home page's choice of game (the radios in #home-games) and each game's "which words"
 * line (in #home-words), one per game of the list; the catalogs fill them (data-i18n).
 */
function buildGameChoice() {
  const choice = $("#home-games");
  for (const game of GAME_LIST) {
    const radio = `home-game-${game.id}`;
    choice.append(
      el("div", { class: "game-option", data: { game: game.id } }, [
        el("input", {
          attrs: { type: "radio", name: "game", value: game.id, id: radio, checked: game === GAME_LIST[0], "aria-describedby": `${radio}-about` },
        }),
        el("label", { attrs: { for: radio }, data: { i18n: game.name } }),
        el("small", { attrs: { id: `${radio}-about` } }, [
          el("span", { data: { i18n: game.about } }),
          " ",
          el("span", { class: "game-off", attrs: { hidden: true }, data: { i18n: "home.game_off" } }),
        ]),
      ]),
    );
  }
  const words = $("#home-words");
  for (const game of GAME_LIST) {
    const { id, key, french } = game.home.words;
    /** @type {Record<string, string>} */
    const data = { i18n: key };
    if (french !== undefined) data.wordFr = french;
    words.append(el("p", { class: "muted", attrs: { id, hidden: true }, data }));
  }
  translateTree(choice);
  translateTree(words);
}
