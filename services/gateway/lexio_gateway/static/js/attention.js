// @ts-check
// "Your turn" in a hidden tab: the title and the favicon say so; back to normal when seen.
import { t } from "./i18n.js";

const ICON = "/static/img/favicon.svg";
const ICON_TURN = "/static/img/favicon-turn.svg";
let on = false;

/** @param {boolean} wanted */
export function setAttention(wanted) {
  on = Boolean(wanted);
  document.title = on ? t("title.your_turn") : t("app.title");
  const link = document.getElementById("favicon");
  const href = on ? ICON_TURN : ICON;
  if (link && link.getAttribute("href") !== href) link.setAttribute("href", href);
  document.documentElement.classList.toggle("attention", on);
}

export function attentionOn() {
  return on;
}
