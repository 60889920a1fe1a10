"""al-Mishqaq's words in the catalogs (issue 16): every refusal reason, log entry kind and
end cause of docs/protocol.md's al-Mishqaq section has its message in every language, and
the game's vocabulary is decided once per language and used where the interface says it."""

from __future__ import annotations

import re

import pytest
from test_web_catalogs import LANGUAGES, PROTOCOL, catalog, texts

MISHQAQ = PROTOCOL.read_text("utf-8").split("## al-Mishqaq", 1)[1].split("\n## ", 1)[0]


def codes(after: str, until: str) -> set[str]:
    start = MISHQAQ.index(after) + len(after)
    return set(re.findall(r"`([a-z_]+)`", MISHQAQ[start : MISHQAQ.index(until, start)]))


def test_the_protocol_lists_are_read() -> None:
    assert {"no_anchor", "swap_invalid", "not_the_pauser", "unknown_words"} <= refusal_reasons()
    assert entry_kinds() >= {"opening", "place", "swap", "pause_expired", "result"}
    assert end_causes() == {"try", "flag", "resign", "dead_position"}


def refusal_reasons() -> set[str]:
    return codes("**Refusal reasons**", "flag fell") - {"words"}


def entry_kinds() -> set[str]:
    return codes("`kind` (", ")")


def end_causes() -> set[str]:
    return codes("`cause` (", ")")


# What the client says for each (mishqaq-panels.js, mishqaq-game.js).
ENTRY_MESSAGES = {
    "opening": "mq.log.opening",
    "place": "mq.log.place",
    "swap": "mq.log.swap",
    "pass": "mq.log.pass",
    "pause": "mq.log.pause",
    "resume": "mq.log.resume",
    "pause_expired": "mq.log.pause_expired",
    "resign": "mq.log.resign",
    "result": "mq.log.result_draw",
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_refusal_entry_and_end_of_al_mishqaq_is_translated(lang: str) -> None:
    messages = catalog(lang)
    needed = [f"mq.reason.{reason}" for reason in sorted(refusal_reasons())]
    needed += [ENTRY_MESSAGES[kind] for kind in sorted(entry_kinds())]
    needed += [f"mq.log.result.{cause}" for cause in sorted(end_causes())]
    needed += [f"mq.end.cause.{cause}" for cause in sorted(end_causes())]
    missing = [key for key in needed if key not in messages]
    assert not missing, missing
    for reason in refusal_reasons():
        assert messages[f"mq.reason.{reason}"] != messages["reason.unspecified"], reason


# The vocabulary, decided once: the try (M23), the flag (M29), the meaning pause (M30),
# resigning (M31), the blank (M26), the sides (M1), the dead position (M35), and the
# reserve of M24 — not called "tries" here, since a try is what wins the game.
VOCABULARY = {
    "fr": {
        "try": "essai",
        "flag": "drapeau",
        "pause": "pause sens",
        "resign": "Abandonner",
        "blank": "joker",
        "latin": "côté latin",
        "arabic": "côté arabe",
        "dead": "Position bloquée",
        "reserve": "Vérifications",
    },
    "es": {
        "try": "ensayo",
        "flag": "bandera",
        "pause": "pausa de significado",
        "resign": "Abandonar",
        "blank": "comodín",
        "latin": "lado latino",
        "arabic": "lado árabe",
        "dead": "Posición bloqueada",
        "reserve": "Comprobaciones",
    },
    "ar": {
        "try": "محاولة",
        "flag": "نفد وقت",
        "pause": "وقفة المعنى",
        "resign": "استسلام",
        # Issue 25: one word for the blank in both games, Lexio's (R35: الجوكر); the seed's
        # «قطعة فارغة» stays beside it where the rules are explained.
        "blank": "جوكر",
        "latin": "الجانب اللاتيني",
        "arabic": "الجانب العربي",
        "dead": "وضعية مسدودة",
        "reserve": "رصيد التحقق",
    },
    "en": {
        "try": "try",
        "flag": "flag",
        "pause": "Meaning pause",
        "resign": "Resign",
        "blank": "blank",
        "latin": "Latin side",
        "arabic": "Arabic side",
        "dead": "Dead position",
        "reserve": "Checks",
    },
}
WHERE = {
    "try": ("mq.end.cause.try", "mq.help.goal", "mq.legend.target"),
    "flag": ("mq.end.cause.flag",),
    "pause": ("mq.pause.title", "mq.pause.button"),
    "resign": ("mq.resign",),
    "blank": ("mq.blank", "mq.tile.blank_rack", "mq.blank.title", "mq.no_such_tile"),
    "latin": ("mq.side.latin",),
    "arabic": ("mq.side.arabic",),
    "dead": ("mq.end.cause.dead_position",),
    "reserve": ("mq.reserve",),
}
# Lexio's messages that name the blank (R35), which must use al-Mishqaq's word for it.
LEXIO_BLANK = ("tile.blank", "tile.blank_label", "blank.title", "game.no_such_tile")
# The reserve's old name, which would now read as the winning move.
NOT_THE_RESERVE = {"fr": "essai", "es": "intento", "ar": "المحاولات", "en": "tries"}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_blank_has_one_name_in_both_games(lang: str) -> None:
    """Issue 25: a player who knows Lexio's blank recognises al-Mishqaq's (the Arabic
    interface said «جوكر» in one game and «قطعة فارغة» in the other)."""
    messages = catalog(lang)
    word = VOCABULARY[lang]["blank"].lower()
    for key in (*LEXIO_BLANK, *WHERE["blank"]):
        assert any(word in text.lower() for text in texts(messages[key])), (key, word)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_al_mishqaq_uses_its_vocabulary_everywhere(lang: str) -> None:
    messages = catalog(lang)
    for concept, keys in WHERE.items():
        word = VOCABULARY[lang][concept].lower()
        for key in keys:
            assert any(word in text.lower() for text in texts(messages[key])), (key, word)
    for key in ("mq.reserve", "mq.refusal.reserve_left", "mq.reason.reserve_empty"):
        for text in texts(messages[key]):
            words = re.sub(r"\{\w+\}", "", text).lower()
            assert NOT_THE_RESERVE[lang] not in words, (key, text)
    # A refusal names the unknown word as Lexio's does (R19), never "does not exist".
    assert "{word}" in messages["refusal.unknown_word"]
