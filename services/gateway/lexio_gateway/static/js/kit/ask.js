// @ts-check
// The keys a player presses to hear, on demand, what a sighted player sees at a glance: the
// last move again (Alt+L) and the game's state (Alt+P: each game says what it is: scores,
// turn and bag, or both clocks). Answered by kit/turns.js (TurnGame.askKey), said by
// announce.js's answer(): once, and not cut by the next live update.
//
// Why these keys. A single letter cannot be one: letters type tiles on the tile games' boards
// (a–z; in a game of two scripts Arabic letters too, which an Arabic layout also puts on the
// punctuation keys), and a screen reader in browse mode takes single letters for its own moves
// (H, B, E…). Lichess's blind mode answers "l" (last move) and "t" (clocks) on its board, where
// no letter types anything; Woogles' blindfold mode types a command after ";" (";" is a letter,
// ك, on an Arabic layout): neither fits a board that letters are typed on. What is left free on
// every reader and browser is Alt with a letter:
// - NVDA and JAWS use Insert or Caps Lock, VoiceOver Control+Option, Orca Insert or Caps Lock:
//   Alt+letter passes through to the page, in browse mode too, so the keys also work away
//   from the board (on the rack, a button, the log);
// - Firefox's menu bar (Windows, Linux) opens with Alt and a menu's underlined letter (English
//   F E V S B T H; no French or Spanish menu starts with L or P: Fichier, Édition, Affichage,
//   Historique, Marque-pages, Outils, Aide; Archivo, Editar, Ver, Historial, Marcadores,
//   Herramientas, Ayuda: their underlined letters were not checked one by one), Chrome's menu
//   with Alt+F or Alt+E, its address bar with Alt+D;
// - not Alt+Shift: on Windows it switches the keyboard's language, which a player typing
//   Arabic letters does between games; not Control+Alt: it is AltGr on a French keyboard
//   (AltGr+E types €); not Control: the browser's own (Ctrl+L, Ctrl+P).
// L for "last" (lichess's l), P for "points", "pendules" (French: the clocks), "puntos". The
// letter is the key's own when it types a Latin letter (L on a French AZERTY keyboard too),
// else the key's place on a QWERTY keyboard (event.code): with an Arabic layout the key marked
// L may send "م", a Mac's Option+L sends "¬"; both are the key marked L.

/** What each key asks for. @type {Record<string, "last" | "state">} */
const ASK_KEYS = { l: "last", p: "state" };

/**
 * What a key press asks to hear, if it is one of the keys: "last" (the last move again),
 * "state" (the scores or the clocks), else null.
 * @param {KeyboardEvent} event
 * @returns {"last" | "state" | null}
 */
export function askedFor(event) {
  if (!event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return null;
  let letter = null;
  if (/^[a-z]$/i.test(event.key)) letter = event.key.toLowerCase();
  else if (/^Key[A-Z]$/.test(event.code)) letter = event.code.slice(3).toLowerCase();
  return (letter && ASK_KEYS[letter]) || null;
}
