"""A reader for hunspell ``.aff`` / ``.dic`` pairs: only what word generation needs.

Hunspell describes a language as stems (``.dic``) plus affix classes (``.aff``); this
module turns both into plain values for :mod:`lexio_lexicon.expand`. It understands what
Debian's ``hunspell-ar`` uses and what its expansion depends on:

* ``FLAG long`` (two-character flags), ``FLAG num`` (comma-separated numbers) and the
  default one-character flags;
* ``AF`` flag aliases (a numeric flag field is then an alias number, 1-based);
* ``PFX``/``SFX`` classes with their cross-product mark, strip, append, continuation
  classes (``append/flags``) and conditions (``.``, letters, ``[abc]``, ``[^abc]``);
* ``IGNORE`` (characters removed from stems and affixes, as hunspell does at load time)
  and ``FULLSTRIP``.

Morphological fields (``AM``, ``st:``…), suggestion tables (``REP``, ``MAP``, ``KEY``,
``TRY``) and input conversion (``ICONV``) do not change which words exist, so they are
skipped. Features that would change generation but are not implemented (prefixes with
continuation classes, ``COMPLEXPREFIXES``, ``NEEDAFFIX``, ``CIRCUMFIX``, compounding)
raise :class:`HunspellError` rather than silently giving a wrong list.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property

__all__ = ["AffixClass", "AffixRule", "Affixes", "HunspellError", "Stem", "parse_aff", "parse_dic"]

# Directives whose presence would change the generated words in ways we do not model.
_UNSUPPORTED = frozenset(
    {
        "COMPLEXPREFIXES",
        "NEEDAFFIX",
        "PSEUDOROOT",
        "CIRCUMFIX",
        "ONLYINCOMPOUND",
        "COMPOUNDFLAG",
        "COMPOUNDBEGIN",
        "COMPOUNDRULE",
        "FORBIDDENWORD",
    }
)
_CONDITION_ELEMENT = re.compile(r"\[\^?[^\]]*\]|.")


class HunspellError(ValueError):
    """The .aff or .dic text cannot be read (malformed, or a feature we do not model)."""


@dataclass(frozen=True, slots=True)
class AffixRule:
    """One PFX/SFX line: remove ``strip``, add ``append``, if ``condition`` holds."""

    strip: str
    append: str
    condition: str
    continuation: frozenset[str] = frozenset()

    @property
    def condition_length(self) -> int:
        """How many characters the condition looks at (hunspell's ``conds.num``)."""
        return 0 if self.condition == "." else len(_CONDITION_ELEMENT.findall(self.condition))

    def condition_regex(self, kind: str) -> str:
        """The condition as a regex anchored at the word's end (SFX) or start (PFX).

        >>> AffixRule("", "ه", "[^ةى]ء").condition_regex("SFX")
        '(?:[^ةى]ء)\\\\Z'
        >>> AffixRule("ل", "لل", "ل").condition_regex("PFX")
        '(?:ل)'
        """
        parts = []
        for element in _CONDITION_ELEMENT.findall(self.condition):
            if element.startswith("["):
                negated = element.startswith("[^")
                body = element[2:-1] if negated else element[1:-1]
                parts.append(("[^" if negated else "[") + re.escape(body) + "]")
            elif element == ".":
                parts.append(".")
            else:
                parts.append(re.escape(element))
        pattern = "(?:" + "".join(parts) + ")"
        return pattern + r"\Z" if kind == "SFX" else pattern


@dataclass(frozen=True, slots=True)
class AffixClass:
    """All the rules of one flag: ``kind`` is "PFX" or "SFX"."""

    kind: str
    flag: str
    cross_product: bool
    rules: tuple[AffixRule, ...]


@dataclass(frozen=True, slots=True)
class Stem:
    """One ``.dic`` entry: a word and its affix flags."""

    word: str
    flags: frozenset[str]


@dataclass(frozen=True)
class Affixes:
    """What an ``.aff`` file says about word formation."""

    flag_mode: str = "char"
    aliases: tuple[frozenset[str], ...] = ()
    prefixes: dict[str, AffixClass] = field(default_factory=dict)
    suffixes: dict[str, AffixClass] = field(default_factory=dict)
    ignore: str = ""
    full_strip: bool = False

    def flags(self, text: str) -> frozenset[str]:
        """Decode a flag field (after '/'), resolving an ``AF`` alias number."""
        text = text.strip()
        if not text:
            return frozenset()
        if self.aliases and text.isdigit():
            index = int(text)
            if not 1 <= index <= len(self.aliases):
                raise HunspellError(
                    f"flag alias {index} is not defined (AF has {len(self.aliases)})"
                )
            return self.aliases[index - 1]
        return _split_flags(text, self.flag_mode)

    def remove_ignored(self, text: str) -> str:
        return text.translate(self._ignore_table) if self.ignore else text

    @cached_property
    def _ignore_table(self) -> dict[int, None]:
        return dict.fromkeys(map(ord, self.ignore))


def _split_flags(text: str, mode: str) -> frozenset[str]:
    """Split a flag field according to the FLAG mode.

    >>> sorted(_split_flags("TaTb", "long")), sorted(_split_flags("1,22", "num"))
    (['Ta', 'Tb'], ['1', '22'])
    """
    if mode == "long":
        if len(text) % 2:
            raise HunspellError(f"odd number of characters in long flags {text!r}")
        return frozenset(text[i : i + 2] for i in range(0, len(text), 2))
    if mode == "num":
        return frozenset(part.strip() for part in text.split(",") if part.strip())
    return frozenset(text)


def _fields(lines: Iterable[str]) -> Iterator[tuple[int, list[str]]]:
    """Non-empty, non-comment lines split on whitespace, with their 1-based number."""
    for number, line in enumerate(lines, start=1):
        parts = line.split()
        if parts and not parts[0].startswith("#"):
            yield number, parts


def parse_aff(text: str) -> Affixes:
    """Read an ``.aff`` file's text.

    >>> aff = parse_aff("FLAG long\\nSFX Aa Y 1\\nSFX Aa 0 ات/Bb .\\n")
    >>> aff.suffixes["Aa"].rules
    (AffixRule(strip='', append='ات', condition='.', continuation=frozenset({'Bb'})),)
    """
    fields = list(_fields(text.splitlines()))
    flag_mode, ignore, full_strip = "char", "", False
    raw_aliases: list[str] = []
    for number, parts in fields:
        keyword = parts[0]
        if keyword in _UNSUPPORTED:
            raise HunspellError(f"line {number}: {keyword} is not supported by this reader")
        if keyword == "FLAG" and len(parts) > 1:
            flag_mode = {"long": "long", "num": "num", "UTF-8": "char"}.get(parts[1], "")
            if not flag_mode:
                raise HunspellError(f"line {number}: unknown FLAG type {parts[1]!r}")
        elif keyword == "IGNORE" and len(parts) > 1:
            ignore = parts[1]
        elif keyword == "FULLSTRIP":
            full_strip = True
        elif keyword == "AF" and len(parts) > 1 and not parts[1].isdigit():
            raw_aliases.append(parts[1])  # "AF <count>" is the header; the rest are aliases
    aliases = tuple(_split_flags(alias, flag_mode) for alias in raw_aliases)
    base = Affixes(flag_mode=flag_mode, aliases=aliases, ignore=ignore, full_strip=full_strip)
    prefixes, suffixes = _parse_classes(fields, base)
    return Affixes(
        flag_mode=flag_mode,
        aliases=aliases,
        prefixes=prefixes,
        suffixes=suffixes,
        ignore=ignore,
        full_strip=full_strip,
    )


def _parse_classes(
    fields: list[tuple[int, list[str]]], base: Affixes
) -> tuple[dict[str, AffixClass], dict[str, AffixClass]]:
    headers: dict[tuple[str, str], tuple[bool, int, int]] = {}
    rules: dict[tuple[str, str], list[AffixRule]] = {}
    for number, parts in fields:
        kind = parts[0]
        if kind not in ("PFX", "SFX"):
            continue
        if len(parts) < 4:
            raise HunspellError(f"line {number}: {kind} line has too few fields")
        key = (kind, parts[1])
        if key not in headers:
            # The header: "SFX flag Y|N count".
            if parts[2] not in ("Y", "N") or not parts[3].isdigit():
                raise HunspellError(f"line {number}: {kind} {parts[1]} has no header line")
            headers[key] = (parts[2] == "Y", int(parts[3]), number)
            rules[key] = []
            continue
        rules[key].append(_parse_rule(number, parts, base))
    prefixes: dict[str, AffixClass] = {}
    suffixes: dict[str, AffixClass] = {}
    for key, (cross, count, number) in headers.items():
        kind, flag = key
        if len(rules[key]) != count:
            raise HunspellError(
                f"line {number}: {kind} {flag} announces {count} rules, has {len(rules[key])}"
            )
        if kind == "PFX" and any(rule.continuation for rule in rules[key]):
            raise HunspellError(f"{kind} {flag}: prefix continuation classes are not supported")
        target = prefixes if kind == "PFX" else suffixes
        target[flag] = AffixClass(kind, flag, cross, tuple(rules[key]))
    return prefixes, suffixes


def _parse_rule(number: int, parts: list[str], base: Affixes) -> AffixRule:
    # "SFX flag strip append[/flags] [condition [morphology…]]"; a missing condition
    # is ".", as hunspell reads it (hunspell-ar has one such line, "PFX Ph 0 أَول").
    strip = "" if parts[2] == "0" else parts[2]
    append, _, continuation = parts[3].partition("/")
    append = "" if append == "0" else append
    condition = parts[4] if len(parts) > 4 else "."
    try:
        flags = base.flags(continuation) if continuation else frozenset()
    except HunspellError as exc:
        raise HunspellError(f"line {number}: {exc}") from None
    return AffixRule(
        strip=base.remove_ignored(strip),
        append=base.remove_ignored(append),
        condition=condition,
        continuation=flags,
    )


def parse_dic(text: str, affixes: Affixes) -> list[Stem]:
    """Read a ``.dic`` file's text: the count line, then ``word[/flags][\\tmorphology]``.

    >>> aff = parse_aff("FLAG long\\nAF 1\\nAF AaBb\\n")
    >>> first = parse_dic("2\\nكتاب/1\\tst:كتاب\\nقلم\\n", aff)[0]
    >>> first.word, sorted(first.flags)
    ('كتاب', ['Aa', 'Bb'])
    """
    lines = text.splitlines()
    if not lines or not lines[0].split() or not lines[0].split()[0].isdigit():
        raise HunspellError("the .dic file does not start with its word count")
    stems = []
    for number, line in enumerate(lines[1:], start=2):
        entry = line.split("\t", 1)[0].strip()
        if not entry:
            continue
        word, slash, flag_text = _split_entry(entry)
        try:
            flags = affixes.flags(flag_text) if slash else frozenset()
        except HunspellError as exc:
            raise HunspellError(f".dic line {number}: {exc}") from None
        word = affixes.remove_ignored(word)
        if word:
            stems.append(Stem(word, flags))
    return stems


def _split_entry(entry: str) -> tuple[str, bool, str]:
    """Split ``word/flags`` at the first unescaped slash (``\\/`` is a literal slash)."""
    index = 0
    while True:
        index = entry.find("/", index)
        if index <= 0 or entry[index - 1] != "\\":
            break
        index += 1
    if index <= 0:
        return entry.replace("\\/", "/"), False, ""
    return entry[:index].replace("\\/", "/"), True, entry[index + 1 :]
