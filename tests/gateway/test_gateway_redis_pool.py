"""A burst of store calls larger than the Redis client's pool waits for a connection instead of
failing (issue 36: under 2,000 tables a notice's read failed with "Too many connections")."""

from __future__ import annotations

import asyncio

from lexio_testing import LoopThread, RedisServer

from lexio_common import redis_client
from lexio_gateway.redis_store import RedisTableStore


def test_three_pools_worth_of_concurrent_reads_all_answer_on_at_most_a_pool_of_connections(
    loop_thread: LoopThread, redis_server: RedisServer
) -> None:
    calls = 3 * redis_client.MAX_CONNECTIONS

    async def scenario() -> tuple[list[object], int]:
        store = RedisTableStore.from_url(redis_server.url)
        try:
            answers = await asyncio.gather(
                *(store.version_and_reply(f"t{i}", "p", "a") for i in range(calls)),
                return_exceptions=True,
            )
            clients = await store.client.client_list()
            opened = sum(1 for c in clients if c.get("name") == "lexio-gateway")
            return list(answers), opened
        finally:
            await store.close()

    answers, opened = loop_thread.run(scenario())
    failures = [a for a in answers if isinstance(a, BaseException)]
    assert not failures, f"{len(failures)} of {calls} reads failed, first: {failures[0]!r}"
    assert answers == [(None, None)] * calls
    assert 1 <= opened <= redis_client.MAX_CONNECTIONS, opened
