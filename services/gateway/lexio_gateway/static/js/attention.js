// @ts-check
// The tab's title: the game shown (or the site), and "Your turn" in a hidden tab, when the
// favicon says so too; back to normal when seen.
import { t } from "./i18n.js";

const ICON = "/static/img/favicon.svg";
const ICON_TURN = "/static/img/favicon-turn.svg";
let on = false;
/** @type {string | null} the game shown, null: the site's own pages */
let game = null;

/** The tab's title without a call for attention. */
function plainTitle() {
  const site = t("app.title");
  return game && game !== site ? `${game} · ${site}` : site;
}

/** @param {string | null} name the game the page shows (its name in words), or null */
export function setTitleGame(name) {
  game = name;
  setAttention(on);
}

/** @param {boolean} wanted */
export function setAttention(wanted) {
  on = Boolean(wanted);
  document.title = on ? t("title.your_turn", { name: game ?? t("app.title") }) : plainTitle();
  const link = document.getElementById("favicon");
  const href = on ? ICON_TURN : ICON;
  if (link && link.getAttribute("href") !== href) link.setAttribute("href", href);
  document.documentElement.classList.toggle("attention", on);
}

export function attentionOn() {
  return on;
}
