// @ts-check
// al-Mishqaq's table options (docs/protocol.md, M1–M3): the host's side, the Latin side's
// list, the two time banks. The home page asks for them (MishqaqOptionsForm), an invitation
// and the waiting table show them (describeOptions). They are fixed with the invitation.
import { $, clear, el } from "../../dom.js";
import { t, tNodes } from "../../i18n.js";
import { load, save } from "../../store.js";
import { otherSide } from "./tiles.js";

export const MINUTES = [20, 25, 30, 35, 40];
/** @type {Record<string, string | number>} */
export const DEFAULTS = { host_side: "latin", latin: "fr", latin_minutes: 30, arabic_minutes: 30 };
const SAVED = "mishqaq-options";

/** @returns {Record<string, unknown>} */
function saved() {
  try {
    const value = JSON.parse(load(SAVED) || "{}");
    return typeof value === "object" && value !== null ? value : {};
  } catch {
    return {};
  }
}

/** The controls of #home-mq-options (built once; their words follow the language). */
export class MishqaqOptionsForm {
  /** @param {HTMLElement} root */
  constructor(root) {
    this.root = root;
    const chosen = { ...DEFAULTS, ...saved() };
    for (const input of root.querySelectorAll('input[name="mq-side"]')) {
      if (input instanceof HTMLInputElement) input.checked = input.value === chosen.host_side;
    }
    if (!root.querySelector('input[name="mq-side"]:checked')) {
      /** @type {HTMLInputElement} */ ($('input[name="mq-side"]', root)).checked = true;
    }
    /** @type {HTMLSelectElement} */ ($("#mq-opt-latin", root)).value = chosen.latin === "en" ? "en" : "fr";
    for (const side of ["latin", "arabic"]) {
      /** @type {HTMLSelectElement} */
      const select = $(`#mq-opt-${side}-minutes`, root);
      for (const minutes of MINUTES) select.append(el("option", { attrs: { value: String(minutes) } }));
      const value = Number(chosen[`${side}_minutes`]);
      select.value = String(MINUTES.includes(value) ? value : DEFAULTS[`${side}_minutes`]);
    }
    this.relabel();
  }

  /** The minutes' words (plural forms) in the page's language. */
  relabel() {
    for (const option of this.root.querySelectorAll(".mq-minutes option")) {
      if (option instanceof HTMLOptionElement) option.textContent = t("mq.minutes", { count: Number(option.value) });
    }
  }

  /** The options as `create` sends them, remembered for the next table. */
  read() {
    /** @type {(selector: string) => string} */
    const value = (selector) => /** @type {HTMLInputElement | null} */ (this.root.querySelector(selector))?.value ?? "";
    const options = {
      host_side: value('input[name="mq-side"]:checked') === "arabic" ? "arabic" : "latin",
      latin: value("#mq-opt-latin") === "en" ? "en" : "fr",
      latin_minutes: Number(value("#mq-opt-latin-minutes")),
      arabic_minutes: Number(value("#mq-opt-arabic-minutes")),
    };
    save(SAVED, JSON.stringify(options));
    return options;
  }
}

/**
 * The options in words, one line each: the sides (``you``: the seat of the reader, or
 * "guest" for an invitee who has not joined yet), the Latin list, the two banks.
 * @param {Record<string, unknown> | null | undefined} options
 * @param {{ you?: string | null, names?: (string | undefined)[] | null }} [context]
 */
export function describeOptions(options, { you = null, names = null } = {}) {
  const chosen = { ...DEFAULTS, ...(options || {}) };
  const host = chosen.host_side === "arabic" ? "arabic" : "latin";
  const lines = [];
  if (you === "guest") {
    lines.push(tNodes("mq.options.you_will", { side: t(`mq.side.${otherSide(host)}`), host: t(`mq.side.${host}`) }));
  } else if (names) {
    /** @type {[number, string][]} */
    const seats = [[0, host], [1, otherSide(host)]];
    for (const [seat, side] of seats) {
      if (names[seat] === undefined) lines.push(t("mq.options.free_side", { side: t(`mq.side.${side}`) }));
      else lines.push(tNodes("mq.options.plays", { name: el("bdi", { text: names[seat] }), side: t(`mq.side.${side}`) }));
    }
  }
  lines.push(t("mq.options.latin_list", { list: t(`mq.list.${chosen.latin === "en" ? "en" : "fr"}`) }));
  lines.push(
    t("mq.options.banks", {
      latin: t("mq.minutes", { count: Number(chosen.latin_minutes) }),
      arabic: t("mq.minutes", { count: Number(chosen.arabic_minutes) }),
    }),
  );
  return lines;
}

/** Fill a list element with describeOptions' lines.
 *  @param {HTMLElement} root @param {Record<string, unknown> | null | undefined} options
 *  @param {{ you?: string | null, names?: (string | undefined)[] | null }} [context] */
export function renderOptions(root, options, context) {
  clear(root);
  for (const line of describeOptions(options, context)) root.append(el("li", {}, [line]));
}
