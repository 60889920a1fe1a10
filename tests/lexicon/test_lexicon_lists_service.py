"""The real lexicon gRPC server holding fr, en and ar (the REAL built lists), on port 0:
CheckWords by list, spellings, Info, limits, metrics, health, and the process's refusals."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import queue
import shutil
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
from lexio_lexicon import arabic_list, server
from lexio_lexicon.cache import cache_dir
from lexio_lexicon.server import SERVICE_NAME, LexiconConfig, start
from lexio_lexicon.servicer import LexiconMetrics

T = TypeVar("T")
TIMEOUT = 10.0
EXECUTABLE = Path(sys.executable).with_name("lexio-lexicon")


class LoopThread(Protocol):
    """The shared ``loop_thread`` fixture of tests/conftest.py."""

    loop: asyncio.AbstractEventLoop

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = ...) -> T: ...


class Served:
    def __init__(self, running: RunningServer, registry: CollectorRegistry) -> None:
        self.running = running
        self.registry = registry
        self.channel = grpc.insecure_channel(f"127.0.0.1:{running.port}")
        self.stub = lexicon_pb2_grpc.LexiconStub(self.channel)
        self.health = health_pb2_grpc.HealthStub(self.channel)

    def metric(self, name: str, **labels: str) -> float:
        value = self.registry.get_sample_value(name, labels)
        return 0.0 if value is None else value

    def check(self, words: list[str], lexicon: str = "", spellings: bool = False) -> Any:
        request = lexicon_pb2.CheckWordsRequest(
            words=words, lexicon=lexicon, with_spellings=spellings
        )
        return self.stub.CheckWords(request, timeout=TIMEOUT)

    def status(self) -> int:
        request = health_pb2.HealthCheckRequest(service=SERVICE_NAME)
        return int(self.health.Check(request, timeout=TIMEOUT).status)


def _config(**overrides: Any) -> LexiconConfig:
    return LexiconConfig(host="127.0.0.1", port=0, metrics_port=-1, **overrides)


@pytest.fixture(scope="module")
def served(loop_thread: LoopThread) -> Iterator[Served]:
    registry = CollectorRegistry()
    running, _ = loop_thread.run(start(_config(), metrics=LexiconMetrics(registry)))
    served = Served(running, registry)
    yield served
    served.channel.close()
    loop_thread.run(running.stop(0))


def test_check_words_naming_each_list(served: Served) -> None:
    assert list(served.check(["TABLE", "COLOUR", "QI"], "fr").unknown) == ["COLOUR", "QI"]
    assert list(served.check(["TABLE", "COLOUR", "QI", "ZA"], "en").unknown) == ["ZA"]
    assert list(served.check(["كتاب", "الكتاب", "والكتاب", "كتبز"], "ar").unknown) == [
        "والكتاب",
        "كتبز",
    ]
    # No list named: fr, as Lexio has always asked.
    assert list(served.check(["TABLE", "COLOUR"]).unknown) == ["COLOUR"]


def test_with_spellings_in_request_order(served: Served) -> None:
    reply = served.check(["امن", "كتبز", "مسوول", "كتاب", "امن"], "ar", spellings=True)
    assert list(reply.unknown) == ["كتبز"]
    got = [(entry.word, list(entry.spellings)) for entry in reply.spellings]
    assert got == [
        ("امن", ["آمن", "أمن", "إمن", "امن"]),
        ("مسوول", ["مسؤول"]),
        ("كتاب", ["كتاب"]),
        ("امن", ["آمن", "أمن", "إمن", "امن"]),
    ]
    latin = served.check(["COLOUR", "ZA"], "en", spellings=True)
    assert [(e.word, list(e.spellings)) for e in latin.spellings] == [("COLOUR", ["COLOUR"])]
    assert list(served.check(["كتاب"], "ar").spellings) == []  # only when asked


def test_info_lists_each_list(served: Served) -> None:
    info = served.stub.Info(lexicon_pb2.InfoRequest(), timeout=TIMEOUT)
    lists = {entry.id: entry for entry in info.lists}
    assert [entry.id for entry in info.lists] == ["fr", "en", "ar"]
    assert lists["fr"].word_count == 325_288 and lists["en"].word_count == 118_839
    assert lists["ar"].word_count == 11_368_572
    assert lists["ar"].sha256 == arabic_list.EXPECTED_SHA256
    assert lists["ar"].source == str(cache_dir() / "ar.marisa")
    assert lists["en"].source.endswith("english.txt")
    assert "GPL-2" in lists["ar"].licence and "SCOWL" in lists["en"].licence
    assert all(0 < entry.load_seconds < 30 and len(entry.sha256) == 64 for entry in info.lists)
    # The fields Lexio has always read still describe fr.
    assert (info.word_count, info.sha256, info.source) == (
        lists["fr"].word_count,
        lists["fr"].sha256,
        lists["fr"].source,
    )
    one = served.stub.Info(lexicon_pb2.InfoRequest(lexicon="en"), timeout=TIMEOUT)
    assert [entry.id for entry in one.lists] == ["en"]


@pytest.mark.parametrize(
    ("lexicon", "words", "detail"),
    [
        ("de", ["TABLE"], "unknown lexicon 'de' (this service holds fr, en, ar)"),
        ("x" * 40, ["TABLE"], f"unknown lexicon '{'x' * 16}…' (this service holds fr, en, ar)"),
        ("ar", ["TABLE"], "word 0 is not in the Arabic tile alphabet"),
        ("ar", ["كتاب", "أكل"], "word 1 is not in the Arabic tile alphabet"),  # not folded
        ("ar", ["ب" * 23], "word 0 is longer than 22 letters"),
        ("en", ["كتاب"], "word 0 is not upper-case A–Z"),
        ("en", ["COLOUR"] * 257, "too many words: 257 > 256"),
    ],
)
def test_bad_requests_are_invalid_argument(
    served: Served, lexicon: str, words: list[str], detail: str
) -> None:
    label = lexicon if lexicon in ("fr", "en", "ar") else "unknown"
    before = served.metric("lexio_lexicon_lookup_seconds_count", outcome="invalid", lexicon=label)
    with pytest.raises(grpc.RpcError) as caught:
        served.check(words, lexicon)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert caught.value.details() == detail
    after = served.metric("lexio_lexicon_lookup_seconds_count", outcome="invalid", lexicon=label)
    assert after == before + 1


def test_info_of_an_unknown_list_is_invalid_argument(served: Served) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        served.stub.Info(lexicon_pb2.InfoRequest(lexicon="de"), timeout=TIMEOUT)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_words_of_22_letters_are_accepted(served: Served) -> None:
    assert list(served.check(["ب" * 22], "ar").unknown) == ["ب" * 22]


def test_metrics_per_list(served: Served) -> None:
    before = served.metric("lexio_lexicon_words_checked_total", lexicon="ar")
    served.check(["كتاب", "قلم"], "ar")
    assert served.metric("lexio_lexicon_words_checked_total", lexicon="ar") == before + 2
    for list_id, count in (("fr", 325_288), ("en", 118_839), ("ar", 11_368_572)):
        assert served.metric("lexio_lexicon_list_words_loaded", lexicon=list_id) == count
        assert served.metric("lexio_lexicon_list_load_seconds", lexicon=list_id) > 0
    # The unlabelled series keep describing fr (dashboards and alerts read them).
    assert served.metric("lexio_lexicon_words_loaded") == 325_288
    ar_info = [
        sample.labels
        for metric in served.registry.collect()
        for sample in metric.samples
        if sample.name == "lexio_lexicon_lists_info" and sample.labels["lexicon"] == "ar"
    ]
    assert ar_info == [
        {
            "lexicon": "ar",
            "sha256": arabic_list.EXPECTED_SHA256,
            "source": str(cache_dir() / "ar.marisa"),
        }
    ]


class _Ports(logging.Handler):
    """Catches the port of "lexicon listening" (start() returns only once loaded)."""

    def __init__(self) -> None:
        super().__init__()
        self.ports: queue.Queue[int] = queue.Queue()

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage() == "lexicon listening":
            self.ports.put(int(record.__dict__["port"]))


def test_health_not_serving_until_every_list_is_loaded(
    loop_thread: LoopThread, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Loading is held (a gate around the real loader): NOT_SERVING and UNAVAILABLE meanwhile."""
    gate = threading.Event()
    real = server.load_lists

    def held(config: LexiconConfig) -> dict[str, Any]:
        assert gate.wait(30)
        return real(config)

    monkeypatch.setattr(server, "load_lists", held)
    ports = _Ports()
    logger = logging.getLogger("lexio_lexicon.server")
    logger.addHandler(ports)
    previous_level = logger.level
    logger.setLevel(logging.INFO)
    try:
        metrics = LexiconMetrics(CollectorRegistry())
        # Not loop_thread.run(): that waits for start() to return, i.e. for the gate.
        future = asyncio.run_coroutine_threadsafe(
            start(_config(), metrics=metrics), loop_thread.loop
        )
        port = ports.ports.get(timeout=30)
    finally:
        logger.removeHandler(ports)
        logger.setLevel(previous_level)
    serving = health_pb2.HealthCheckResponse.SERVING
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        health = health_pb2_grpc.HealthStub(channel)
        stub = lexicon_pb2_grpc.LexiconStub(channel)
        request = health_pb2.HealthCheckRequest(service=SERVICE_NAME)
        try:
            assert health.Check(request, timeout=TIMEOUT).status != serving
            for lexicon in ("fr", "ar"):
                with pytest.raises(grpc.RpcError) as caught:
                    stub.CheckWords(
                        lexicon_pb2.CheckWordsRequest(words=["TABLE"], lexicon=lexicon),
                        timeout=TIMEOUT,
                    )
                assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
        finally:
            gate.set()
        running, _ = future.result(timeout=60)
        try:
            assert health.Check(request, timeout=TIMEOUT).status == serving
        finally:
            loop_thread.run(running.stop(0))


def _env(**overrides: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEXIO_")}
    env.update(
        LEXIO_LEXICON_HOST="127.0.0.1", LEXIO_LEXICON_PORT="0", LEXIO_LEXICON_METRICS_PORT="-1"
    )
    env.update(overrides)
    return env


def _run(**env: str) -> subprocess.CompletedProcess[str]:
    assert EXECUTABLE.exists(), EXECUTABLE
    return subprocess.run(
        [str(EXECUTABLE)],
        env=_env(**env),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _errors(stderr: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]
    return [entry for entry in lines if entry["level"] == "error"]


def test_process_refuses_a_missing_arabic_list(tmp_path: Path) -> None:
    done = _run(LEXIO_LEXICON_CACHE=str(tmp_path))
    assert done.returncode == 2, done.stderr
    (error,) = _errors(done.stderr)
    assert error["msg"] == (
        f"cannot load the word list: word list ar is not built: {tmp_path / 'ar.json'} "
        "does not exist; run make wordlist-ar"
    )
    assert (error["lexicon"], error["wordlist"]) == ("ar", str(tmp_path))


def test_process_refuses_a_corrupt_arabic_list(tmp_path: Path) -> None:
    shutil.copytree(cache_dir(), tmp_path / "cache")
    trie = tmp_path / "cache" / "ar.marisa"
    trie.write_bytes(trie.read_bytes()[: trie.stat().st_size // 2])
    done = _run(LEXIO_LEXICON_CACHE=str(tmp_path / "cache"))
    assert done.returncode == 2, done.stderr
    (error,) = _errors(done.stderr)
    assert error["msg"] == (
        f"cannot load the word list: word list {trie} is corrupt (not the file its build "
        "recorded); run make wordlist-ar"
    )


@pytest.mark.parametrize("lists", ["", "fr,de", "fr,fr"])
def test_process_refuses_bad_list_configuration(lists: str) -> None:
    done = _run(LEXIO_LEXICON_LISTS=lists or ",")
    assert done.returncode == 2, done.stderr
    (error,) = _errors(done.stderr)
    assert "LEXIO_LEXICON_LISTS must list some of fr, en, ar once each" in error["msg"]


def test_process_with_fewer_lists_does_not_need_the_arabic_build(tmp_path: Path) -> None:
    """LEXIO_LEXICON_LISTS=fr,en starts without any built list (the cache is empty)."""
    process = subprocess.Popen(
        [str(EXECUTABLE)],
        env=_env(LEXIO_LEXICON_LISTS="fr,en", LEXIO_LEXICON_CACHE=str(tmp_path)),
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        seen = []
        for line in process.stderr:
            if line.startswith("{"):
                seen.append(json.loads(line))
                if seen[-1]["msg"] == "lexicon serving":
                    break
        assert seen[-1]["lists"] == "fr,en"
        loaded = [entry["lexicon"] for entry in seen if entry["msg"] == "word list loaded"]
        assert loaded == ["fr", "en"]
    finally:
        process.kill()  # what is checked is the start; the SIGTERM path has its own test
        process.wait(timeout=30)
