"""The review of a finished game in the browser tests (issue 26): games played to their end
quickly, the review screen's parts named once, the board read from the page, the rules
core's own replay of a record's first moves, the download and `lexio replay`.

Selectors of the review screen are named here once (REVIEW): if the screen renames them,
only this file changes."""

from __future__ import annotations

import asyncio
import functools
import json
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from lexio_testing import LoopThread
from playwright.sync_api import WebSocketRoute
from web_mishqaq import bot, create_table, play_turn, side, to_move, word_list
from web_pages import Player
from web_words import legal_move

from lexio_client.client import GatewayClient
from lexio_lexicon.words import DEFAULT_WORDLIST_PATH, WordList
from lexio_rules import record as lexio_record
from mishqaq_rules import record as mishqaq_record

# The review screen as the page names it.
REVIEW = {
    "screen": "#screen-review",
    "board": "#review-board",
    "first": "#review-first",
    "previous": "#review-prev",
    "next": "#review-next",
    "last": "#review-last",
    "slider": "#review-slider",
    "log": "#review-log",
    "current": '#review-log > [aria-current="step"]',
    "live": "#review-live",
    "board_window": "#review-board-wrap",
    "download": "#review-download",
    "rack": "#review-rack",
    "scores": "#review-scores",
    "words": "#review-words",
    "reveal": "#review-reveal",
    "close": "#review-close",
}
# The order Tab reaches the stepping controls in (the download may come before or after).
CONTROLS = ("first", "previous", "next", "last", "slider", "download")
# Each game's end panel (where "Revoir la partie" is).
END_PANEL = {"lexio": "#end-panel", "mishqaq": "#mq-end"}
# The end panel's button to the review, and its label in each language (review-spec.md §4).
REVIEW_BUTTON = {"lexio": "#btn-review", "mishqaq": "#mq-review"}
REVIEW_LABEL = {
    "fr": "Revoir la partie",
    "es": "Revisar la partida",
    "ar": "مراجعة المباراة",
    "en": "Review the game",
}
LEXIO_CLI = Path(sys.executable).with_name("lexio")


# A seat played by lexio_client ---------------------------------------------------------------

Action = dict[str, Any]
Chooser = Callable[[dict[str, Any]], Action]


class BotSeat:
    """A seat of the table played by lexio_client over its own WebSocket, on the servers'
    loop: it joins by the code, then plays whatever ``choose`` answers to its view whenever
    the turn is its own, until the game ends. What it was told is kept (its token, its log)."""

    def __init__(self, loop: LoopThread, url: str, code: str, name: str, choose: Chooser) -> None:
        self.choose = choose
        self.joined = threading.Event()
        self.client: GatewayClient | None = None
        self.done: Future[None] = asyncio.run_coroutine_threadsafe(
            self._run(url, code, name), loop.loop
        )
        if not self.joined.wait(10):
            self.finish(0)
            raise AssertionError("the bot never sat at the table")

    async def _run(self, url: str, code: str, name: str) -> None:
        async with GatewayClient.connect(url) as client:
            self.client = client
            await client.join(code, name)
            self.joined.set()
            while not client.view.get("ending"):
                view = client.view
                caught_up = client.view_seq == client.seq
                if view and caught_up and view.get("turn") in (view.get("seat"), view.get("side")):
                    await client.act(self.choose(view))
                else:
                    await asyncio.sleep(0.05)

    @property
    def token(self) -> str:
        assert self.client is not None and self.client.token is not None
        return self.client.token

    def finish(self, timeout: float = 15.0) -> None:
        """Wait for the game's end as this seat sees it (its failure, if it failed)."""
        self.done.result(timeout)


def lexio_script(*steps: str) -> Chooser:
    """A Lexio seat's turns in order: ``place`` (a legal move found from its view, seeded by
    the turn), ``exchange-N`` (its first N tiles), ``pass``."""
    turns = iter(steps)

    def choose(view: dict[str, Any]) -> Action:
        step = next(turns)
        if step == "place":
            place = legal_move(view["board"], view["rack"], len(view["board"]) + view["bag_count"])
            tiles = [
                {"row": t.row, "col": t.col, "letter": t.letter, "blank": t.blank}
                for t in place.tiles
            ]
            return {"place": {"tiles": tiles}}
        if step.startswith("exchange-"):
            return {"exchange": {"tiles": view["rack"][: int(step.split("-")[1])]}}
        assert step == "pass", step
        return {"pass_turn": {}}

    return choose


# Playing to the end -----------------------------------------------------------------------


def entries_seen(player: Player) -> int:
    length: int = player.js("window.lexio.log.length")
    return length


def wait_entry(everyone: tuple[Player, ...], before: int) -> None:
    for player in everyone:
        player.wait_log(before + 1)


def lexio_place(mover: Player, everyone: tuple[Player, ...], seed: int) -> int:
    """The mover places a legal move found from their own view, by clicks; the log's length
    with it."""
    before = entries_seen(mover)
    view = mover.view()
    mover.place_by_click(legal_move(view["board"], view["rack"], seed))
    mover.preview_text()
    mover.page.click("#btn-validate")
    wait_entry(everyone, before)
    return before + 1


def lexio_exchange(mover: Player, everyone: tuple[Player, ...], count: int) -> int:
    before = entries_seen(mover)
    mover.page.click("#btn-exchange")
    tiles = mover.page.locator("#exchange-tiles .exchange-tile")
    for i in range(count):
        tiles.nth(i).click()
    mover.page.click("#exchange-ok")
    wait_entry(everyone, before)
    return before + 1


def lexio_pass(mover: Player, everyone: tuple[Player, ...], *, ends: bool = False) -> int:
    """A pass; ``ends``: the fourth turn in a row without a placement (R31, two players),
    which the page asks to confirm first."""
    before = entries_seen(mover)
    mover.page.click("#btn-pass")
    if ends:
        mover.page.locator("#dlg-confirm[open]").wait_for()
        mover.page.click("#confirm-ok")
    wait_entry(everyone, before)
    return before + 1


def play_lexio_game(ana: Player, bruno: Player, placements: int = 4) -> None:
    """Ana (seat 0) and Bruno take turns placing ``placements`` words, then Ana exchanges two
    tiles, Bruno three (his are only a count to her, R27), Ana passes and Bruno's pass ends
    the game (R31): both pages on the end screen."""
    both = (ana, bruno)
    for turn in range(placements):
        lexio_place(both[turn % 2], both, seed=turn + 1)
    first, second = both[placements % 2], both[(placements + 1) % 2]
    lexio_exchange(first, both, 2)
    lexio_exchange(second, both, 3)
    lexio_pass(first, both)
    lexio_pass(second, both, ends=True)
    wait_end(both, "lexio")


def wait_turn(player: Player, after: int) -> None:
    """Until it is this page's turn again (Lexio: its seat; al-Mishqaq: its side) after the
    log's first ``after`` entries, or the game's end. A view lags its events: the turn is
    read only once the log has grown past ``after`` (a view from before the page's own move
    is not its next turn) and holds no result (al-Mishqaq's move that ends the game adds
    one: the view that says so comes next)."""
    player.wait_js(
        "(() => { const view = window.lexio.view, log = window.lexio.log;"
        " return view && (view.ending || log.length > "
        f"{after}"
        " && log.at(-1)?.kind !== 'result' && [view.seat, view.side].includes(view.turn)); })()",
        15,
    )


def lexio_against_bot(
    players: Any, loop: LoopThread, url: str, script: tuple[str, ...], **device: Any
) -> tuple[Player, BotSeat]:
    """Ana opens a Lexio table in the browser (``device``: locale, size), Bruno, a
    lexio_client bot playing ``script`` (lexio_script), joins; Ana starts and plays first."""
    ana: Player = players(url + "/", **device)
    code = ana.create("Ana")
    bruno = BotSeat(loop, url, code, "Bruno", lexio_script(*script))
    ana.wait_js("window.lexio.table.seats.length === 2")
    ana.page.locator("#start-game:enabled").click()
    ana.wait_screen("game")
    ana.wait_js("window.lexio.view !== null")
    return ana, bruno


BRUNO_SCRIPT = ("place", "place", "exchange-3", "pass")
"""Bruno's turns against play_lexio_against_bot: two words, three tiles exchanged (only
their count for Ana, R27), and the pass that ends the game (the fourth turn in a row without
a placement, R31)."""


def play_lexio_against_bot(ana: Player, bruno: BotSeat) -> None:
    """Ana places two words, exchanges two tiles, passes; Bruno plays BRUNO_SCRIPT."""
    alone = (ana,)
    for seed in (1, 2):
        wait_turn(ana, lexio_place(ana, alone, seed))
    wait_turn(ana, lexio_exchange(ana, alone, 2))
    wait_turn(ana, lexio_pass(ana, alone))
    wait_end(alone, "lexio")
    bruno.finish()


def play_lexio_passes(ana: Player, bruno: BotSeat) -> None:
    """The shortest game: four passes (R31); Bruno's script is two passes."""
    for _ in range(2):
        wait_turn(ana, lexio_pass(ana, (ana,)))
    wait_end((ana,), "lexio")
    bruno.finish()


class PageSocket:
    """The page's own WebSocket to the gateway, passed through by Playwright: what either
    side sends reaches the other as usual, and the test may also send a frame as the page
    (an action of the page's seat, played without its placing by hand: a long game fast).
    Installed before the page connects (it is reloaded)."""

    def __init__(self, player: Player) -> None:
        self.server: WebSocketRoute | None = None
        self.sent = 0
        player.page.route_web_socket("**/ws", self._route)
        player.page.reload()
        player.wait_js("window.lexio.welcomed")
        assert self.server is not None, "the page's socket was not routed"

    def _route(self, page_side: WebSocketRoute) -> None:
        # Connected with no handler of its own: every frame goes through both ways.
        self.server = page_side.connect_to_server()

    def act(self, action: Action) -> None:
        assert self.server is not None
        self.sent += 1
        frame = {"type": "act", "id": f"test-{self.sent}", "action": action}
        self.server.send(json.dumps(frame))


def mishqaq_against_bot(
    players: Any, loop: LoopThread, url: str, seed: int, **device: Any
) -> tuple[Player, PageSocket, BotSeat]:
    """Salma opens an al-Mishqaq table in the browser, in Arabic, playing the Arabic side
    (her page's socket passed through, PageSocket); a lexio_client bot (MishqaqBot, French
    list, ``seed``) joins for the Latin side; Salma starts."""
    salma: Player = players(url + "/", locale="ar-MA", **device)
    socket = PageSocket(salma)
    code = create_table(salma, "سلمى", side="arabic")
    racer = bot("fr", seed)
    latin = BotSeat(loop, url, code, "Diego", lambda view: racer.choose(view) or PASS)
    salma.wait_js("window.lexio.table.seats.length === 2")
    salma.page.locator("#start-game:enabled").click()
    salma.wait_screen("mishqaq")
    salma.wait_js("window.lexio.view !== null && window.lexio.view.side !== undefined")
    return salma, socket, latin


PASS: Action = {"pass_turn": {}}


def mishqaq_to_the_end(
    player: Player, socket: PageSocket, other: BotSeat, seed: int, max_turns: int = 60
) -> None:
    """On each of its turns until the game ends, the page's side plays what a MishqaqBot of
    ``seed`` finds from the page's own view, sent on the page's own connection (the page
    shows every move as played; placing by hand is test_web_mishqaq's)."""
    mine = side(player)
    racer = bot("ar" if mine == "arabic" else player.js("window.lexio.view.latin"), seed)
    seen = -1
    for _ in range(max_turns):
        wait_turn(player, seen)
        if player.js("window.lexio.view.ending"):
            other.finish()
            wait_end((player,), "mishqaq")
            return
        seen = entries_seen(player) + 1
        socket.act(racer.choose(player.view()) or PASS)
        player.wait_log(seen)
    raise AssertionError(f"no end after {max_turns} turns")


def play_mishqaq_then_resign(a: Player, b: Player, turns: int, seeds: tuple[int, int]) -> Player:
    """``turns`` turns found by the bots (clicks), then the side not to move resigns (M31),
    confirming; both pages on the end screen. The player who resigned."""
    latin = "fr" if a.js("window.lexio.view.latin") != "en" else "en"
    bots = {"latin": bot(latin, seeds[0]), "arabic": bot("ar", seeds[1])}
    for _ in range(turns):
        mover, other = to_move(a, b)
        play_turn(mover, other, bots, "click")
    _, waiting = to_move(a, b)
    waiting.page.click("#mq-resign")
    waiting.page.locator("#dlg-confirm[open]").wait_for()
    waiting.page.click("#confirm-ok")
    wait_end((a, b), "mishqaq")
    return waiting


def wait_end(everyone: tuple[Player, ...], game: str) -> None:
    for player in everyone:
        player.wait_js("window.lexio.view && window.lexio.view.ending", 15)
        player.page.locator(END_PANEL[game]).wait_for()


def lexio_end_scores(player: Player) -> list[int]:
    """The final scores as the end screen shows them, seat by seat."""
    seats = player.page.locator("#end-panel tr[data-seat]:not(.end-rack-row)")
    scores = {}
    for i in range(seats.count()):
        row = seats.nth(i)
        scores[int(row.get_attribute("data-seat") or -1)] = int(row.locator(".final").inner_text())
    return [scores[seat] for seat in sorted(scores)]


# The seat and what the browser keeps --------------------------------------------------------


def table_id(player: Player) -> str:
    found: str = player.js("window.lexio.table.table_id")
    return found


def token(player: Player) -> str:
    found: str = player.js("window.lexio.token")
    return found


def finished_games(player: Player) -> list[dict[str, Any]]:
    """What the browser remembers of its finished games (store.js: ``lexio.finished``)."""
    kept = player.js("localStorage.getItem('lexio.finished')")
    assert kept, "the browser keeps no finished game"
    games: list[dict[str, Any]] = json.loads(kept)
    return games


def fetch(url: str, table: str, seat_token: str, what: str = "review") -> Any:
    """``GET /api/tables/<table>/<what>`` with the seat's token, as the page asks it."""
    request = urllib.request.Request(
        f"{url}/api/tables/{table}/{what}", headers={"Authorization": f"Bearer {seat_token}"}
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.loads(reply.read())


# The review screen --------------------------------------------------------------------------


def open_review(player: Player, game: str, language: str = "fr") -> None:
    """The end panel's "Revoir la partie" (in the page's ``language``), then the review."""
    button = player.page.locator(f"{END_PANEL[game]} {REVIEW_BUTTON[game]}")
    assert button.inner_text() == REVIEW_LABEL[language]
    button.click()
    wait_review(player)


def wait_review(player: Player) -> None:
    player.page.locator(REVIEW["screen"]).wait_for(state="visible")
    player.page.locator(f"{REVIEW['board']} .cell").first.wait_for()
    player.page.locator(f"{REVIEW['slider']}:enabled").wait_for()


def position(player: Player) -> int:
    """The entry the review shows (0: the start, before the first entry)."""
    return int(player.page.input_value(REVIEW["slider"]))


def last_position(player: Player) -> int:
    return int(player.page.get_attribute(REVIEW["slider"], "max") or -1)


def wait_position(player: Player, at: int) -> None:
    player.wait_js(f"Number(document.querySelector('{REVIEW['slider']}').value) === {at}")


def press(player: Player, control: str) -> None:
    """One of the stepping buttons clicked."""
    player.page.click(REVIEW[control])


SLIDE = """([selector, value]) => {
  const slider = document.querySelector(selector);
  slider.value = String(value);
  slider.dispatchEvent(new Event("input", { bubbles: true }));
  slider.dispatchEvent(new Event("change", { bubbles: true }));
}"""


def slide_to(player: Player, at: int) -> None:
    """The slider dragged to ``at`` (its value set and its input and change events fired, as
    a drag ends)."""
    player.page.evaluate(SLIDE, [REVIEW["slider"], at])
    wait_position(player, at)


def current_entry(player: Player) -> int | None:
    """Which entry of the review's log is marked current (1-based), None if none is."""
    found: int | None = player.page.evaluate(
        """([log, current]) => {
          const entries = [...document.querySelectorAll(`${log} > li:not(.log-empty)`)];
          const marked = document.querySelector(current);
          if (!marked) return null;
          return entries.indexOf(marked) + 1;
        }""",
        [REVIEW["log"], REVIEW["current"]],
    )
    return found


# The board as the page draws it, and as the rules replay it ---------------------------------

LEXIO_BOARD = """(selector) => {
  const rows = Array.from({ length: 13 }, () => Array(13).fill("?"));
  for (const cell of document.querySelectorAll(`${selector} .cell[data-row][data-col]`)) {
    const tile = cell.querySelector(".tile");
    let text = ".";
    if (cell.classList.contains("sq-wall")) text = "#";
    if (tile) {
      const letter = tile.querySelector(".tile-letter").textContent;
      text = tile.classList.contains("blank") ? letter.toLowerCase() : letter;
    }
    rows[Number(cell.dataset.row)][Number(cell.dataset.col)] = text;
  }
  return rows.map((row) => row.join(""));
}"""

MISHQAQ_BOARD = """(selector) => {
  const rows = Array.from({ length: 22 }, () => Array(22).fill(null));
  for (const cell of document.querySelectorAll(`${selector} .cell[data-row][data-col]`)) {
    const tile = cell.querySelector(".mq-tile");
    let text = "";
    if (tile) {
      const letter = tile.querySelector(".mq-letter").textContent;
      if (tile.classList.contains("blank")) text = "?" + letter;
      else if (tile.classList.contains("bilingual")) text = letter + "+";
      else text = letter;
    }
    rows[Number(cell.dataset.row)][Number(cell.dataset.col)] = text;
  }
  return rows;
}"""


def board_on_page(player: Player, game: str) -> Any:
    """The review's board as drawn: Lexio as 13 strings (record-format.md's ``board``: a
    letter, lower case for a blank, ``.`` empty, ``#`` walled), al-Mishqaq as 22 rows of
    cells (mishqaq-record-format.md's: ``""`` or the tile as a record writes it)."""
    script = LEXIO_BOARD if game == "lexio" else MISHQAQ_BOARD
    return player.page.evaluate(script, REVIEW["board"])


# Log kinds that are moves of a record; al-Mishqaq's opening, pauses and result are not.
RECORD_KINDS = {
    "lexio": ("place", "exchange", "pass"),
    "mishqaq": ("place", "pass", "swap", "resign"),
}


def moves_before(entries: list[dict[str, Any]], at: int, game: str) -> int:
    """How many of a record's moves the first ``at`` log entries are."""
    return sum(entry["kind"] in RECORD_KINDS[game] for entry in entries[:at])


@functools.cache
def french_lexicon() -> WordList:
    return WordList.load(DEFAULT_WORDLIST_PATH)


def replayed_board(record: dict[str, Any], moves: int) -> Any:
    """The board after the record's first ``moves`` moves, replayed by the rules core itself
    (lexio_rules.record, mishqaq_rules.record) with the shipped lists."""
    first = {**record, "moves": record["moves"][:moves]}
    if moves < len(record["moves"]):
        first.pop("final_racks", None)  # the reveal belongs to the end only
    if record["format"] == lexio_record.FORMAT:
        result = lexio_record.replay(lexio_record.parse_record(first), french_lexicon())
    else:
        parsed = mishqaq_record.parse_record(first)
        lists = {ident: word_list(ident) for ident in mishqaq_record.lexicon_ids(parsed).values()}
        result = mishqaq_record.replay(parsed, lists)
    assert all(m["status"] == "accepted" for m in result["moves"]), result["moves"]
    return result["board"]


# The record downloaded, and `lexio replay` ----------------------------------------------------


def download_record(player: Player, directory: Path, keyboard: bool = False) -> tuple[str, Any]:
    """ "Télécharger la partie" (clicked, or Enter on it when ``keyboard``): the file's
    suggested name and its JSON, saved in ``directory``."""
    with player.page.expect_download() as info:
        if keyboard:
            player.page.keyboard.press("Enter")
        else:
            player.page.click(REVIEW["download"])
    download = info.value
    assert download.failure() is None, download.failure()
    name = download.suggested_filename
    path = directory / name
    download.save_as(path)
    return name, json.loads(path.read_text(encoding="utf-8"))


def lexio_replay(path: Path) -> dict[str, Any]:
    """``lexio replay`` as installed (tests/engine/test_engine_replay_cli.py runs it so)."""
    done = subprocess.run(
        [str(LEXIO_CLI), "replay", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


# The review's steps (issue 39): moves numbered, the rest named, an end one step with its cause

# Log kinds that are a game's moves (a turn played): Lexio's every entry; al-Mishqaq's
# placements and passes (M15), not its opening draw, swaps, pauses, resignation or result.
MOVE_KINDS = {"lexio": ("place", "exchange", "pass"), "mishqaq": ("place", "pass")}
# al-Mishqaq's result joins the entry its cause follows (M23, M31, M35); a flag follows none.
ENDED_BY = {"try": "place", "resign": "resign", "dead_position": "pass"}


def review_stops(entries: list[dict[str, Any]], game: str) -> list[list[int]]:
    """The steps the review should have, as the log entries (0-based) each slider position
    shows: none at the start, then one entry each, but a result that joins the entry before
    it."""
    stops: list[list[int]] = [[]]
    for i, entry in enumerate(entries):
        cause = ENDED_BY.get(str(entry.get("cause")))
        ends = game == "mishqaq" and i > 0 and entry["kind"] == "result"
        if ends and cause == entries[i - 1]["kind"]:
            stops[-1].append(i)
        else:
            stops.append([i])
    return stops


def is_move(entry: dict[str, Any], game: str) -> bool:
    return entry["kind"] in MOVE_KINDS[game]


def moves_up_to(entries: list[dict[str, Any]], through: int, game: str) -> int:
    """How many moves the log's entries up to index ``through`` (included) are."""
    return sum(is_move(entry, game) for entry in entries[: through + 1])


def review_label(player: Player) -> dict[str, str]:
    """What the review says of its step: the visible label, the slider's aria-valuetext and
    the board's name."""
    found: dict[str, str] = player.page.evaluate(
        """([position, slider, board]) => ({
          shown: document.querySelector(position).textContent,
          valuetext: document.querySelector(slider).getAttribute("aria-valuetext"),
          board: document.querySelector(board).getAttribute("aria-label"),
        })""",
        ["#review-position", REVIEW["slider"], REVIEW["board"]],
    )
    return found


# Where each sign of a signed number under ``root`` is drawn, and where its digits are: one
# Range over the sign, one over the digits (the screen's boxes, after the bidi algorithm).
SIGNED_NUMBERS = """(root) => {
  const found = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.parentElement.checkVisibility()) continue;
    for (const match of node.data.matchAll(/[-+\\u2212]([0-9\\u0660-\\u0669]+)/g)) {
      const sign = document.createRange();
      sign.setStart(node, match.index);
      sign.setEnd(node, match.index + 1);
      const digits = document.createRange();
      digits.setStart(node, match.index + 1);
      digits.setEnd(node, match.index + match[0].length);
      const s = sign.getBoundingClientRect(), d = digits.getBoundingClientRect();
      found.push({ text: match[0], sign: [s.left, s.right], digits: [d.left, d.right] });
    }
  }
  return found;
}"""


def signed_numbers(player: Player, selector: str) -> list[dict[str, Any]]:
    """Every signed number drawn under ``selector``: its text, the horizontal extent of its
    sign and of its digits on the screen."""
    found: list[dict[str, Any]] = player.page.locator(selector).evaluate(SIGNED_NUMBERS)
    return found
