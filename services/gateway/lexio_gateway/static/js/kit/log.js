// @ts-check
// A game's log as a list, each entry a line the game writes; drawn again only when it changed.
import { clear, el } from "../dom.js";
import { currentLanguage, t } from "../i18n.js";

export class LogView {
  /** @param {HTMLElement} root @param {(entry: any, table: any) => HTMLElement} line */
  constructor(root, line) {
    this.root = root;
    this.line = line;
    this.key = "";
  }

  reset() {
    this.key = "";
  }

  /** @param {any[]} log @param {any} table */
  render(log, table) {
    const key = `${currentLanguage()}|${log.length}|${JSON.stringify(table?.seats?.map((/** @type {any} */ s) => s.name))}`;
    if (key === this.key) return;
    this.key = key;
    const root = clear(this.root);
    if (!log.length) {
      root.append(el("li", { class: "log-empty", text: t("game.log_empty") }));
      return;
    }
    for (const entry of log) root.append(this.line(entry, table));
    root.scrollTop = root.scrollHeight;
  }
}

/**
 * A log entry's line as the kit's games write it: its number, then what the game says of it.
 * @param {{ number: number, kind: string }} entry @param {Node} body
 */
export function logItem(entry, body) {
  return el("li", { class: `log-entry kind-${entry.kind}`, data: { number: String(entry.number) } }, [
    el("span", { class: "log-num", text: String(entry.number) }),
    el("span", { class: "log-body" }, [body]),
  ]);
}
