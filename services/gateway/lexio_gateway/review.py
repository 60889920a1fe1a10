"""A finished game over HTTP, for the players of its table: its review and its record.

``GET /api/tables/{table_id}/review`` and ``/record`` (docs/protocol.md, "Reviewing a finished
game"). The seat token the ``seated`` frame gave is the only key, in the Authorization header
(never in the URL, which servers and proxies log). Every refusal is ``{"error": code}`` and no
more: a token of another table gets the answer an unknown token gets, so that nothing tells
whether a table exists. Nothing here changes the store.
"""

from __future__ import annotations

import json
import logging
import math
import re
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final

import grpc
from aiohttp import hdrs, web
from aiohttp.web_response import ContentCoding

from lexio_gateway import state as keys
from lexio_gateway.games import GameTable, GameUnavailableError
from lexio_gateway.games.contract import GameReview, ReviewUnavailableError
from lexio_gateway.metrics import REVIEW_SECONDS, REVIEW_UNKNOWN_GAME
from lexio_gateway.records import TableRecord, TableStatus
from lexio_gateway.room import token_hash
from lexio_gateway.store import StoreUnavailableError

log = logging.getLogger(__name__)

MAX_TOKEN_CHARS: Final = 128
"""As the ``hello`` frame's token (ws.py): longer is no token this gateway gave."""
# RFC 6750's b64token: what a bearer token may be made of.
_BEARER: Final = re.compile(r"Bearer +([A-Za-z0-9\-._~+/]+=*)", re.IGNORECASE)
_FILENAME_PART: Final = re.compile(r"[^A-Za-z0-9-]")
_NO_STORE: Final[dict[str, str]] = {
    hdrs.CACHE_CONTROL: "no-store",
    # The answer is the token's: a cache (if one ignored no-store) must not give it to another.
    hdrs.VARY: "Authorization, Accept-Encoding",
}


class RefusalError(Exception):
    """The request's answer is an error: its status, its code, and the game it concerned for
    the metric (unknown until the token names a table)."""

    def __init__(self, status: int, code: str, game: str = REVIEW_UNKNOWN_GAME) -> None:
        super().__init__(code)
        self.status, self.code, self.game = status, code, game


REVIEWS_KEPT: Final = 64
"""Reviews kept in memory, the most recently asked: a finished game never changes, and each
review otherwise costs a replay of the whole game in the engine (~25-45 ms), which a player
holding a token could ask for in a loop."""


class ReviewCache:
    """The last :data:`REVIEWS_KEPT` reviews, by table, version and seat (least recently asked
    first out)."""

    def __init__(self, size: int = REVIEWS_KEPT) -> None:
        self._size = size
        self._reviews: OrderedDict[tuple[str, int, int], GameReview] = OrderedDict()

    def get(self, key: tuple[str, int, int]) -> GameReview | None:
        review = self._reviews.get(key)
        if review is not None:
            self._reviews.move_to_end(key)
        return review

    def put(self, key: tuple[str, int, int], review: GameReview) -> None:
        self._reviews[key] = review
        self._reviews.move_to_end(key)
        while len(self._reviews) > self._size:
            self._reviews.popitem(last=False)


REVIEWS: Final = web.AppKey("reviews", ReviewCache)


@dataclass(frozen=True)
class FinishedGame:
    record: TableRecord
    seat: int
    review: GameReview
    expires_at: float | None


def _token(request: web.Request) -> str:
    header = request.headers.get(hdrs.AUTHORIZATION, "")
    found = _BEARER.fullmatch(header.strip())
    if found is None or len(found.group(1)) > MAX_TOKEN_CHARS:
        raise RefusalError(401, "missing_token")
    return found.group(1)


async def _finished_game(request: web.Request) -> FinishedGame:
    """The table of the request's token, if it is the URL's and its game is over and still
    kept, as the token's seat reviews it; else the :class:`RefusalError` that says why."""
    token = _token(request)
    hub = request.app[keys.HUB]
    retention = request.app[keys.CONFIG].record_retention_seconds
    table_id = request.match_info["table_id"]
    try:
        seat_token = await hub.store.find_token(token_hash(token))
        if seat_token is None or seat_token.table_id != table_id:
            raise RefusalError(403, "bad_token")
        record = await hub.store.get_table(table_id)
    except StoreUnavailableError:
        raise RefusalError(503, "unavailable") from None
    if record is None:
        raise RefusalError(403, "bad_token")
    game = record.game
    seat = next(
        (i for i, p in enumerate(record.players) if p.player_id == seat_token.player_id), -1
    )
    if record.status is TableStatus.EXPIRED:
        raise RefusalError(410, "record_expired", game)
    if seat < 0 and record.status is TableStatus.OVER:
        raise RefusalError(403, "bad_token", game)  # a token of someone who left before the start
    if record.status is not TableStatus.OVER:
        raise RefusalError(409, "game_not_over", game)
    if record.ended_at is None:
        raise RefusalError(404, "review_unavailable", game)
    expires_at = record.ended_at + retention if math.isfinite(retention) else None
    if expires_at is not None and hub.clock() >= expires_at:
        raise RefusalError(410, "record_expired", game)  # the next sweep makes it a tombstone
    adapter = hub.services.adapters.get(game)
    if adapter is None:
        raise RefusalError(404, "review_unavailable", game)  # a game this gateway no longer serves
    cache = request.app[REVIEWS]
    key = (table_id, record.version, seat)
    if (review := cache.get(key)) is not None:
        return FinishedGame(record, seat, review, expires_at)
    table = GameTable(record.state, record.options, record.clock)
    try:
        review = await adapter.review(table, seat, [p.name for p in record.players])
    except ReviewUnavailableError as e:
        log.info("no review", extra={"table_id": table_id, "game": game, "reason": str(e)})
        raise RefusalError(404, "review_unavailable", game) from None
    except GameUnavailableError:
        raise RefusalError(503, "unavailable", game) from None
    except grpc.aio.AioRpcError as e:
        log.error(
            "review failed", extra={"table_id": table_id, "game": game, "code": e.code().name}
        )
        raise RefusalError(503, "unavailable", game) from None
    cache.put(key, review)
    return FinishedGame(record, seat, review, expires_at)


def record_filename(record: TableRecord, seat: int) -> str:
    """``<game>-<YYYY-MM-DD of the end, UTC>-<table code>-<seat + 1>.json``, ASCII only.

    >>> from lexio_gateway.records import TableRecord, TableStatus
    >>> over = TableRecord("t", "lexio", "7KQF3-XMP9A", TableStatus.OVER, ended_at=1.8e9)
    >>> record_filename(over, 1)
    'lexio-2027-01-15-7KQF3-XMP9A-2.json'
    """
    assert record.ended_at is not None
    day = datetime.fromtimestamp(record.ended_at, UTC).strftime("%Y-%m-%d")
    game = _FILENAME_PART.sub("", record.game)
    code = _FILENAME_PART.sub("", record.code)
    return f"{game}-{day}-{code}-{seat + 1}.json"


def _gzip_accepted(request: web.Request) -> bool:
    for coding in request.headers.get(hdrs.ACCEPT_ENCODING, "").lower().split(","):
        name, _, params = coding.strip().partition(";")
        if name.strip() in ("gzip", "*"):
            quality = params.strip().removeprefix("q=")
            return not params or _positive(quality)
    return False


def _positive(quality: str) -> bool:
    try:
        return float(quality) > 0
    except ValueError:
        return False


def _answer(request: web.Request, body: str, headers: Mapping[str, str]) -> web.Response:
    response = web.Response(
        text=body, content_type="application/json", headers={**_NO_STORE, **headers}
    )
    if _gzip_accepted(request):
        response.enable_compression(ContentCoding.gzip)
    return response


def _review_answer(request: web.Request, found: FinishedGame) -> tuple[web.Response, int]:
    record, review = found.record, found.review
    document = {
        "game": record.game,
        "table_id": record.table_id,
        "seat": found.seat,
        "players": [p.name for p in record.players],
        "ended_at": record.ended_at,
        "expires_at": found.expires_at,
        "record_format": review.record.get("format"),
        "filename": record_filename(record, found.seat),
        "record": review.record,
        "entries": review.entries,
        "steps": review.steps,
    }
    body = json.dumps(document, ensure_ascii=False, separators=(",", ":"))
    return _answer(request, body, {}), len(body.encode())


def _record_answer(request: web.Request, found: FinishedGame) -> tuple[web.Response, int]:
    body = json.dumps(found.review.record, ensure_ascii=False, indent=1)
    filename = record_filename(found.record, found.seat)
    disposition = {str(hdrs.CONTENT_DISPOSITION): f'attachment; filename="{filename}"'}
    return _answer(request, body, disposition), len(body.encode())


def _refused(refusal: RefusalError) -> web.Response:
    headers: dict[str, str] = dict(_NO_STORE)
    if refusal.status == 401:
        headers[hdrs.WWW_AUTHENTICATE] = "Bearer"
    return web.json_response({"error": refusal.code}, status=refusal.status, headers=headers)


Answer = Callable[[web.Request, FinishedGame], tuple[web.Response, int]]


def _handler(answer: Answer, what: str) -> Callable[[web.Request], Awaitable[web.Response]]:
    async def handle(request: web.Request) -> web.Response:
        started = time.perf_counter()
        try:
            found = await _finished_game(request)
        except RefusalError as refusal:
            REVIEW_SECONDS.labels(game=refusal.game, outcome=refusal.code).observe(
                time.perf_counter() - started
            )
            return _refused(refusal)
        response, size = answer(request, found)
        game = found.record.game
        REVIEW_SECONDS.labels(game=game, outcome="ok").observe(time.perf_counter() - started)
        log.info(
            f"{what} served",
            extra={
                "table_id": found.record.table_id,
                "seat": found.seat,
                "game": game,
                "entries": len(found.review.entries),
                "bytes": size,
            },
        )
        return response

    return handle


review = _handler(_review_answer, "review")
"""``GET /api/tables/{table_id}/review``: the review as the token's seat may see it."""
record = _handler(_record_answer, "record")
"""``GET /api/tables/{table_id}/record``: that seat's record file, as an attachment."""


def add_routes(app: web.Application) -> None:
    app[REVIEWS] = ReviewCache()
    app.router.add_get("/api/tables/{table_id}/review", review)
    app.router.add_get("/api/tables/{table_id}/record", record)
