"""Whether each engine this gateway calls serves the contract it speaks (``lexio.game.v1.Engine``).

During a rolling update a gateway of this release may find an engine of the previous one at
its address: that engine answers, but not this contract, and every game call would fail. Such
a gateway must not take players: :attr:`EngineWatch.mismatched` names the addresses whose
engine answers without the contract, and ``/readyz`` answers ``not_ready`` ``engine_contract``
while any does (docs/operations.md, "Rolling updates"). An engine that does not answer at all
is an outage, not a version: readiness stays as the store and the bus make it, and the game
calls answer ``unavailable`` as they always did.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Final

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

log = logging.getLogger(__name__)

CONTRACT: Final = "lexio.game.v1.Engine"
"""The engine's health name for the contract this gateway speaks."""


class EngineWatch:
    """Asks each engine channel's health for :data:`CONTRACT` until it is SERVING once."""

    def __init__(self, channels: Mapping[str, grpc.aio.Channel]) -> None:
        self._channels = dict(channels)
        self._confirmed: set[str] = set()
        self.mismatched: set[str] = set()
        """Addresses whose engine answers but does not serve the contract (yet)."""

    async def check(self, address: str) -> None:
        """Ask once; record what the answer says about the contract."""
        stub = health_pb2_grpc.HealthStub(self._channels[address])
        try:
            reply = await stub.Check(health_pb2.HealthCheckRequest(service=CONTRACT), timeout=2.0)
        except grpc.aio.AioRpcError as e:
            if e.code() == grpc.StatusCode.NOT_FOUND:  # it answers, without the contract
                self._set(address, confirmed=False)
            return  # unreachable: an outage, which says nothing of its version
        if reply.status == health_pb2.HealthCheckResponse.SERVING:
            self._set(address, confirmed=True)

    def _set(self, address: str, *, confirmed: bool) -> None:
        if confirmed:
            self._confirmed.add(address)
            if address in self.mismatched:
                self.mismatched.discard(address)
                log.info("engine serves the contract", extra={"engine": address})
        elif address not in self.mismatched:
            self.mismatched.add(address)
            log.warning(
                "engine does not serve this gateway's contract: not ready",
                extra={"engine": address, "contract": CONTRACT},
            )

    async def run(self, every: float = 1.0) -> None:
        """Ask until every engine has served the contract once (then an engine is this
        release's or newer, and what happens to it later is an outage, not a version); then
        wait, asking nothing, until cancelled."""
        while len(self._confirmed) < len(self._channels):
            await asyncio.gather(
                *(self.check(a) for a in self._channels if a not in self._confirmed)
            )
            if len(self._confirmed) < len(self._channels):
                await asyncio.sleep(every)
        await asyncio.Event().wait()
