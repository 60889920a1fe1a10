"""The gRPC face of the word lists: protobuf in, :class:`WordList` calls, protobuf out.

The servicer is deliberately thin: it picks the list a request names (empty = ``fr``,
what Lexio has always sent), bounds what a caller may ask (so one bad request cannot
make the service walk an unbounded list), records metrics, and leaves every lexical
decision to :class:`~lexio_lexicon.words.WordList`. It is registered before the lists
are loaded, so that health can report NOT_SERVING during loading; calls arriving in
that window for a list not loaded yet get UNAVAILABLE, calls naming a list this service
was not configured with get INVALID_ARGUMENT.

Words are never logged at info level: the lists are the games' reserve of answers, and
the words a table checks are the players' moves.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence

import grpc
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, Info

from lexio.lexicon.v1 import lexicon_pb2, lexicon_pb2_grpc
from lexio_common.streamed_calls import StreamDrain, answer_stream
from lexio_lexicon.catalog import LIST_IDS
from lexio_lexicon.normalise import word_pattern
from lexio_lexicon.words import WordList

__all__ = [
    "DEFAULT_LIST",
    "DEFAULT_MAX_WORDS",
    "DEFAULT_MAX_WORD_LENGTH",
    "METRICS",
    "LexiconMetrics",
    "LexiconServicer",
]

log = logging.getLogger(__name__)

#: A move forms one main word plus at most one cross word per tile laid; 256 is ample.
DEFAULT_MAX_WORDS = 256
#: The widest board of the site's games is 22 squares (Lexio's 13): no word it holds is longer.
DEFAULT_MAX_WORD_LENGTH = 22
#: The list a request without ``lexicon`` means: Lexio's.
DEFAULT_LIST = "fr"
#: The ``lexicon`` label of requests naming a list this service does not hold (bounded).
UNKNOWN_LABEL = "unknown"
#: The gRPC service's full name (what the server's metrics call it).
SERVICE_NAME: str = lexicon_pb2.DESCRIPTOR.services_by_name["Lexicon"].full_name

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


class LexiconMetrics:
    """The service's Prometheus metrics, on a registry of the caller's choice.

    The process uses :data:`METRICS` on the default registry (what ``/metrics`` serves);
    tests pass their own ``CollectorRegistry`` to read exact values without sharing.
    """

    def __init__(self, registry: CollectorRegistry = REGISTRY) -> None:
        self.lookup_seconds = Histogram(
            "lexio_lexicon_lookup_seconds",
            "Time to answer a CheckWords call, by outcome and list (fr, en, ar, unknown).",
            ["outcome", "lexicon"],
            buckets=LOOKUP_BUCKETS,
            registry=registry,
        )
        self.words_checked = Counter(
            "lexio_lexicon_words_checked",
            "Words looked up by accepted CheckWords calls, by list.",
            ["lexicon"],
            registry=registry,
        )
        # The two unlabelled series of one list predate the other lists: they describe
        # "fr", so that existing dashboards and alerts keep their meaning.
        self.words_loaded = Gauge(
            "lexio_lexicon_words_loaded",
            "Words in the fr list (0 until it is loaded); see lexio_lexicon_list_words_loaded.",
            registry=registry,
        )
        self.list_info = Info(
            "lexio_lexicon_list",
            "Which fr list is loaded; see lexio_lexicon_lists_info for every list.",
            registry=registry,
        )
        self.list_words_loaded = Gauge(
            "lexio_lexicon_list_words_loaded",
            "Words in each loaded list (0 until it is loaded).",
            ["lexicon"],
            registry=registry,
        )
        self.list_load_seconds = Gauge(
            "lexio_lexicon_list_load_seconds",
            "How long each list took to load (read and check, or map).",
            ["lexicon"],
            registry=registry,
        )
        self.lists_info = Info(
            "lexio_lexicon_lists",
            "Which list is loaded under each id.",
            ["lexicon"],
            registry=registry,
        )
        # Every outcome and list exists from the start, so a rate() has a series to read.
        for lexicon in LIST_IDS:
            for outcome in ("ok", "invalid"):
                self.lookup_seconds.labels(outcome=outcome, lexicon=lexicon)
            self.words_checked.labels(lexicon=lexicon)
        self.lookup_seconds.labels(outcome="invalid", lexicon=UNKNOWN_LABEL)

    def loaded(self, list_id: str, words: WordList) -> None:
        """Record that ``words`` now answers for ``list_id``."""
        self.list_words_loaded.labels(lexicon=list_id).set(len(words))
        self.list_load_seconds.labels(lexicon=list_id).set(words.load_seconds)
        self.lists_info.labels(lexicon=list_id).info(
            {"sha256": words.sha256, "source": words.source}
        )
        if list_id == DEFAULT_LIST:
            self.words_loaded.set(len(words))
            self.list_info.info({"sha256": words.sha256, "source": words.source})


METRICS = LexiconMetrics()


class LexiconServicer(lexicon_pb2_grpc.LexiconServicer):
    """Answers CheckWords and Info from named :class:`WordList` objects, within limits.

    ``words`` is either one list (it is then ``fr``, as before several lists existed) or
    a mapping id → list; ``lists`` names the ids this service is configured for, loaded
    or not yet (default: those given, or ``fr``).
    """

    def __init__(
        self,
        words: WordList | Mapping[str, WordList] | None = None,
        *,
        lists: Iterable[str] | None = None,
        max_words: int = DEFAULT_MAX_WORDS,
        max_word_length: int = DEFAULT_MAX_WORD_LENGTH,
        metrics: LexiconMetrics | None = None,
        drain: StreamDrain | None = None,
    ) -> None:
        self._drain = drain or StreamDrain()
        if max_words < 1 or max_word_length < 1:
            raise ValueError("max_words and max_word_length must be at least 1")
        given = {DEFAULT_LIST: words} if isinstance(words, WordList) else dict(words or {})
        self.lists: tuple[str, ...] = (
            tuple(lists) if lists is not None else (tuple(given) or (DEFAULT_LIST,))
        )
        unknown = [list_id for list_id in (*self.lists, *given) if list_id not in LIST_IDS]
        if unknown:
            raise ValueError(f"unknown word lists {unknown} (known: {', '.join(LIST_IDS)})")
        self.max_words = max_words
        self.max_word_length = max_word_length
        self._metrics = metrics or METRICS
        self._words: dict[str, WordList] = {}
        for list_id, loaded in given.items():
            self.set_list(list_id, loaded)

    @property
    def wordlist(self) -> WordList | None:
        """The ``fr`` list, if loaded (what a single-list caller means)."""
        return self._words.get(DEFAULT_LIST)

    @property
    def loaded(self) -> dict[str, WordList]:
        """The lists loaded so far, by id, in configuration order."""
        return {i: self._words[i] for i in self.lists if i in self._words}

    def set_wordlist(self, words: WordList) -> None:
        """Start answering ``fr`` from ``words`` (called once the list has loaded)."""
        self.set_list(DEFAULT_LIST, words)

    def set_list(self, list_id: str, words: WordList) -> None:
        """Start answering ``list_id`` from ``words``."""
        if list_id not in self.lists:
            self.lists = (*self.lists, list_id)
        self._words[list_id] = words
        self._metrics.loaded(list_id, words)

    async def CheckWords(
        self, request: lexicon_pb2.CheckWordsRequest, context: grpc.aio.ServicerContext
    ) -> lexicon_pb2.CheckWordsResponse:
        started = time.perf_counter()
        list_id = request.lexicon or DEFAULT_LIST
        problem = self._unknown_list(list_id)
        label = UNKNOWN_LABEL if problem else list_id
        if problem is None:
            words = await self._loaded(list_id, context)
            problem = self._problem(list_id, request.words)
        if problem is not None:
            self._metrics.lookup_seconds.labels(outcome="invalid", lexicon=label).observe(
                time.perf_counter() - started
            )
            log.warning(
                "check refused",
                extra={"reason": problem, "word_count": len(request.words), "lexicon": label},
            )
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, problem)
        unknown = words.unknown(request.words)
        reply = lexicon_pb2.CheckWordsResponse(unknown=unknown)
        if request.with_spellings:
            reply.spellings.extend(
                lexicon_pb2.Spellings(word=word, spellings=spellings)
                for word in request.words
                if (spellings := words.spellings(word))
            )
        self._metrics.words_checked.labels(lexicon=list_id).inc(len(request.words))
        self._metrics.lookup_seconds.labels(outcome="ok", lexicon=list_id).observe(
            time.perf_counter() - started
        )
        return reply

    async def CheckWordsStream(
        self,
        calls: AsyncIterator[lexicon_pb2.CheckWordsCall],
        context: grpc.aio.ServicerContext,
    ) -> AsyncIterator[lexicon_pb2.CheckWordsResult]:
        """Every question of the stream answered as :meth:`CheckWords` would, a refusal
        in-band (the stream goes on), each counted and timed as a CheckWords call."""
        async for result in answer_stream(
            calls,
            self.CheckWords,
            lexicon_pb2.CheckWordsResult,
            service=SERVICE_NAME,
            method="CheckWords",
            drain=self._drain,
        ):
            yield result

    async def Info(
        self, request: lexicon_pb2.InfoRequest, context: grpc.aio.ServicerContext
    ) -> lexicon_pb2.InfoResponse:
        if request.lexicon:
            problem = self._unknown_list(request.lexicon)
            if problem is not None:
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, problem)
            chosen = {request.lexicon: await self._loaded(request.lexicon, context)}
        else:
            chosen = self.loaded
            if not chosen:
                await context.abort(grpc.StatusCode.UNAVAILABLE, "word lists are still loading")
        reply = lexicon_pb2.InfoResponse(
            lists=[
                lexicon_pb2.ListInfo(
                    id=list_id,
                    word_count=len(words),
                    sha256=words.sha256,
                    load_seconds=words.load_seconds,
                    source=words.source,
                    licence=words.licence,
                )
                for list_id, words in chosen.items()
            ]
        )
        french = self._words.get(DEFAULT_LIST)
        if french is not None:  # the fields Lexio has always read
            reply.word_count = len(french)
            reply.sha256 = french.sha256
            reply.load_seconds = french.load_seconds
            reply.source = french.source
        return reply

    async def _loaded(self, list_id: str, context: grpc.aio.ServicerContext) -> WordList:
        words = self._words.get(list_id)
        if words is None:
            await context.abort(
                grpc.StatusCode.UNAVAILABLE, f"word list {list_id} is still loading"
            )
            raise AssertionError("context.abort returned")  # pragma: no cover
        return words

    def _unknown_list(self, list_id: str) -> str | None:
        if list_id in self.lists:
            return None
        shown = list_id if len(list_id) <= 16 else list_id[:16] + "…"
        return f"unknown lexicon {shown!r} (this service holds {', '.join(self.lists)})"

    def _problem(self, list_id: str, words: Sequence[str]) -> str | None:
        """Why the request's words are refused, or None. Names positions, never words."""
        if len(words) > self.max_words:
            return f"too many words: {len(words)} > {self.max_words}"
        pattern = word_pattern(list_id)
        alphabet = "upper-case A–Z" if list_id != "ar" else "in the Arabic tile alphabet"
        for index, word in enumerate(words):
            if not word:
                return f"word {index} is empty"
            if len(word) > self.max_word_length:
                return f"word {index} is longer than {self.max_word_length} letters"
            if pattern.fullmatch(word) is None:
                return f"word {index} is not {alphabet}"
        return None
