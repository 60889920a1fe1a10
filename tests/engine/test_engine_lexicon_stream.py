"""The engine's hop to the lexicon over one long-lived stream (CheckWordsStream).

Real lexicon servers on 127.0.0.1 port 0, the engine's real client: answers by id, refusals
in-band without ending the stream, many questions at once, a lexicon that goes away and comes
back, a lexicon without the stream (an older version), an answer that never comes.
"""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import AsyncIterator, Coroutine, Iterator
from typing import Any, Protocol, TypeVar

import grpc
import pytest
from lexio_testing import eventually
from prometheus_client import REGISTRY, CollectorRegistry

from lexio.lexicon.v1 import lexicon_pb2, lexicon_pb2_grpc
from lexio_common.grpc_service import RunningServer, start_grpc_server
from lexio_common.procs import free_port
from lexio_common.streamed_calls import StreamBrokenError, StreamedCalls
from lexio_engine.lexicon_client import LexiconClient
from lexio_lexicon.server import LexiconConfig, start
from lexio_lexicon.servicer import LexiconMetrics, LexiconServicer
from lexio_lexicon.words import DEFAULT_WORDLIST_PATH, WordList
from lexio_rules import LexiconUnavailableError

T = TypeVar("T")
SERVICE = "lexio.lexicon.v1.Lexicon"


class LoopThread(Protocol):
    def run(self, coro: Coroutine[Any, Any, T], timeout: float = ...) -> T: ...


def _config(port: int = 0) -> LexiconConfig:
    return LexiconConfig(host="127.0.0.1", port=port, metrics_port=-1)


@pytest.fixture(scope="module")
def lexicon(loop_thread: LoopThread) -> Iterator[RunningServer]:
    running, _ = loop_thread.run(start(_config(), metrics=LexiconMetrics(CollectorRegistry())))
    yield running
    loop_thread.run(running.stop(0))


def _started(method: str) -> float:
    value = REGISTRY.get_sample_value(
        "grpc_server_started_total",
        {"grpc_type": "bidi_stream" if method.endswith("Stream") else "unary",
         "grpc_service": SERVICE, "grpc_method": method},
    )  # fmt: skip
    return value or 0.0


def test_the_stream_answers_each_call_by_id_and_refuses_in_band(lexicon: RunningServer) -> None:
    calls = [
        lexicon_pb2.CheckWordsCall(id=7, request=lexicon_pb2.CheckWordsRequest(words=["CHAT"])),
        lexicon_pb2.CheckWordsCall(id=8, request=lexicon_pb2.CheckWordsRequest(words=["A"] * 1000)),
        lexicon_pb2.CheckWordsCall(
            id=9, request=lexicon_pb2.CheckWordsRequest(words=["ZZQX", "MAISON"])
        ),
    ]
    with grpc.insecure_channel(f"127.0.0.1:{lexicon.port}") as channel:
        results = list(lexicon_pb2_grpc.LexiconStub(channel).CheckWordsStream(iter(calls)))
    assert [r.id for r in results] == [7, 8, 9]
    assert results[0].code == 0 and list(results[0].response.unknown) == []
    assert results[1].code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert "too many words" in results[1].message
    assert results[2].code == 0 and list(results[2].response.unknown) == ["ZZQX"]


def test_the_engine_asks_many_questions_at_once_over_one_stream(
    loop_thread: LoopThread, lexicon: RunningServer
) -> None:
    async def scenario() -> list[list[str]]:
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{lexicon.port}")
        client = LexiconClient(channel, timeout=5.0)
        try:
            asked = [["CHAT", f"ZZ{chr(65 + i % 26)}Q"] for i in range(60)]
            return await asyncio.gather(*(client.unknown(words) for words in asked))
        finally:
            await client.close()
            await channel.close()

    streams, unary = _started("CheckWordsStream"), _started("CheckWords")
    answers = loop_thread.run(scenario())
    assert answers == [[f"ZZ{chr(65 + i % 26)}Q"] for i in range(60)]
    # One stream, and each question counted as the CheckWords it stands for (one latency
    # series for the hop, whichever way it is crossed).
    assert _started("CheckWordsStream") - streams == 1
    assert _started("CheckWords") - unary == 60


def test_unary_calls_when_the_stream_is_turned_off(
    loop_thread: LoopThread, lexicon: RunningServer
) -> None:
    async def scenario() -> list[str]:
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{lexicon.port}")
        client = LexiconClient(channel, timeout=5.0, stream=False)
        try:
            return await client.unknown(["MAISON", "QXW"])
        finally:
            await client.close()
            await channel.close()

    streams, unary = _started("CheckWordsStream"), _started("CheckWords")
    assert loop_thread.run(scenario()) == ["QXW"]
    assert (_started("CheckWordsStream") - streams, _started("CheckWords") - unary) == (0, 1)


def test_a_lexicon_that_goes_away_is_unavailable_then_a_new_stream_serves(
    loop_thread: LoopThread,
) -> None:
    port = free_port()

    async def scenario() -> tuple[list[str], str, list[str]]:
        first, _ = await start(_config(port), metrics=LexiconMetrics(CollectorRegistry()))
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
        client = LexiconClient(channel, timeout=2.0)
        try:
            before = await client.unknown(["CHAT", "QQQ"])
            await first.stop(0)
            try:
                await client.unknown(["CHAT"])
                failed = "answered"
            except LexiconUnavailableError as e:
                failed = str(e)
            second, _ = await start(_config(port), metrics=LexiconMetrics(CollectorRegistry()))
            try:
                # The channel reconnects with its own backoff: once it is connected again, the
                # first question is answered, on a new stream.
                try:
                    await asyncio.wait_for(channel.channel_ready(), 10)
                except TimeoutError:
                    state = channel.get_state()
                    raise AssertionError(f"the channel is {state} 10 s after the restart") from None
                after = await client.unknown(["MAISON", "XXQ"])
            finally:
                await second.stop(0)
            return before, failed, after
        finally:
            await client.close()
            await channel.close()

    before, failed, after = loop_thread.run(scenario(), timeout=60)
    assert before == ["QQQ"]
    assert failed in {"UNAVAILABLE", "CANCELLED"}
    assert after == ["XXQ"]


class _OlderLexicon(LexiconServicer):
    """A lexicon from before the stream: the generated base answers UNIMPLEMENTED."""

    CheckWordsStream = lexicon_pb2_grpc.LexiconServicer.CheckWordsStream  # type: ignore[assignment]


class _SilentLexicon(LexiconServicer):
    """Reads the stream's questions and never answers them."""

    async def CheckWordsStream(  # noqa: N802 - the gRPC method's name
        self, calls: AsyncIterator[lexicon_pb2.CheckWordsCall], context: grpc.aio.ServicerContext
    ) -> AsyncIterator[lexicon_pb2.CheckWordsResult]:
        async for _ in calls:
            pass
        if False:  # pragma: no cover - an async generator that yields nothing
            yield lexicon_pb2.CheckWordsResult()


async def _serve(servicer: LexiconServicer) -> RunningServer:
    def register(server: grpc.aio.Server) -> None:
        lexicon_pb2_grpc.add_LexiconServicer_to_server(servicer, server)

    return await start_grpc_server(
        host="127.0.0.1", port=0, register=register, service_names=[SERVICE]
    )


@pytest.fixture(scope="module")
def french() -> WordList:
    return WordList.load(DEFAULT_WORDLIST_PATH)


def test_an_older_lexicon_without_the_stream_is_asked_by_unary_calls(
    loop_thread: LoopThread, french: WordList
) -> None:
    async def scenario() -> tuple[list[str], list[str]]:
        running = await _serve(_OlderLexicon(french, metrics=LexiconMetrics(CollectorRegistry())))
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{running.port}")
        client = LexiconClient(channel, timeout=5.0)
        try:
            return await client.unknown(["CHAT", "QZQ"]), await client.unknown(["WQW"])
        finally:
            await client.close()
            await channel.close()
            await running.stop(0)

    assert loop_thread.run(scenario()) == (["QZQ"], ["WQW"])


def test_an_answer_that_never_comes_is_a_deadline_and_changes_nothing_else(
    loop_thread: LoopThread, french: WordList
) -> None:
    async def scenario() -> str:
        running = await _serve(_SilentLexicon(french, metrics=LexiconMetrics(CollectorRegistry())))
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{running.port}")
        client = LexiconClient(channel, timeout=0.3)
        try:
            await client.unknown(["CHAT"])
            return "answered"
        except LexiconUnavailableError as e:
            return str(e)
        finally:
            await client.close()
            await channel.close()
            await running.stop(0)

    assert loop_thread.run(scenario()) == "DEADLINE_EXCEEDED"


QUESTIONS = 16
"""Questions answered, at least, before a lexicon's rolling update and again after it (two
per asker): enough that the update falls among questions in flight."""


def _lookups(registry: CollectorRegistry) -> float:
    """The questions a lexicon (the one with this ``registry``) answered from the fr list."""
    labels = {"outcome": "ok", "lexicon": "fr"}
    return registry.get_sample_value("lexio_lexicon_lookup_seconds_count", labels) or 0.0


def test_a_rolling_update_of_the_lexicon_loses_no_question(loop_thread: LoopThread) -> None:
    """The lexicon the engine's stream is on shuts down (SIGTERM's path: RunningServer.stop)
    while another already listens on the same address (SO_REUSEPORT, as a Service's new pod):
    the old one stops reading, answers what it read and ends the stream; the engine asks what
    was left on a new stream, which reaches the new one. Not one question fails."""
    port = free_port()

    async def scenario() -> tuple[int, int, list[str]]:
        old, _ = await start(_config(port), metrics=LexiconMetrics(CollectorRegistry()))
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
        client = LexiconClient(channel, timeout=5.0)
        failures: list[str] = []
        answered = 0

        async def ask_continuously(until: asyncio.Event) -> None:
            nonlocal answered
            while not until.is_set():
                try:
                    assert await client.unknown(["CHAT", "QQZ"]) == ["QQZ"]
                    answered += 1
                except LexiconUnavailableError as e:
                    failures.append(str(e))
                await asyncio.sleep(0.002)

        new: RunningServer | None = None
        new_metrics = CollectorRegistry()
        done = asyncio.Event()
        try:
            await client.unknown(["CHAT"])  # the stream is open, on the old server
            new, _ = await start(_config(port), metrics=LexiconMetrics(new_metrics))
            askers = [asyncio.create_task(ask_continuously(done)) for _ in range(8)]
            # Questions answered before the update (by the old one: the stream is on it).
            await eventually(
                lambda: answered >= QUESTIONS,
                lambda: f"{answered} answered, failures: {failures}",
                timeout=10,
                every=0.01,
            )
            before = answered
            await old.stop(3.0)
            # And after it: on a new stream, by the new one.
            await eventually(
                lambda: _lookups(new_metrics) >= QUESTIONS and answered >= before + QUESTIONS,
                lambda: (
                    f"the new one answered {_lookups(new_metrics)}, {answered - before} "
                    f"answered since the stop began, failures: {failures}"
                ),
                timeout=10,
                every=0.01,
            )
            done.set()
            await asyncio.gather(*askers)
            return before, answered, failures
        finally:
            await client.close()
            await channel.close()
            if new is not None:
                await new.stop(0)

    before, answered, failures = loop_thread.run(scenario(), timeout=60)
    assert failures == []
    assert before > 0 and answered > before  # questions were asked before, during and after


def test_a_lexicon_that_dies_under_many_questions_fails_them_quietly(
    loop_thread: LoopThread, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 23: every question in flight fails with the stream (the caller answers
    ``unavailable``), and the outage is one warning, never asyncio's error-level "Future
    exception was never retrieved" (595 of them for these 300 questions before the fix)."""
    port = free_port()

    async def scenario() -> set[str]:
        server, _ = await start(_config(port), metrics=LexiconMetrics(CollectorRegistry()))
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
        calls: StreamedCalls[Any, Any] = StreamedCalls(channel.stream_stream(
            "/lexio.lexicon.v1.Lexicon/CheckWordsStream",
            request_serializer=lexicon_pb2.CheckWordsCall.SerializeToString,
            response_deserializer=lexicon_pb2.CheckWordsResult.FromString,
        ), name="lexicon")  # fmt: skip

        async def ask() -> str:
            request = lexicon_pb2.CheckWordsRequest(words=["CHAT"] * 50)
            try:
                await calls.ask(lexicon_pb2.CheckWordsCall(request=request), 2.0)
            except (StreamBrokenError, TimeoutError) as e:
                return type(e).__name__
            return "answered"

        try:
            assert await ask() == "answered"
            asked = [asyncio.create_task(ask()) for _ in range(300)]
            await asyncio.sleep(0.002)
            await server.stop(0)
            outcomes = set(await asyncio.gather(*asked))
            # Questions asked while it is away open stream after stream: still one warning.
            assert {await ask() for _ in range(5)} == {"StreamBrokenError"}
        finally:
            await calls.close()
            await channel.close()
        gc.collect()
        await asyncio.sleep(0)
        return outcomes

    with caplog.at_level(logging.DEBUG):
        outcomes = loop_thread.run(scenario(), timeout=60)
        gc.collect()
    assert "StreamBrokenError" in outcomes
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [
        r.getMessage()[:120] for r in caplog.records if r.levelno >= logging.ERROR
    ]
    ended = [r for r in caplog.records if r.getMessage() == "stream ended"]
    assert [r.levelno for r in ended if r.levelno >= logging.WARNING] == [logging.WARNING]
