"""Lexio's engine service: its codec, its servicer, its replay, and its registration, ``GAME``.

>>> GAME.name, GAME.health_name, GAME.lexicons, GAME.rpcs
('lexio', 'lexio.engine.v1.Engine', ('fr',), ('StartGame', 'Act', 'Preview', 'View', 'Review'))
"""

from __future__ import annotations

from typing import Final

from lexio.engine.v1 import engine_pb2_grpc
from lexio_engine.lexio import codec
from lexio_engine.lexio.servicer import LexioServicer
from lexio_engine.registry import EngineContext, EngineGame, replay_in
from lexio_rules import DEFAULT_TURN_SECONDS
from lexio_rules.record import FORMAT

#: The list Lexio's words are judged in (R17).
LEXICON: Final = "fr"


def _servicer(context: EngineContext) -> LexioServicer:
    return LexioServicer(
        context.lexicon,
        default_turn_seconds=context.turn_seconds or DEFAULT_TURN_SECONDS,
        clock=context.clock,
        drain=context.drain,
    )


GAME: Final = EngineGame(
    name=LexioServicer.game,
    service=LexioServicer.service,
    add_servicer=engine_pb2_grpc.add_EngineServicer_to_server,
    build=_servicer,
    action_kinds=codec.ACTION_KINDS,
    lexicons=(LEXICON,),
    record_format=FORMAT,
    replay=replay_in(f"{__name__}.replay"),
)

#: Its gRPC service's full name, which is also its health name.
SERVICE_NAME: Final = GAME.service_name
