"""al-Mishqaq's engine service: its codec, its servicer, its replay, and its registration,
``GAME``.

>>> GAME.name, GAME.health_name, GAME.lexicons, GAME.rpcs
('mishqaq', 'lexio.mishqaq.v1.Engine', ('fr', 'en', 'ar'), ('StartGame', 'Act', 'View', 'Review'))
"""

from __future__ import annotations

from typing import Final

from lexio.mishqaq.v1 import engine_pb2_grpc
from lexio_engine.mishqaq import codec
from lexio_engine.mishqaq.servicer import MishqaqServicer
from lexio_engine.registry import EngineContext, EngineGame, replay_in
from mishqaq_rules import ARABIC_LIST, LATIN_LISTS
from mishqaq_rules.record import FORMAT


def _servicer(context: EngineContext) -> MishqaqServicer:
    # No turn clock: each side's bank comes with the game's start (M28).
    return MishqaqServicer(context.lexicon, clock=context.clock, drain=context.drain)


GAME: Final = EngineGame(
    name=MishqaqServicer.game,
    service=MishqaqServicer.service,
    add_servicer=engine_pb2_grpc.add_EngineServicer_to_server,
    build=_servicer,
    action_kinds=codec.ACTION_KINDS,
    lexicons=(*LATIN_LISTS, ARABIC_LIST),
    record_format=FORMAT,
    replay=replay_in(f"{__name__}.replay"),
)

#: Its gRPC service's full name, which is also its health name.
SERVICE_NAME: Final = GAME.service_name
