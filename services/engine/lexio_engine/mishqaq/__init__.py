"""al-Mishqaq in the engine tier: its rules object (game.py), its typed state (codec.py), its
replay, and its registration, ``GAME``.

>>> GAME.name, GAME.health_name, GAME.lexicons
('mishqaq', 'lexio.mishqaq.v1.Engine', ('fr', 'en', 'ar'))
"""

from __future__ import annotations

from typing import Final

from lexio_engine.mishqaq import codec
from lexio_engine.mishqaq.game import Mishqaq
from lexio_engine.registry import EngineGame, replay_in
from mishqaq_rules import ARABIC_LIST, LATIN_LISTS
from mishqaq_rules.record import FORMAT

GAME: Final = EngineGame(
    name="mishqaq",
    # No turn clock: each side's bank comes with the game's options (M28).
    build=lambda context: Mishqaq(context.lexicon),
    action_kinds=codec.ACTION_KINDS,
    lexicons=(*LATIN_LISTS, ARABIC_LIST),
    record_format=FORMAT,
    replay=replay_in(f"{__name__}.replay"),
    # The name the lobby's configuration has asked since before the one contract.
    health_service="lexio.mishqaq.v1.Engine",
)
