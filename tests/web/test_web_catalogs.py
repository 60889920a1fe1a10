"""The message catalogs (static/i18n/*.json): complete in every language, every protocol
code translated, the rules' wording and vocabulary (R19, R35), and no text or inline code in
the page itself (CSP)."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

import lexio_gateway

STATIC = Path(lexio_gateway.__file__).parent / "static"
PROTOCOL = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
LANGUAGES = ("fr", "es", "ar", "en")
PLURAL_FORMS = {"zero", "one", "two", "few", "many", "other"}


def catalog(lang: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((STATIC / "i18n" / f"{lang}.json").read_text("utf-8"))
    return data


def texts(value: Any) -> list[str]:
    return list(value.values()) if isinstance(value, dict) else [value]


def placeholders(value: Any) -> set[str]:
    # A plural form may spell its number out ("une", "واحدة"): {count} is optional there.
    return {p for text in texts(value) for p in re.findall(r"\{(\w+)\}", text)} - {"count"}


def section(title: str) -> str:
    text = PROTOCOL.read_text("utf-8")
    start = text.index(title)
    end = text.find("\n#", start + len(title))
    return text[start : end if end > 0 else None]


def refusal_reasons() -> set[str]:
    return set(re.findall(r"`([a-z_]+)`", section("### Refusal reasons"))) - {"words"}


def error_codes() -> set[str]:
    codes = set()
    for line in section("### Error codes").splitlines():
        if line.startswith("| `"):
            first_column = line.split("|")[1]
            codes |= set(re.findall(r"`([a-z_]+)`", first_column))
    return codes


def test_protocol_lists_are_read() -> None:
    assert {"unknown_words", "not_your_turn", "bag_too_small"} <= refusal_reasons()
    assert {"bad_json", "unknown_code", "table_full", "internal"} <= error_codes()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_catalog_has_every_key_with_the_same_placeholders(lang: str) -> None:
    reference = catalog("fr")
    other = catalog(lang)
    assert set(other) == set(reference)
    for key, value in reference.items():
        assert placeholders(other[key]) == placeholders(value), (lang, key)
        if isinstance(other[key], dict):
            assert "other" in other[key] and set(other[key]) <= PLURAL_FORMS, (lang, key)
        for text in texts(other[key]):
            assert text.strip(), (lang, key)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_refusal_reason_and_error_code_is_translated(lang: str) -> None:
    messages = catalog(lang)
    for reason in refusal_reasons():
        assert f"reason.{reason}" in messages, reason
    for code in error_codes():
        assert f"error.{code}" in messages, code


R19 = {
    "fr": "Le lexique ne reconnaît pas « {word} ».",
    "es": "El diccionario no reconoce «{word}».",
    "en": "The lexicon does not recognise “{word}”.",
    "ar": "لا يتعرّف معجم الطاولة على «{word}».",
}
NEVER = {
    "fr": "n'existe pas",
    "es": "no existe",
    "en": "does not exist",
    "ar": "غير موجود",
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_refusals_use_the_wording_of_r19_and_never_say_the_word_does_not_exist(lang: str) -> None:
    messages = catalog(lang)
    assert messages["refusal.unknown_word"] == R19[lang]
    for key, value in messages.items():
        if key.startswith(("refusal.", "reason.", "preview.")):
            for text in texts(value):
                assert NEVER[lang] not in text, (key, text)


# R35: board, rack, source, crossing, lexicon, blank — and where the interface says them.
VOCABULARY = {
    "fr": ("clairière", "chevalet", "Source", "Croisement", "lexique", "Joker"),
    "es": ("claro", "atril", "Fuente", "Cruce", "diccionario", "Comodín"),
    "ar": ("الفسحة", "حامل", "المنبع", "التقاطع", "معجم الطاولة", "جوكر"),
}
WHERE = (
    "game.board",
    "game.rack",
    "bonus.source.name",
    "bonus.crossing.name",
    "refusal.unknown_word",
    "tile.blank_label",
)


@pytest.mark.parametrize("lang", sorted(VOCABULARY))
def test_the_interface_uses_the_vocabulary_of_r35(lang: str) -> None:
    messages = catalog(lang)
    for key, word in zip(WHERE, VOCABULARY[lang], strict=True):
        assert word in messages[key], (key, word)


def used_keys() -> set[str]:
    keys = set()
    for script in (STATIC / "js").glob("*.js"):
        keys |= set(re.findall(r'\bt(?:Nodes)?\(\s*"([^"]+)"', script.read_text("utf-8")))
    page = (STATIC / "index.html").read_text("utf-8")
    keys |= set(re.findall(r'data-i18n(?:-[a-z-]+)?="([^"]+)"', page))
    return keys


def test_every_key_the_page_uses_is_in_the_catalogs() -> None:
    keys = used_keys()
    assert len(keys) > 100
    assert keys <= set(catalog("fr")), sorted(keys - set(catalog("fr")))


def test_the_page_has_no_inline_script_or_style_and_no_eval() -> None:
    page = (STATIC / "index.html").read_text("utf-8")
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", page), "inline <script>"
    assert "<style" not in page and " style=" not in page
    assert not re.search(r"\son[a-z]+=", page), "inline event handler"
    for script in (STATIC / "js").glob("*.js"):
        source = script.read_text("utf-8")
        for forbidden in ("innerHTML", "eval(", "new Function", 'setAttribute("style"', "cssText"):
            assert forbidden not in source, (script.name, forbidden)


class _Texts(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def handle_data(self, data: str) -> None:
        if data.strip():
            self.texts.append(data.strip())


def test_no_visible_text_is_written_in_the_page_or_the_code() -> None:
    """Every string comes from the catalogs; the page holds only the brand and its tiles."""
    parser = _Texts()
    parser.feed((STATIC / "index.html").read_text("utf-8"))
    assert set(parser.texts) <= {"Lexio", "L", "E", "X", "I", "O", "1", "8"}, parser.texts
    literal = re.compile(r'(text: |textContent = |\.append\()"[^"]*[A-Za-z\u0600-\u06ff]')
    for script in (STATIC / "js").glob("*.js"):
        for number, line in enumerate(script.read_text("utf-8").splitlines(), 1):
            code = line.split("//")[0]
            if not code.lstrip().startswith(("*", "/*")):
                assert not literal.search(code), f"{script.name}:{number}: {line.strip()}"
