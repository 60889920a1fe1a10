"""The games this build's gateway ships: the one list of the gateway tier that names them.

:mod:`lexio_gateway.games` derives its registry from it, and :mod:`lexio_gateway.config` the
games served when ``LEXIO_GATEWAY_GAMES`` is unset (all of them, the first being the game a
``create`` frame that names none opens). Adding a game to the gateway is adding its adapter
module's ``GAME`` here.
"""

from __future__ import annotations

from typing import Final

from lexio_gateway.games import lexio, mishqaq, noughts
from lexio_gateway.games.registry import GatewayGame

GAMES: Final[tuple[GatewayGame, ...]] = (lexio.GAME, mishqaq.GAME, noughts.GAME)
