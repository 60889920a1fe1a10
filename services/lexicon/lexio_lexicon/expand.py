"""Generate every surface word of a hunspell dictionary, with a chosen set of prefixes.

Hunspell accepts a word when it is a stem, or a stem with affixes that its flags allow
(``hunspell.py`` reads them). Generating the list means running those rules forwards:

* a stem alone (hunspell-ar has no ``NEEDAFFIX``);
* one suffix of a class the stem has, if the stem ends with its ``strip`` text and
  matches its condition, and is longer than ``strip`` (unless ``FULLSTRIP``);
* a second suffix (hunspell's "two-level" suffixes): a class named in the first
  suffix's continuation flags, tested against the once-suffixed form;
* one prefix, when the stem has its flag; with a suffix, also when that suffix's (or,
  with two suffixes, either suffix's) continuation flags name it, provided both classes
  allow cross products — hunspell's ``SfxEntry::checkword``/``check_twosfx`` rules.
  Its condition is tested against the suffixed form, as hunspell does.

``prefixes`` restricts which prefix texts (the *append* part, e.g. "ال") are used: this is
how the al-Mishqaq "game" profile keeps ال ب ل ك بال لل كال and the future س, and leaves
out the conjunctions و ف, the interrogative أ and every stack built on them (M38).

Speed (the Arabic build's budget is a minute): which rules of a class apply to a word
depends only on its last few characters, so the answer is cached per ending; prefixes
are applied at the end, once per group of suffixed forms that allow the same prefix
flags, with ``set.update(map(str.__add__ …))`` loops that stay in C.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

from lexio_lexicon.hunspell import AffixClass, Affixes, AffixRule, Stem

__all__ = ["GAME_PREFIXES", "Expansion", "expand"]

#: The al-Mishqaq game profile's proclitics (M38): article, ب ل ك, their stacks with the
#: article, and the future س. Not و ف (conjunctions) nor أ (interrogative).
GAME_PREFIXES: frozenset[str] = frozenset({"ال", "ب", "ل", "ك", "بال", "لل", "كال", "س"})

# (strip length, append, is the append plain?, prefix flags the continuation names,
#  suffix classes it names)
_Applied = tuple[int, str, bool, frozenset[str], tuple["_SuffixClass", ...]]


@dataclass
class Expansion:
    """The generated words: ``plain`` ones (see :func:`expand`) in a list that may repeat a
    word (the caller's trie removes repeats faster than a set of ten million would), the
    others in a set; ``generated`` counts forms before any de-duplication."""

    words: list[str]
    other: set[str]
    generated: int

    def unique(self) -> set[str]:
        """Every distinct word, plain or not (for tests and small dictionaries)."""
        return set(self.words) | self.other


class _Matcher:
    """Which rules of one class apply to a word, cached by the characters that decide it."""

    def __init__(self, kind: str, rules: tuple[AffixRule, ...], full_strip: bool) -> None:
        self.kind = kind
        self.full_strip = full_strip
        self.rules = rules
        self.reach = max((max(len(r.strip), r.condition_length) for r in rules), default=0)
        self._conditions = [
            None if rule.condition == "." else re.compile(rule.condition_regex(kind))
            for rule in rules
        ]
        self._long: dict[str, list[int]] = {}
        self._short: dict[str, list[int]] = {}

    def matching(self, word: str) -> list[int]:
        """Indexes of the rules that apply to ``word``."""
        reach = self.reach
        if len(word) > reach:
            key = "" if not reach else (word[-reach:] if self.kind == "SFX" else word[:reach])
            found = self._long.get(key)
            if found is None:
                found = self._long[key] = self._compute(key, len(word))
            return found
        found = self._short.get(word)
        if found is None:
            found = self._short[word] = self._compute(word, len(word))
        return found

    def _compute(self, text: str, length: int) -> list[int]:
        indexes = []
        for index, rule in enumerate(self.rules):
            strip = rule.strip
            fits = text.endswith(strip) if self.kind == "SFX" else text.startswith(strip)
            # Without FULLSTRIP hunspell keeps at least one character of the stem.
            long_enough = length > len(strip) or (self.full_strip and length == len(strip))
            if not (fits and long_enough and length >= rule.condition_length):
                continue
            condition = self._conditions[index]
            if condition is None or (
                condition.search(text) if self.kind == "SFX" else condition.match(text)
            ):
                indexes.append(index)
        return indexes


class _SuffixClass:
    """A suffix class ready for generation: its matcher and pre-digested rules."""

    def __init__(self, cls: AffixClass, full_strip: bool) -> None:
        self.flag = cls.flag
        self.cross = cls.cross_product
        self.matcher = _Matcher("SFX", cls.rules, full_strip)
        self.applied: list[_Applied] = []

    def link(
        self,
        suffixes: dict[str, _SuffixClass],
        prefix_flags: frozenset[str],
        is_plain: Callable[[str], bool],
    ) -> None:
        for rule in self.matcher.rules:
            nested = tuple(suffixes[f] for f in sorted(rule.continuation) if f in suffixes)
            self.applied.append(
                (
                    len(rule.strip),
                    rule.append,
                    is_plain(rule.append),
                    rule.continuation & prefix_flags,
                    nested,
                )
            )

    def apply(self, word: str) -> list[tuple[str, bool, frozenset[str], tuple[_SuffixClass, ...]]]:
        """(suffixed word, plain append?, prefix flags it allows, second-level classes)."""
        out = []
        for index in self.matcher.matching(word):
            strip, append, plain, prefix_flags, nested = self.applied[index]
            out.append(((word[:-strip] if strip else word) + append, plain, prefix_flags, nested))
        return out


def _prefix_rules(
    affixes: Affixes, allowed: Collection[str] | None
) -> dict[str, tuple[bool, tuple[AffixRule, ...]]]:
    """Prefix classes reduced to the rules whose added text the profile allows."""
    kept = {}
    for flag, cls in affixes.prefixes.items():
        rules = tuple(r for r in cls.rules if allowed is None or r.append in allowed)
        if rules:
            kept[flag] = (cls.cross_product, rules)
    return kept


def expand(
    affixes: Affixes,
    stems: Iterable[Stem],
    *,
    prefixes: Collection[str] | None = None,
    plain: str | None = None,
) -> Expansion:
    """Every word the stems generate; ``prefixes`` limits the prefix texts (None: all).

    With ``plain`` (a string of characters), forms built only from stems and affixes
    written in those characters go to ``words`` and every other form to ``other``: the
    caller can then treat the bulk cheaply and only the rest character by character.

    >>> from lexio_lexicon.hunspell import parse_aff, parse_dic
    >>> aff = parse_aff('''FLAG long
    ... PFX Pa Y 2
    ... PFX Pa 0 ال .
    ... PFX Pa 0 وال .
    ... SFX Sa Y 1
    ... SFX Sa 0 ات .
    ... ''')
    >>> sorted(expand(aff, parse_dic("1\\nكلم/PaSa\\n", aff), prefixes={"ال"}).unique())
    ['الكلم', 'الكلمات', 'كلم', 'كلمات']
    """
    prefix_rules = _prefix_rules(affixes, prefixes)
    prefix_flags = frozenset(prefix_rules)
    cross_prefixes = frozenset(f for f, (cross, _) in prefix_rules.items() if cross)
    is_plain = _plain_test(plain)
    suffixes = {f: _SuffixClass(c, affixes.full_strip) for f, c in affixes.suffixes.items()}
    for cls in suffixes.values():
        cls.link(suffixes, cross_prefixes, is_plain)

    words: list[str] = []
    other: set[str] = set()
    adders = (other.add, words.append)
    generated = 0
    # Forms that may take a prefix, grouped by the prefix flags they allow and plainness.
    groups: defaultdict[tuple[frozenset[str], bool], set[str]] = defaultdict(set)
    for stem in stems:
        word, flags = stem.word, stem.flags
        stem_plain = is_plain(word)
        adders[stem_plain](word)
        generated += 1
        own = flags & prefix_flags
        if own:
            groups[own, stem_plain].add(word)
        own_cross = own & cross_prefixes
        for flag in flags:
            first = suffixes.get(flag)
            if first is None:
                continue
            for once, append_plain, first_allows, nested in first.apply(word):
                once_plain = append_plain and stem_plain
                adders[once_plain](once)
                generated += 1
                # A prefix with a suffix needs cross products on both (hunspell's aeXPRODUCT).
                allows = (own_cross | first_allows) if first.cross else frozenset()
                if allows:
                    groups[allows, once_plain].add(once)
                for second in nested:
                    for twice, second_plain, second_allows, _ in second.apply(once):
                        twice_plain = second_plain and once_plain
                        adders[twice_plain](twice)
                        generated += 1
                        if second.cross:
                            both = allows | second_allows
                            if both:
                                groups[both, twice_plain].add(twice)
    generated += _add_prefixed(words, other, groups, prefix_rules, affixes.full_strip, is_plain)
    return Expansion(words, other, generated)


def _plain_test(plain: str | None) -> Callable[[str], bool]:
    """A test "is this text written only in ``plain``?" (always true without ``plain``)."""
    if plain is None:
        return lambda text: True
    table = dict.fromkeys(map(ord, plain))
    return lambda text: not text.translate(table)


def _add_prefixed(  # noqa: PLR0917 - a private helper of expand(), called once
    words: list[str],
    other: set[str],
    groups: dict[tuple[frozenset[str], bool], set[str]],
    prefix_rules: dict[str, tuple[bool, tuple[AffixRule, ...]]],
    full_strip: bool,
    is_plain: Callable[[str], bool],
) -> int:
    """Apply each group's prefixes; returns how many prefixed forms were produced."""
    generated = 0
    for (flags, forms_plain), forms in groups.items():
        rules = {rule for flag in flags for rule in prefix_rules[flag][1]}
        for rule in sorted(rules, key=lambda r: (r.append, r.strip, r.condition)):
            add_all = words.extend if forms_plain and is_plain(rule.append) else other.update
            if not rule.strip and rule.condition == ".":
                add_all(map(rule.append.__add__, forms))
                generated += len(forms)
                continue
            matcher = _Matcher("PFX", (rule,), full_strip)
            cut = len(rule.strip)
            chosen = [form for form in forms if matcher.matching(form)]
            add_all(rule.append + form[cut:] for form in chosen)
            generated += len(chosen)
    return generated
