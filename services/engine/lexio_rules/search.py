"""Finding placements the rules accept (R12–R15) whose every word a word list holds.

This is a player's search, not a rule: bots, the load generator and tests use it to find *a*
real move from what one seat may see (the board and its own rack), never the best one.

Candidate words come from an anagram index (:class:`WordIndex`): the words made of some of the
rack's letters plus one letter already on the board (two, for a rack of at most
:data:`SMALL_RACK` letters; on an empty board, the rack's letters alone), and with a blank on
the rack, of those letters plus any one more (R15). They are tried in a random order, words of
up to four letters first (they fit more often), each laid through a tile of the board that
carries one of its letters in a random direction first (on an empty board, across through
the source, R13). Then, on a board with tiles, single rack tiles go on the cells beside them, in a
random order: words through several tiles of the board, as at the end of a game. A quick
sieve drops the placements whose main word (run on through the tiles against its ends) or a
cross word is unknown, as most are; then :func:`~lexio_rules.placement.form_move` has the
last word on the form of every placement (R12–R14) and the index on every word it forms.

For a blank the index keeps, for each set of letters, which single letters added to it make
a word's letters (:attr:`WordIndex.one_more`): a blank costs one more look-up per key, not
one per letter of the alphabet. A second blank is no second wildcard: no candidate needs both.

>>> import random
>>> from lexio_rules.board import EMPTY_BOARD
>>> words = WordIndex.of(["OS", "SOU", "SU", "SUD"])
>>> found = list(legal_placements(EMPTY_BOARD, "SOU", words, random.Random(1)))
>>> sorted("".join(t.letter for t in place.tiles) for place in found)
['OS', 'SOU', 'SU']
>>> all((6, 6) in {(t.row, t.col) for t in place.tiles} for place in found)
True

A blank stands for the letter a word lacks (a blank on the board is written in lower case):

>>> found = legal_placements(EMPTY_BOARD, "DS?", words, random.Random(1))
>>> sorted("".join(t.board_char for t in place.tiles) for place in found)
['Su', 'SuD', 'oS']
"""

from __future__ import annotations

import bisect
import itertools
import random
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Final, TypeVar

from lexio_rules.actions import Place, TilePlacement
from lexio_rules.board import CENTRE, EMPTY, SIZE, index
from lexio_rules.placement import FormedMove, form_move
from lexio_rules.tiles import BLANK, LETTERS, RACK_SIZE

DEFAULT_TRIES: Final = 20_000
"""Pairings of a word with a tile of the board tried before the search gives up."""

SHORT_WORD: Final = 4
"""Words of up to this many letters are tried before the longer ones: they fit more often."""

SMALL_RACK: Final = 3
"""A rack of at most this many letters (the end of a game) also looks for words through two
letters of the board: its last tiles seldom make a word with one letter alone."""

_CENTRE_INDEX: Final = index(*CENTRE)
_NONE: Final[tuple[str, ...]] = ()
_T = TypeVar("_T")


def _key(letters: Iterable[str]) -> str:
    """The anagram key: the letters, sorted."""
    return "".join(sorted(letters))


def _insert(key: str, letter: str) -> str:
    """The anagram key of ``key``'s letters and ``letter``."""
    at = bisect.bisect(key, letter)
    return key[:at] + letter + key[at:]


def _sub_multisets(letters: str) -> dict[str, None]:
    """Every sub-multiset of sorted ``letters`` (the empty one included), once each, as keys.

    >>> list(_sub_multisets("AAB"))
    ['', 'A', 'AA', 'B', 'AB', 'AAB']
    """
    keys: dict[str, None] = {"": None}
    for letter in letters:
        # ``letters`` is sorted: appending keeps every key sorted.
        keys.update(dict.fromkeys([key + letter for key in keys]))
    return keys


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class WordIndex:
    """A word list ready for :func:`legal_placements`: the words known, by their letters.

    Build it once (:meth:`of`, about a second for the French list) and share it: it is never
    changed. Only words of 2 to ``max_length`` letters A–Z are kept; the anagram indexes hold
    those a placement can lay down whole: at most a full rack and one letter of the board.

    >>> words = WordIndex.of(["SOU", "OUS", "OS", "DESSOUS", "ÉTÉ", "A"], max_length=5)
    >>> words, "OUS" in words, words.knows(["OS", "SOU"]), words.knows(["DESSOUS"])
    (WordIndex(3 words, max_length=5), True, True, False)
    >>> words.anagrams["OSU"], words.one_more["OU"], words.one_more["S"]
    (('OUS', 'SOU'), 'S', 'O')
    """

    words: frozenset[str]
    """Every word known: what the words a placement forms must be among."""
    anagrams: Mapping[str, tuple[str, ...]]
    """Sorted letters → the words made of exactly those letters, in alphabetical order."""
    one_more: Mapping[str, str]
    """Sorted letters → the letters (sorted, once each) that, added to them, make the letters
    of a word of :attr:`anagrams`: which letters of the board can extend a subset of the rack,
    and which letters a blank can stand for."""
    max_length: int

    @classmethod
    def of(cls, words: Iterable[str], max_length: int = SIZE) -> WordIndex:
        """The index of ``words`` (upper-case A–Z; others are left out) of up to ``max_length``
        letters. A row of the board has 13 cells: no longer word can ever be formed."""
        known = frozenset(
            w
            for w in words
            if 2 <= len(w) <= max_length and w.isascii() and w.isalpha() and w.isupper()
        )
        placeable = min(max_length, RACK_SIZE + 1)
        anagrams: defaultdict[str, list[str]] = defaultdict(list)
        for word in sorted(w for w in known if len(w) <= placeable):
            anagrams[_key(word)].append(word)
        one_more: defaultdict[str, set[str]] = defaultdict(set)
        for key in anagrams:
            for i, letter in enumerate(key):
                one_more[key[:i] + key[i + 1 :]].add(letter)
        return cls(
            known,
            {key: tuple(group) for key, group in anagrams.items()},
            {key: "".join(sorted(letters)) for key, letters in one_more.items()},
            max_length,
        )

    def __contains__(self, word: object) -> bool:
        return word in self.words

    def __len__(self) -> int:
        return len(self.words)

    def __repr__(self) -> str:
        return f"WordIndex({len(self.words)} words, max_length={self.max_length})"

    def knows(self, words: Iterable[str]) -> bool:
        """Are all of ``words`` known?"""
        return all(w in self.words for w in words)

    def candidates(self, rack: str, board_letters: Iterable[str] = ()) -> list[str]:
        """The words made of some of the rack's letters and one of ``board_letters`` (with
        none, of the rack's letters alone; with a rack of at most :data:`SMALL_RACK` letters,
        or two of them), and with a blank on the rack, of those and one letter more; each
        once, in a fixed order.

        A rack with two blanks is searched as with one: no candidate needs both.

        >>> words = WordIndex.of(["OS", "SOU", "SU", "SUD", "DOS"])
        >>> words.candidates("SU"), words.candidates("U?", "S")
        (['SU'], ['OS', 'SU', 'SUD', 'SOU'])
        >>> words.candidates("SUEEE", "DO"), words.candidates("SU", "DO")
        (['OS', 'SUD', 'SOU'], ['OS', 'SUD', 'SOU', 'DOS'])
        """
        letters = "".join(sorted(ch for ch in rack if ch != BLANK and ch in LETTERS))
        subsets = _sub_multisets(letters)
        board = {ch.upper() for ch in board_letters}
        wild = BLANK in rack
        keys: Iterable[str]
        if not board:
            keys = subsets
        elif wild:
            keys = dict.fromkeys([_insert(key, b) for key in subsets for b in sorted(board)])
        else:
            # Only the board's letters that make, with the subset, the letters of some word.
            keys = dict.fromkeys(
                [
                    _insert(key, b)
                    for key in subsets
                    for b in self.one_more.get(key, "")
                    if b in board
                ]
            )
        if board and len(letters) <= SMALL_RACK:
            # A word through two letters a, b of the board: its letters less b are the
            # subset and a, and b is among the letters ``one_more`` lists for those.
            ordered = sorted(board)
            keys = {
                **dict.fromkeys(keys),
                **dict.fromkeys(
                    [
                        _insert(with_a, b)
                        for key in subsets
                        if key
                        for a in ordered
                        for with_a in (_insert(key, a),)
                        for b in self.one_more.get(with_a, "")
                        if b in board
                    ]
                ),
            }
        found: list[str] = []
        for key in keys:
            found += self.anagrams.get(key, _NONE)
            if wild:
                for letter in self.one_more.get(key, ""):
                    found += self.anagrams[_insert(key, letter)]
        return list(dict.fromkeys(found)) if wild else found


def _random_order(items: list[_T], rng: random.Random) -> Iterator[_T]:
    """``items`` in a random order, drawn only as far as asked (a lazy Fisher–Yates shuffle)."""
    count = len(items)
    for i in range(count):
        j = rng.randrange(i, count)
        items[i], items[j] = items[j], items[i]
        yield items[i]


def _run(board: str, middle: str, first: int, start: int, step: int) -> str:
    """The word that ``middle``, laid from cell ``first`` (``start`` along its line) by steps
    of ``step``, makes with the tiles already against its two ends."""
    before = []
    cell, at = first - step, start - 1
    while at >= 0 and board[cell].isalpha():
        before.append(board[cell].upper())
        cell, at = cell - step, at - 1
    after = []
    cell, at = first + len(middle) * step, start + len(middle)
    while at < SIZE and board[cell].isalpha():
        after.append(board[cell].upper())
        cell, at = cell + step, at + 1
    return "".join(reversed(before)) + middle + "".join(after)


def _sieve(
    board: str,
    known: frozenset[str],
    word: str,
    cells: list[tuple[int, str]],
    *,
    first: int,
    start: int,
    across: bool,
) -> bool:
    """False if the tiles against the word's ends or against a new tile's sides make a word
    (R14) that is not ``known``: most tries fail so, and this is cheaper than
    :func:`~lexio_rules.placement.form_move`. Only a sieve: form_move and every word it
    forms remain the test."""
    step, cross = (1, SIZE) if across else (SIZE, 1)
    end = start + len(word)
    if (
        (start > 0 and board[first - step].isalpha())
        or (end < SIZE and board[first + len(word) * step].isalpha())
    ) and _run(board, word, first, start, step) not in known:
        return False
    for cell, letter in cells:
        at = cell // SIZE if across else cell % SIZE
        if (
            (at > 0 and board[cell - cross].isalpha())
            or (at < SIZE - 1 and board[cell + cross].isalpha())
        ) and _run(board, letter, cell, at, cross) not in known:
            return False
    return True


def _lay(
    board: str,
    rack: dict[str, int],
    known: frozenset[str],
    word: str,
    anchor: int,
    *,
    at: int,
    across: bool,
) -> Place | None:
    """``word`` with its letter ``at`` on cell ``anchor``: the tiles it needs from the rack
    (a blank for a letter the rack lacks), or None if the board, the rack or the sieve of
    words (:func:`_sieve`) says no."""
    row, col = divmod(anchor, SIZE)
    start = (col if across else row) - at
    if start < 0 or start + len(word) > SIZE:
        return None
    step = 1 if across else SIZE
    first = anchor - at * step
    cells = []
    for i, letter in enumerate(word):
        cell = first + i * step
        on_cell = board[cell]
        if on_cell == EMPTY:
            cells.append((cell, letter))
        elif on_cell.upper() != letter:  # another letter, or a walled cell
            return None
    if not cells or len(cells) > RACK_SIZE:
        return None
    spare = dict(rack)
    tiles = []
    for cell, letter in cells:
        if spare.get(letter, 0) > 0:
            spare[letter] -= 1
            blank = False
        elif spare.get(BLANK, 0) > 0:
            spare[BLANK] -= 1
            blank = True
        else:
            return None
        tiles.append(TilePlacement(cell // SIZE, cell % SIZE, letter, blank))
    if not _sieve(board, known, word, cells, first=first, start=start, across=across):
        return None
    return Place(tuple(tiles))


def _hooks(board: str, rack: str) -> list[tuple[str, int]]:
    """(letter, cell): one tile of the rack on an empty cell beside a tile of the board (with
    a blank, any letter). Words through several tiles of the board are mostly made so."""
    letters = LETTERS if BLANK in rack else sorted({t for t in rack if t in LETTERS})
    hooks: list[tuple[str, int]] = []
    for cell, ch in enumerate(board):
        if ch != EMPTY:
            continue
        row, col = divmod(cell, SIZE)
        if (
            (row > 0 and board[cell - SIZE].isalpha())
            or (row < SIZE - 1 and board[cell + SIZE].isalpha())
            or (col > 0 and board[cell - 1].isalpha())
            or (col < SIZE - 1 and board[cell + 1].isalpha())
        ):
            hooks.extend((letter, cell) for letter in letters)
    return hooks


def _attempts(
    board: str, words: WordIndex, rack: str, rng: random.Random
) -> Iterator[tuple[str, int, int, tuple[bool, ...]]]:
    """(word, anchor cell, index of the word's letter on it, the directions to lay it in)."""
    anchors: defaultdict[str, list[int]] = defaultdict(list)
    for cell, ch in enumerate(board):
        if ch.isalpha():
            anchors[ch.upper()].append(cell)
    candidates = words.candidates(rack, anchors)
    short = [w for w in candidates if len(w) <= SHORT_WORD]
    long = [w for w in candidates if len(w) > SHORT_WORD]
    for word in itertools.chain(_random_order(short, rng), _random_order(long, rng)):
        if not anchors:
            # The first move, through the source (R13), across: down is alike there (the
            # layout is symmetric and no bonus lies on row 6 or column 6, R9).
            yield word, _CENTRE_INDEX, rng.randrange(len(word)), (True,)
            continue
        for at, letter in enumerate(word):
            for anchor in anchors.get(letter, ()):
                across = rng.random() < 0.5
                yield word, anchor, at, (across, not across)
    if anchors:
        # Then single tiles against the board, in a random order (one direction: a single
        # tile makes the same words either way).
        for letter, cell in _random_order(_hooks(board, rack), rng):
            yield letter, cell, 0, (True,)


def legal_placements(
    board: str, rack: str, words: WordIndex, rng: random.Random, *, tries: int = DEFAULT_TRIES
) -> Iterator[Place]:
    """Placements of tiles of ``rack`` on ``board`` that the rules accept and whose every word
    ``words`` knows, each once, in the random order ``rng`` draws, found lazily.

    On an empty board every placement covers the source (R13), across (down is alike); on
    another, each candidate word is laid through each tile of the board carrying one of its
    letters, in a random direction and then the other; then single tiles of the rack beside
    the board's tiles. At most ``tries`` such tries (pairings of a word and a tile of the
    board, words on an empty board, single tiles) are made in all, so at most twice as many
    placements are laid and judged; the candidate words are looked up once, at the first
    placement asked for. A tile the word needs and the rack lacks is a blank, if one is left.
    """
    if not rack or tries <= 0:
        return
    have: dict[str, int] = {}
    for tile in rack:
        have[tile] = have.get(tile, 0) + 1
    seen: set[Place] = set()
    attempts = _attempts(board, words, rack, rng)
    for tried, (word, anchor, at, directions) in enumerate(attempts, 1):
        for direction in directions:
            place = _lay(board, have, words.words, word, anchor, at=at, across=direction)
            if place is None or place in seen:
                continue
            formed = form_move(board, rack, place)
            if isinstance(formed, FormedMove) and words.knows(w.word for w in formed.words):
                seen.add(place)
                yield place
        if tried >= tries:
            return
