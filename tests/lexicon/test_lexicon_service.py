"""The real lexicon gRPC server on 127.0.0.1, port 0: calls, limits, health, process exit.

No mocks: the server runs on the shared event loop thread of tests/conftest.py (there is
no pytest-asyncio), and the tests talk to it with ordinary synchronous gRPC channels.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, Protocol, TypeVar

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client import CollectorRegistry

from lexio.lexicon.v1 import lexicon_pb2, lexicon_pb2_grpc
from lexio_common.grpc_service import RunningServer
from lexio_lexicon.server import SERVICE_NAME, LexiconConfig, start, start_unloaded
from lexio_lexicon.servicer import LexiconMetrics
from lexio_lexicon.words import DEFAULT_WORDLIST_PATH, WordList, WordListError

T = TypeVar("T")
TIMEOUT = 10.0
EXECUTABLE = Path(sys.executable).with_name("lexio-lexicon")


class LoopThread(Protocol):
    """The shared ``loop_thread`` fixture of tests/conftest.py: one event loop in a thread.

    Every suite's servers run on that one loop rather than each module starting its own,
    so grpc.aio never has servers on two loops in the same process.
    """

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = ...) -> T: ...


class Served:
    """A started server, its list, its private metrics registry and a channel to it."""

    def __init__(
        self, running: RunningServer, words: WordList, registry: CollectorRegistry
    ) -> None:
        self.running = running
        self.words = words
        self.registry = registry
        self.channel = grpc.insecure_channel(f"127.0.0.1:{running.port}")
        self.stub = lexicon_pb2_grpc.LexiconStub(self.channel)
        self.health = health_pb2_grpc.HealthStub(self.channel)

    def metric(self, name: str, **labels: str) -> float:
        value = self.registry.get_sample_value(name, labels)
        return 0.0 if value is None else value


def _config(wordlist: Path = DEFAULT_WORDLIST_PATH) -> LexiconConfig:
    return LexiconConfig(host="127.0.0.1", port=0, metrics_port=-1, wordlist=wordlist)


@pytest.fixture(scope="module")
def served(loop_thread: LoopThread) -> Iterator[Served]:
    """The real server with the shipped list, started once for the module."""
    registry = CollectorRegistry()
    running, words = loop_thread.run(start(_config(), metrics=LexiconMetrics(registry)))
    served = Served(running, words, registry)
    yield served
    served.channel.close()
    loop_thread.run(running.stop(0))


def _check(served: Served, words: list[str]) -> list[str]:
    request = lexicon_pb2.CheckWordsRequest(words=words)
    return list(served.stub.CheckWords(request, timeout=TIMEOUT).unknown)


def _refusal(served: Served, words: list[str]) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        _check(served, words)
    return caught.value


def test_check_words_answers_unknown_in_request_order(served: Served) -> None:
    before = served.metric("lexio_lexicon_words_checked_total", lexicon="fr")
    ok_before = served.metric("lexio_lexicon_lookup_seconds_count", outcome="ok", lexicon="fr")
    asked = ["XYZZY", "ETE", "TABLE", "QWXZ", "XYZZY", "COEUR"]
    assert _check(served, asked) == ["XYZZY", "QWXZ", "XYZZY"]
    assert _check(served, ["MAISON", "ARBRE"]) == []
    assert _check(served, []) == []
    assert served.metric("lexio_lexicon_words_checked_total", lexicon="fr") == before + 8
    assert served.metric("lexio_lexicon_lookup_seconds_count", outcome="ok", lexicon="fr") == (
        ok_before + 3
    )


def test_check_words_accepts_the_limits_exactly(served: Served) -> None:
    assert _check(served, ["ETE"] * 256) == []
    # 22 letters: the al-Mishqaq board's width (Lexio's 13 fit in it).
    assert _check(served, ["ANTICONSTITUTIONNELLEMENT"[:22]]) == ["ANTICONSTITUTIONNELLEM"]


@pytest.mark.parametrize(
    ("words", "detail"),
    [
        (["ETE"] * 257, "too many words: 257 > 256"),
        (["ETE", "A" * 23], "word 1 is longer than 22 letters"),
        (["ETE", "TABLE", ""], "word 2 is empty"),
        (["table"], "word 0 is not upper-case A–Z"),
        (["ÉTÉ"], "word 0 is not upper-case A–Z"),
        (["PORTE-MONNAIE"], "word 0 is not upper-case A–Z"),
    ],
)
def test_check_words_refuses_bad_requests(served: Served, words: list[str], detail: str) -> None:
    invalid_before = served.metric(
        "lexio_lexicon_lookup_seconds_count", outcome="invalid", lexicon="fr"
    )
    checked_before = served.metric("lexio_lexicon_words_checked_total", lexicon="fr")
    error = _refusal(served, words)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error.details() == detail
    assert served.metric("lexio_lexicon_lookup_seconds_count", outcome="invalid", lexicon="fr") == (
        invalid_before + 1
    )
    assert served.metric("lexio_lexicon_words_checked_total", lexicon="fr") == checked_before


def test_info_describes_the_loaded_list(served: Served) -> None:
    info = served.stub.Info(lexicon_pb2.InfoRequest(), timeout=TIMEOUT)
    assert info.word_count == len(served.words)
    assert 300_000 <= info.word_count <= 330_000
    assert info.sha256 == served.words.sha256
    assert len(info.sha256) == 64
    assert info.source == str(DEFAULT_WORDLIST_PATH)
    assert 0 < info.load_seconds < 30


def test_health_is_serving_after_load(served: Served) -> None:
    for service in ("", SERVICE_NAME):
        reply = served.health.Check(health_pb2.HealthCheckRequest(service=service), timeout=TIMEOUT)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING, service


def test_metrics_describe_the_loaded_list(served: Served) -> None:
    assert served.metric("lexio_lexicon_words_loaded") == len(served.words)
    assert (
        served.metric(
            "lexio_lexicon_list_info",
            sha256=served.words.sha256,
            source=str(DEFAULT_WORDLIST_PATH),
        )
        == 1.0
    )


def test_not_serving_and_unavailable_until_the_list_is_loaded(loop_thread: LoopThread) -> None:
    registry = CollectorRegistry()
    running, servicer = loop_thread.run(start_unloaded(_config(), metrics=LexiconMetrics(registry)))
    try:
        served = Served(running, WordList.from_words([]), registry)
        status = served.health.Check(health_pb2.HealthCheckRequest(service=""), timeout=TIMEOUT)
        assert status.status == health_pb2.HealthCheckResponse.NOT_SERVING
        error = _refusal(served, ["ETE"])
        assert error.code() == grpc.StatusCode.UNAVAILABLE
        with pytest.raises(grpc.RpcError) as caught:
            served.stub.Info(lexicon_pb2.InfoRequest(), timeout=TIMEOUT)
        assert caught.value.code() == grpc.StatusCode.UNAVAILABLE

        servicer.set_wordlist(WordList.from_words(["ETE", "TABLE"], source="test"))
        loop_thread.run(running.set_serving(True))
        assert _check(served, ["TABLE", "ARBRE"]) == ["ARBRE"]
        info = served.stub.Info(lexicon_pb2.InfoRequest(), timeout=TIMEOUT)
        assert (info.word_count, info.source) == (2, "test")
        status = served.health.Check(health_pb2.HealthCheckRequest(service=""), timeout=TIMEOUT)
        assert status.status == health_pb2.HealthCheckResponse.SERVING
        served.channel.close()
    finally:
        loop_thread.run(running.stop(0))


def test_start_fails_on_a_missing_list(loop_thread: LoopThread, tmp_path: Path) -> None:
    config = _config(tmp_path / "missing.txt")
    with pytest.raises(WordListError, match="does not exist"):
        loop_thread.run(start(config, metrics=LexiconMetrics(CollectorRegistry())))


def _env(**overrides: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEXIO_")}
    env.update(
        LEXIO_LEXICON_HOST="127.0.0.1", LEXIO_LEXICON_PORT="0", LEXIO_LEXICON_METRICS_PORT="-1"
    )
    env.update(overrides)
    return env


def _json_lines(stderr: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]


def test_process_exits_non_zero_on_a_missing_list(tmp_path: Path) -> None:
    missing = tmp_path / "missing.txt"
    assert EXECUTABLE.exists(), EXECUTABLE
    done = subprocess.run(
        [str(EXECUTABLE)],
        env=_env(LEXIO_LEXICON_WORDLIST=str(missing)),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    errors = [entry for entry in _json_lines(done.stderr) if entry["level"] == "error"]
    assert len(errors) == 1, done.stderr
    assert errors[0]["msg"] == f"cannot load the word list: word list {missing} does not exist"
    assert errors[0]["wordlist"] == str(missing)
    assert errors[0]["service"] == "lexicon"


def test_process_exits_non_zero_on_bad_configuration() -> None:
    done = subprocess.run(
        [str(EXECUTABLE)],
        env=_env(LEXIO_LEXICON_PORT="not-a-port"),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "LEXIO_LEXICON_PORT must be an integer" in done.stderr


def test_process_serves_then_stops_on_sigterm(tmp_path: Path) -> None:
    wordlist = tmp_path / "words.txt"
    wordlist.write_bytes(b"TABLE\nZYTHUM\n")
    process = subprocess.Popen(
        [str(EXECUTABLE)],
        env=_env(LEXIO_LEXICON_WORDLIST=str(wordlist)),
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.put(line)

    threading.Thread(target=pump, daemon=True).start()
    try:
        seen: list[dict[str, Any]] = []
        while not any(entry["msg"] == "lexicon serving" for entry in seen):
            seen.extend(_json_lines(lines.get(timeout=30)))
        port = next(entry["port"] for entry in seen if entry["msg"] == "lexicon listening")
        loaded = next(entry for entry in seen if entry["msg"] == "word list loaded")
        assert loaded["word_count"] == 2
        assert "ZYTHUM" not in json.dumps(seen)  # words are never logged at info level

        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = lexicon_pb2_grpc.LexiconStub(channel)
            reply = stub.CheckWords(
                lexicon_pb2.CheckWordsRequest(words=["ZYTHUM", "ARBRE"]), timeout=TIMEOUT
            )
            assert list(reply.unknown) == ["ARBRE"]

        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
        while not any(entry["msg"] == "lexicon stopped" for entry in seen):
            seen.extend(_json_lines(lines.get(timeout=10)))
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
