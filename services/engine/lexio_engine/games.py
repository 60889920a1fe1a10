"""The games this build's engine tier ships: the one list that names them.

:mod:`lexio_engine.server` serves each of them through the one service and :mod:`lexio_cli.main`
replays their records; adding a game to the engine tier is adding its ``GAME`` here.
"""

from __future__ import annotations

from typing import Final

from lexio_engine import lexio, mishqaq, noughts
from lexio_engine.registry import EngineGame

GAMES: Final[tuple[EngineGame, ...]] = (lexio.GAME, mishqaq.GAME, noughts.GAME)
