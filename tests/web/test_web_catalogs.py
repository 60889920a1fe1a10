"""The message catalogs (static/i18n/*.json, the site's, and each game's
static/js/games/<id>/i18n/*.json, merged by the page): complete in every language, every
protocol code translated, the rules' wording and vocabulary (R19, R35), no text or inline code
in the page and the games' markup (CSP), and no game named outside its own package and the
list of games (issue 24)."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

import lexio_gateway

STATIC = Path(lexio_gateway.__file__).parent / "static"
GAMES = STATIC / "js" / "games"
PROTOCOL = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
LANGUAGES = ("fr", "es", "ar", "en")
PLURAL_FORMS = {"zero", "one", "two", "few", "many", "other"}


def catalog_files(lang: str) -> list[Path]:
    """The site's catalog, then each game's: what js/i18n.js merges for ``lang``."""
    return [STATIC / "i18n" / f"{lang}.json", *sorted(GAMES.glob(f"*/i18n/{lang}.json"))]


def catalog(lang: str) -> dict[str, Any]:
    """The messages the page has in ``lang``: every catalog merged, none defining a key twice
    (the page refuses that too: js/i18n.js)."""
    merged: dict[str, Any] = {}
    for path in catalog_files(lang):
        data = json.loads(path.read_text("utf-8"))
        assert not set(data) & set(merged), (path, sorted(set(data) & set(merged)))
        merged.update(data)
    return merged


def game_ids() -> list[str]:
    """The games the client ships, in the list's order (js/games/index.js: the home page's)."""
    listing = (GAMES / "index.js").read_text("utf-8")
    return re.findall(r'^import \* as \w+ from "\./([a-z0-9_]+)/index\.js";$', listing, re.M)


def scripts() -> list[Path]:
    return sorted((STATIC / "js").rglob("*.js"))


def pages() -> list[Path]:
    """The page and the games' markup (js/games.js installs it in the page)."""
    return [STATIC / "index.html", *sorted(GAMES.glob("*/*.html"))]


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


def codes_after(marker: str) -> list[str]:
    """The `codes` of the parenthesis (or clause) that follows ``marker`` in the protocol."""
    text = PROTOCOL.read_text("utf-8")
    start = text.index(marker) + len(marker)
    end = min(i for i in (text.find(")", start), text.find(".", start)) if i > 0)
    return re.findall(r"`([a-z_]+)`", text[start:end])


def pass_causes() -> set[str]:
    """A log entry's ``cause`` for a pass (R11, R28, R29)."""
    return set(codes_after("`pass` (`cause`:"))


def ending_causes() -> set[str]:
    return set(codes_after("`ending` holds `cause` ("))


def test_protocol_lists_are_read() -> None:
    assert {"unknown_words", "not_your_turn", "bag_too_small"} <= refusal_reasons()
    assert {"bad_json", "unknown_code", "table_full", "internal"} <= error_codes()
    assert {"rate_limited", "unavailable", "game_unavailable"} <= error_codes()
    assert pass_causes() == {"player", "clock", "disconnected"}
    assert ending_causes() == {"rack_emptied", "no_placement"}


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


# What the client says for each code the protocol may send (game.js, panels.js, errors.js).
PASS_MESSAGES = {
    "player": "log.pass",
    "clock": "log.pass_clock",
    "disconnected": "log.pass_disconnected",
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_refusal_reason_and_error_code_is_translated(lang: str) -> None:
    """Every code of docs/protocol.md's tables and lists has its own message: a code added
    there without one fails here (the page would show "unexpected error (code)")."""
    messages = catalog(lang)
    needed = [f"reason.{reason}" for reason in sorted(refusal_reasons())]
    needed += [f"error.{code}" for code in sorted(error_codes())]
    needed += [PASS_MESSAGES.get(cause, f"log.pass_{cause}") for cause in sorted(pass_causes())]
    needed += [f"end.cause.{cause}" for cause in sorted(ending_causes())]
    missing = [key for key in needed if key not in messages]
    assert not missing, missing
    for code in error_codes():
        assert messages[f"error.{code}"] != messages["error.unknown"], code


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_rate_limited_join_says_how_long_and_that_the_whole_connection_waits(lang: str) -> None:
    """``rate_limited`` answering a join or create may carry ``retry_after`` (seconds): the
    wait is shown, and said to concern everyone on the same connection (a household)."""
    messages = catalog(lang)
    household = {"fr": "un foyer", "es": "un hogar", "ar": "أهل البيت", "en": "a household"}
    assert placeholders(messages["error.rate_limited_wait"]) == {"wait"}
    for key in ("error.rate_limited_wait", "error.rate_limited_later"):
        assert household[lang] in messages[key], key
    for key, names in {
        "wait.seconds": {"seconds"},
        "wait.minutes": {"minutes"},
        "wait.minutes_seconds": {"minutes", "seconds"},
        "wait.hours": {"hours"},
        "wait.hours_minutes": {"hours", "minutes"},
    }.items():
        assert placeholders(messages[key]) == names, key
    errors_js = (STATIC / "js" / "errors.js").read_text("utf-8")
    assert "retry_after" in errors_js and "store_unavailable" in errors_js


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
    for script in scripts():
        keys |= set(re.findall(r'\bt(?:Nodes)?\(\s*"([^"]+)"', script.read_text("utf-8")))
    for page in pages():
        keys |= set(re.findall(r'data-i18n(?:-[a-z-]+)?="([^"]+)"', page.read_text("utf-8")))
    # A game's self-description names its keys as values of its fields (js/games/<id>/index.js).
    for entry in GAMES.glob("*/index.js"):
        keys |= set(re.findall(r':\s*"([a-z_]+\.[a-z_.]+)"', entry.read_text("utf-8")))
    return keys


def test_every_key_the_page_uses_is_in_the_catalogs() -> None:
    keys = used_keys()
    assert len(keys) > 100
    assert keys <= set(catalog("fr")), sorted(keys - set(catalog("fr")))


def test_the_page_has_no_inline_script_or_style_and_no_eval() -> None:
    for path in pages():
        page = path.read_text("utf-8")
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", page), (path.name, "inline <script>")
        assert "<style" not in page and " style=" not in page, path.name
        assert not re.search(r"\son[a-z]+=", page), (path.name, "inline event handler")
    # The games' markup is only markup: no script at all, no stylesheet of its own.
    for path in pages()[1:]:
        assert "<script" not in path.read_text("utf-8") and "<link" not in path.read_text("utf-8")
    for script in scripts():
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
    for markup in pages()[1:]:
        parser = _Texts()
        parser.feed(markup.read_text("utf-8"))
        assert not parser.texts, (markup.name, parser.texts)
    literal = re.compile(r'(text: |textContent = |\.append\()"[^"]*[A-Za-z\u0600-\u06ff]')
    for script in scripts():
        for number, line in enumerate(script.read_text("utf-8").splitlines(), 1):
            code = line.split("//")[0]
            if not code.lstrip().startswith(("*", "/*")):
                assert not literal.search(code), f"{script.name}:{number}: {line.strip()}"


# Point of view: a line about a player must fit anyone. Agreements that assume a man or a
# woman (adjectives, participles, pronouns) are not written; the table or the seat is the
# subject instead ("La table a passé pour Ana (déconnexion)").
GENDERED = {
    "fr": (
        r"\b(?:dé)?connecté(?:e|s|es)?\b",
        r"\binvitée?s?\b",
        r"\bassise?s?\b",
        r"\bpour (?:lui|elle)\b",
        r"\w·\w",  # the "point médian" (connecté·e): not this site's style either
    ),
    "es": (
        r"\b(?:des)?conectad[oa]s?\b",
        r"\bsentad[oa]s?\b",
        r"\bpor (?:él|ella)\b",
        r"\bserás (?:el|la)\b",
    ),
    "ar": ("متصل", "عنه", "عنها", "جالس", "دوره", "لديه", "طاولته"),
    "en": (r"(?i)\b(?:he|she|him|her|his|hers)\b",),
}
DISCONNECTED_PASS = {
    "fr": "La table a passé pour {name} (déconnexion).",
    "es": "La mesa pasó por {name} (desconexión).",
    "ar": "مرّرت الطاولة عن {name} (انقطاع الاتصال).",
    "en": "The table passed for {name} (disconnected).",
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_message_assumes_a_players_gender(lang: str) -> None:
    messages = catalog(lang)
    assert messages["log.pass_disconnected"] == DISCONNECTED_PASS[lang]
    found = [
        (key, text)
        for key, value in messages.items()
        for text in texts(value)
        for pattern in GENDERED[lang]
        if re.search(pattern, text)
    ]
    assert not found, found


@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_catalog_file_has_the_keys_of_its_french_one(lang: str) -> None:
    """The site's catalog and each game's are complete in every language on their own: a
    game's message is never left to another file."""
    for french, other in zip(catalog_files("fr"), catalog_files(lang), strict=True):
        assert other.parent == french.parent
        assert set(json.loads(other.read_text("utf-8"))) == set(
            json.loads(french.read_text("utf-8"))
        ), other


def test_each_game_brings_its_own_messages_and_the_site_catalog_names_no_game() -> None:
    """A game's name, home page lines and own messages are in its package's catalog; the
    site's catalog has no key of a game (issue 24: one package per game in the client)."""
    # Every game's package is in the list, and the list names only packages (issue 38: what
    # is checked is every registered game, whatever they are and in the list's order).
    folders = {path.parent.name for path in GAMES.glob("*/index.js")}
    assert game_ids() and set(game_ids()) == folders and len(game_ids()) == len(folders)
    games_keys = ("games.", *(f"{prefix}." for prefix in PREFIXES.values()))
    for lang in LANGUAGES:
        site = json.loads((STATIC / "i18n" / f"{lang}.json").read_text("utf-8"))
        assert not [key for key in site if key.startswith(games_keys)], lang
        for game in game_ids():
            own = json.loads((GAMES / game / "i18n" / f"{lang}.json").read_text("utf-8"))
            for field in ("name", "about", "tagline", "players", "words"):
                assert f"games.{game}.{field}" in own, (lang, game, field)
            assert not [
                key
                for key in own
                if key.startswith("games.") and not key.startswith(f"games.{game}.")
            ]


# A game's other marks in shared files: al-Mishqaq's prefix (ids "mq-…", keys "mq.…").
PREFIXES = {"mishqaq": "mq"}


def names(game: str, line: str) -> bool:
    """Whether ``line`` names ``game``. "Lexio" is also the site's name (its title, its storage
    prefix "lexio.", window.lexio): for it only the id as a string, a path or an element id
    counts; any other game, any mention of it, or its prefix."""
    if game == "lexio":
        site = line.replace('"lexio."', "").replace("window.lexio", "")
        return bool(re.search(r"""["'`/#-]lexio["'`/.-]""", site))
    prefix = PREFIXES.get(game)
    return bool(re.search(rf"(?i){game}", line) or (prefix and re.search(rf"\b{prefix}[-.]", line)))


def test_only_the_list_of_games_names_the_games() -> None:
    """Outside js/games/<id>/ nothing names a game but js/games/index.js, the list: not the
    page, not the shared modules and styles, not the site's catalogs (issue 24)."""
    shared = [STATIC / "index.html", *(STATIC / "i18n").glob("*.json")]
    shared += [*(STATIC / "css").glob("*.css")]
    shared += [path for path in scripts() if GAMES not in path.parents]
    for game in game_ids():
        for path in shared:
            for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
                where = f"{path.relative_to(STATIC)}:{number}"
                assert not names(game, line), f"{where} names {game}: {line.strip()}"
    listing = (GAMES / "index.js").read_text("utf-8")
    assert all(f'"./{game}/index.js"' in listing for game in game_ids())
    assert names("lexio", 'save("game", "lexio")') and not names("lexio", "window.lexio = app")
    assert names("mishqaq", "al-Mishqaq's clock") and names("mishqaq", '$("#mq-board")')
