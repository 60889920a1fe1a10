"""``answer_stream`` (lexio_common.streamed_calls) on its own, without gRPC: how a stream of
questions ends while some are still being answered. The engine's and the lexicon's streams
go through it (tests/engine/test_engine_lexicon_stream.py has them over real gRPC); these two
endings happen there only when the timing falls so."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from lexio_common.streamed_calls import StreamedCallContext, answer_stream


@dataclass(frozen=True)
class Call:
    id: int
    request: str


@dataclass(frozen=True)
class Result:
    id: int
    response: str | None = None
    code: int = 0
    message: str = ""


def test_a_caller_that_stops_asking_still_gets_the_answers_to_what_it_asked() -> None:
    """The caller's half ends while a question is still being answered: the stream waits for
    that answer, sends it, and only then ends."""

    async def scenario() -> list[Result]:
        started, release, ended = asyncio.Event(), asyncio.Event(), asyncio.Event()

        async def handler(request: str, context: StreamedCallContext) -> str:
            started.set()
            await release.wait()
            return request.upper()

        async def calls() -> AsyncIterator[Call]:
            yield Call(1, "a")
            ended.set()  # asked for the next question: there is none, the half ends

        answers = answer_stream(calls(), handler, Result, service="test.S", method="M")
        first = asyncio.ensure_future(anext(answers))
        await asyncio.wait_for(started.wait(), 5)
        await asyncio.wait_for(ended.wait(), 5)  # the reading is over, the question not
        assert not first.done()
        release.set()
        got = [await asyncio.wait_for(first, 5)]
        got.extend([answer async for answer in answers])
        return got

    assert asyncio.run(scenario()) == [Result(1, "A")]


def test_a_stream_cancelled_cancels_the_questions_it_was_answering() -> None:
    """The stream's task is cancelled (its call ends: the caller went, the server stops): no
    question of it goes on running, answered by nobody."""

    async def scenario() -> None:
        started, cancelled = asyncio.Event(), asyncio.Event()

        async def handler(request: str, context: StreamedCallContext) -> str:
            started.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                cancelled.set()
                raise
            return request

        async def calls() -> AsyncIterator[Call]:
            yield Call(1, "a")
            await asyncio.Event().wait()  # the caller's half stays open

        answers = answer_stream(calls(), handler, Result, service="test.S", method="M")
        reading = asyncio.ensure_future(anext(answers))
        await asyncio.wait_for(started.wait(), 5)
        reading.cancel()
        with pytest.raises(asyncio.CancelledError):
            await reading
        await asyncio.wait_for(cancelled.wait(), 5)

    asyncio.run(scenario())
