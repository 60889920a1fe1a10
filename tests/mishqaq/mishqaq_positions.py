"""Helpers shared by the al-Mishqaq rules tests: positions built by hand, stand-in lexicons,
outcome checks, and the tables of mishqaq-rules.md copied from the rules text (never from the
implementation).

A board is written as ``{(row, col): text}``: ``"C"``, ``"R+"`` (the Latin bag's bilingual R),
``"ر+"``, ``"ش"``, and ``"?S"`` / ``"?ر"`` for a blank declared as S / ر (its owner is the
script of the declared letter). A rack is a list of tile texts, ``"?"`` a blank of that side.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from mishqaq_rules.actions import Action, Place
from mishqaq_rules.board import Board, PlacedTile
from mishqaq_rules.game import Accepted, Lexicon, Outcome, Refused, WordSet, play
from mishqaq_rules.reasons import ClockRefusal, Reason
from mishqaq_rules.sides import Side
from mishqaq_rules.state import GameState, new_game
from mishqaq_rules.tiles import Tile

L, A = Side.LATIN, Side.ARABIC
N = 22

# --- the rules text ---------------------------------------------------------------------------

# Appendix A.2, A.3, A.4, copied from mishqaq-rules.md ("+ 2 blanks" each).
RULES_BAGS = {
    "fr": "A6 B1 C2 D2 E11 F1 G1 H1 I5 J1 K1 L3 M2 N5 O4 P2 Q1 R5 S6 T5 U3 V1 W1 X1 Y1 Z1",
    "en": "A5 B1 C2 D3 E8 F1 G2 H3 I5 J1 K1 L3 M2 N5 O5 P2 Q1 R5 S5 T6 U2 V1 W1 X1 Y1 Z1",
    "ar": "ا11 ل8 ي5 م4 ن4 ت3 ر3 و3 ب2 د2 ع2 ف2 ق2 ك2 س2 ه2 ة2 ء1 ث1 ج1 ح1 خ1 ذ1 ز1 ش1 ص1 ض1 ط1 "
    "ظ1 غ1 ى1",
}
RULES_BLANKS = 2

# M8, copied: "A/ا B/ب D/د F/ف H/ه J/ج K/ك L/ل M/م N/ن Q/ق R/ر S/س T/ت W/و Y/ي Z/ز".
RULES_PAIRS = "A/ا B/ب D/د F/ف H/ه J/ج K/ك L/ل M/م N/ن Q/ق R/ر S/س T/ت W/و Y/ي Z/ز"
# M8, copied: letters with no partner.
RULES_UNPAIRED_TEXT = "ة ى ء ث ح خ ذ ش ص ض ط ظ ع غ C E G I O P U V X"

# M10, copied from appendix C.1 step 5: the 31-letter tile alphabet.
RULES_ARABIC_TEXT = "ء ا ب ت ة ث ج ح خ د ذ ر ز س ش ص ض ط ظ ع غ ف ق ك ل م ن ه و ى ي"

# M13, copied: "ا=1 ب=2 … ي=28, with ء ranked as ا (1), ة as ت (3), ى as ي (28)".
RULES_HIJAI = (
    "ا=1 ب=2 ت=3 ث=4 ج=5 ح=6 خ=7 د=8 ذ=9 ر=10 ز=11 س=12 ش=13 ص=14 ض=15 ط=16 ظ=17 ع=18 غ=19 ف=20 "
    "ق=21 ك=22 ل=23 م=24 ن=25 ه=26 و=27 ي=28 ء=1 ة=3 ى=28"
)


def rules_bag(latin: str) -> dict[str, int]:
    return {item[0]: int(item[1:]) for item in RULES_BAGS[latin].split()}


def rules_pairs() -> dict[str, str]:
    return dict(pair.split("/") for pair in RULES_PAIRS.split())


def rules_ranks() -> dict[str, int]:
    return {item.split("=")[0]: int(item.split("=")[1]) for item in RULES_HIJAI.split()}


# --- tiles and positions --------------------------------------------------------------------


def script_of(letter: str) -> Side:
    return L if "A" <= letter <= "Z" else A


def tile(text: str, side: Side | None = None) -> Tile:
    if text == "?":
        assert side is not None, "a blank needs its side"
    return Tile.parse(text, side)


def placed(text: str) -> PlacedTile:
    if text.startswith("?"):
        letter = text[1:]
        return PlacedTile(Tile.parse("?", script_of(letter)), letter)
    return PlacedTile(Tile.parse(text))


def board_of(cells: Mapping[tuple[int, int], str]) -> Board:
    return Board.empty().with_tiles((r, c, placed(t)) for (r, c), t in cells.items())


def row_of(row: int, start: int, texts: Sequence[str], step: int = 1) -> dict[tuple[int, int], str]:
    """Cells for consecutive tiles along a row (``step`` −1: leftwards)."""
    return {(row, start + i * step): t for i, t in enumerate(texts)}


def col_of(col: int, start: int, texts: Sequence[str]) -> dict[tuple[int, int], str]:
    return {(start + i, col): t for i, t in enumerate(texts)}


def rack_of(side: Side, texts: Iterable[str]) -> tuple[Tile, ...]:
    return tuple(Tile.parse(t, side) for t in texts)


# Both red squares covered by a word of their side: neither side's first placement is due.
OPENED = {
    **row_of(10, 1, ["C", "A", "P"]),
    **row_of(10, 20, ["ك", "ت", "ب"], step=-1),
}


def position(
    board: Mapping[tuple[int, int], str] | None = None,
    *,
    latin: Sequence[str] = ("E", "E", "E", "E", "E", "E"),
    arabic: Sequence[str] = ("ا", "ا", "ا", "ا", "ا", "ا"),
    turn: Side = L,
    table: str = "fr",
    now: float = 0.0,
) -> GameState:
    """A game at ``now`` with this board, these racks and ``turn`` to move; the bags are the
    seeded ones of a new game (their contents need not match the board)."""
    game = new_game(latin=table, seed=11, now=now, opening=turn)
    return replace(
        game,
        board=board_of(board or {}),
        racks=(rack_of(L, latin), rack_of(A, arabic)),
    )


# --- lexicons ---------------------------------------------------------------------------------


class AnyWord:
    """A list that knows every word (random play: the words a game forms do not matter)."""

    def unknown(self, words: Sequence[str]) -> list[str]:
        return []


class NoWord:
    """A list that knows no word."""

    def unknown(self, words: Sequence[str]) -> list[str]:
        return list(words)


#: The lexicons of a table, by list, that accept every word / refuse every word.
ANY = {"fr": AnyWord(), "en": AnyWord(), "ar": AnyWord()}
NONE = {"fr": NoWord(), "en": NoWord(), "ar": NoWord()}


class AcceptAll:
    """Every reading is a word."""

    def __init__(self) -> None:
        self.asked: list[list[str]] = []

    def unknown(self, words: Sequence[str]) -> list[str]:
        self.asked.append(list(words))
        return []


class Recording:
    """A word list that remembers each batch it was asked about."""

    def __init__(self, words: Iterable[str]) -> None:
        self.words = WordSet(words)
        self.asked: list[list[str]] = []

    def unknown(self, words: Sequence[str]) -> Sequence[str]:
        self.asked.append(list(words))
        return self.words.unknown(words)


class Exploding:
    """A lexicon that must not be consulted."""

    def unknown(self, words: Sequence[str]) -> list[str]:
        raise AssertionError(f"the lexicon was consulted: {list(words)}")


def words(**lists: Iterable[str]) -> dict[str, Lexicon]:
    """In-memory lists by id: ``words(fr=["CAT"], ar=["كتب"])``."""
    return {list_id: WordSet(listed) for list_id, listed in lists.items()}


def every(lexicon: Lexicon) -> dict[str, Lexicon]:
    """The same lexicon for fr, en and ar."""
    return {"fr": lexicon, "en": lexicon, "ar": lexicon}


# --- outcomes ---------------------------------------------------------------------------------


def accepted(outcome: Outcome) -> Accepted:
    assert isinstance(outcome, Accepted), outcome
    return outcome


def refused(outcome: Outcome) -> Refused:
    assert isinstance(outcome, Refused), outcome
    return outcome


def reason(
    game: GameState,
    action: Action,
    side: Side | None = None,
    now: float = 1.0,
    lexicon: Lexicon | None = None,
) -> Reason | ClockRefusal:
    """The refusal's reason; unless told otherwise, the lexicon must not even be asked, and a
    refusal before the lexicon changes nothing."""
    outcome = play(game, side or game.turn, action, now, every(lexicon or Exploding()))
    out = refused(outcome)
    if out.refusal.reason is not Reason.UNKNOWN_WORDS and out.refusal.flagged is None:
        assert out.state == game
        assert not out.state_changed
    return out.refusal.reason


def words_of(outcome: Outcome) -> list[tuple[str, str]]:
    """(word, direction) of an accepted placement, in the log's order."""
    return [(w.word, w.direction.value) for w in accepted(outcome).entry.words]


def place(*specs: tuple[int, int, str] | tuple[int, int, str, str]) -> Place:
    return Place.of(*specs)
