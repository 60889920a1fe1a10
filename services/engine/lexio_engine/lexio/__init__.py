"""Lexio in the engine tier: its rules object (game.py), its typed state (codec.py), its
replay, and its registration, ``GAME``.

>>> GAME.name, GAME.health_name, GAME.lexicons, GAME.action_kinds
('lexio', 'lexio.engine.v1.Engine', ('fr',), ('place', 'exchange', 'pass'))
"""

from __future__ import annotations

from typing import Final

from lexio_engine.lexio import codec
from lexio_engine.lexio.game import Lexio
from lexio_engine.registry import EngineContext, EngineGame, replay_in
from lexio_rules import DEFAULT_TURN_SECONDS
from lexio_rules.record import FORMAT

#: The list Lexio's words are judged in (R17).
LEXICON: Final = "fr"


def _rules(context: EngineContext) -> Lexio:
    return Lexio(context.lexicon, default_turn_seconds=context.turn_seconds or DEFAULT_TURN_SECONDS)


GAME: Final = EngineGame(
    name="lexio",
    build=_rules,
    action_kinds=codec.ACTION_KINDS,
    lexicons=(LEXICON,),
    record_format=FORMAT,
    replay=replay_in(f"{__name__}.replay"),
    # The name the lobby's configuration has asked since before the one contract.
    health_service="lexio.engine.v1.Engine",
)
