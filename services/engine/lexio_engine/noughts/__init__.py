"""Noughts and crosses' engine service, the site's example game: its codec, its servicer and
its registration, ``GAME``. No word list (no lexicons) and no records (no record format).

>>> GAME.name, GAME.health_name, GAME.lexicons, GAME.rpcs, GAME.action_kinds
('noughts', 'lexio.noughts.v1.Engine', (), ('StartGame', 'Act', 'View'), ('mark', 'resign'))
>>> GAME.record_format is None and GAME.replay is None
True
"""

from __future__ import annotations

from typing import Final

from lexio.noughts.v1 import engine_pb2_grpc
from lexio_engine.noughts import codec
from lexio_engine.noughts.servicer import NoughtsServicer
from lexio_engine.registry import EngineContext, EngineGame


def _servicer(context: EngineContext) -> NoughtsServicer:
    # No lexicon to ask and no turn clock: only the engine's clock and the stream drain.
    return NoughtsServicer(None, clock=context.clock, drain=context.drain)


GAME: Final = EngineGame(
    name=NoughtsServicer.game,
    service=NoughtsServicer.service,
    add_servicer=engine_pb2_grpc.add_EngineServicer_to_server,
    build=_servicer,
    action_kinds=codec.ACTION_KINDS,
)

#: Its gRPC service's full name, which is also its health name.
SERVICE_NAME: Final = GAME.service_name
