"""The gRPC face of the word list: protobuf in, :class:`WordList` calls, protobuf out.

The servicer is deliberately thin: it bounds what a caller may ask (so one bad request
cannot make the service walk an unbounded list), records metrics, and leaves every
lexical decision to :class:`~lexio_lexicon.words.WordList`. It is registered before the
list is loaded, so that health can report NOT_SERVING during loading; calls arriving
in that window get UNAVAILABLE.

Words are never logged at info level: the list is the game's reserve of answers, and
the words a table checks are the players' moves.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Sequence

import grpc
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, Info

from lexio.lexicon.v1 import lexicon_pb2, lexicon_pb2_grpc
from lexio_lexicon.words import WordList

__all__ = [
    "DEFAULT_MAX_WORDS",
    "DEFAULT_MAX_WORD_LENGTH",
    "METRICS",
    "LexiconMetrics",
    "LexiconServicer",
]

log = logging.getLogger(__name__)

#: A move forms one main word plus at most one cross word per tile laid; 256 is ample.
DEFAULT_MAX_WORDS = 256
#: The board is 13 squares wide, so no word it can hold is longer; 15 leaves a margin.
DEFAULT_MAX_WORD_LENGTH = 15

LOOKUP_BUCKETS = (
    0.0001,
    0.00025,
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.0,
)

_WORD = re.compile(r"[A-Z]+")


class LexiconMetrics:
    """The service's Prometheus metrics, on a registry of the caller's choice.

    The process uses :data:`METRICS` on the default registry (what ``/metrics`` serves);
    tests pass their own ``CollectorRegistry`` to read exact values without sharing.
    """

    def __init__(self, registry: CollectorRegistry = REGISTRY) -> None:
        self.lookup_seconds = Histogram(
            "lexio_lexicon_lookup_seconds",
            "Time to answer a CheckWords call, by outcome.",
            ["outcome"],
            buckets=LOOKUP_BUCKETS,
            registry=registry,
        )
        self.words_checked = Counter(
            "lexio_lexicon_words_checked",
            "Words looked up by accepted CheckWords calls.",
            registry=registry,
        )
        self.words_loaded = Gauge(
            "lexio_lexicon_words_loaded",
            "Words in the loaded list (0 until it is loaded).",
            registry=registry,
        )
        self.list_info = Info(
            "lexio_lexicon_list",
            "Which word list is loaded.",
            registry=registry,
        )
        # Both outcomes exist from the start, so a dashboard's rate() has a series to read.
        for outcome in ("ok", "invalid"):
            self.lookup_seconds.labels(outcome=outcome)


METRICS = LexiconMetrics()


class LexiconServicer(lexicon_pb2_grpc.LexiconServicer):
    """Answers CheckWords and Info from a :class:`WordList`, within request limits."""

    def __init__(
        self,
        words: WordList | None = None,
        *,
        max_words: int = DEFAULT_MAX_WORDS,
        max_word_length: int = DEFAULT_MAX_WORD_LENGTH,
        metrics: LexiconMetrics | None = None,
    ) -> None:
        if max_words < 1 or max_word_length < 1:
            raise ValueError("max_words and max_word_length must be at least 1")
        self.max_words = max_words
        self.max_word_length = max_word_length
        self._metrics = metrics or METRICS
        self._words: WordList | None = None
        if words is not None:
            self.set_wordlist(words)

    @property
    def wordlist(self) -> WordList | None:
        return self._words

    def set_wordlist(self, words: WordList) -> None:
        """Start answering from ``words`` (called once the list has loaded)."""
        self._words = words
        self._metrics.words_loaded.set(len(words))
        self._metrics.list_info.info({"sha256": words.sha256, "source": words.source})

    async def CheckWords(
        self, request: lexicon_pb2.CheckWordsRequest, context: grpc.aio.ServicerContext
    ) -> lexicon_pb2.CheckWordsResponse:
        started = time.perf_counter()
        words = await self._loaded(context)
        problem = self._problem(request.words)
        if problem is not None:
            self._metrics.lookup_seconds.labels(outcome="invalid").observe(
                time.perf_counter() - started
            )
            log.warning(
                "check refused", extra={"reason": problem, "word_count": len(request.words)}
            )
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, problem)
        unknown = words.unknown(request.words)
        self._metrics.words_checked.inc(len(request.words))
        self._metrics.lookup_seconds.labels(outcome="ok").observe(time.perf_counter() - started)
        return lexicon_pb2.CheckWordsResponse(unknown=unknown)

    async def Info(
        self, request: lexicon_pb2.InfoRequest, context: grpc.aio.ServicerContext
    ) -> lexicon_pb2.InfoResponse:
        words = await self._loaded(context)
        return lexicon_pb2.InfoResponse(
            word_count=len(words),
            sha256=words.sha256,
            load_seconds=words.load_seconds,
            source=words.source,
        )

    async def _loaded(self, context: grpc.aio.ServicerContext) -> WordList:
        if self._words is None:
            await context.abort(grpc.StatusCode.UNAVAILABLE, "word list is still loading")
            raise AssertionError("context.abort returned")  # pragma: no cover
        return self._words

    def _problem(self, words: Sequence[str]) -> str | None:
        """Why the request's words are refused, or None. Names positions, never words."""
        if len(words) > self.max_words:
            return f"too many words: {len(words)} > {self.max_words}"
        for index, word in enumerate(words):
            if not word:
                return f"word {index} is empty"
            if len(word) > self.max_word_length:
                return f"word {index} is longer than {self.max_word_length} letters"
            if _WORD.fullmatch(word) is None:
                return f"word {index} is not upper-case A–Z"
        return None
