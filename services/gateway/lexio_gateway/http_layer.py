"""What every HTTP answer of the gateway carries, and the answer to a request no route sees.

aiohttp answers a request its parser cannot read (a header line over 8,190 bytes, a bad
request line or URL, a bad header) before any middleware runs, with a plain-text 400 and an
error-level log line holding a traceback: an answer without the security headers every answer
promises (docs/protocol.md), and a log anyone could fill, paging an operator. Here such a
request gets ``{"error": "bad_request"}`` with the security headers and ``no-store``, one
warning line without a traceback, and a count in
``lexio_gateway_http_malformed_requests_total{reason}``. A route's own failure (a bug) still
logs its traceback at error level, and is answered ``{"error": "internal"}`` with the headers.

aiohttp has no setting for this: the connection's ``RequestHandler.handle_error`` makes that
answer, so the gateway's runner makes its server's connections of a subclass (aiohttp pinned
in requirements.txt; tests/gateway/test_gateway_http.py sends the requests).
"""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Final

from aiohttp import hdrs, http_exceptions, web
from prometheus_client import Counter

log = logging.getLogger(__name__)

SECURITY_HEADERS: Final = {
    "Content-Security-Policy": (
        "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; "
        "script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
        "form-action 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
}

#: What aiohttp's parser refuses, most specific first (a subclass before its base): the
#: bounded label values of the metric below.
MALFORMED_REASONS: Final[tuple[tuple[type[Exception], str], ...]] = (
    (http_exceptions.LineTooLong, "line_too_long"),
    (http_exceptions.InvalidURLError, "invalid_url"),
    (http_exceptions.BadHttpMethod, "bad_method"),
    (http_exceptions.BadStatusLine, "bad_request_line"),
    (http_exceptions.InvalidHeader, "invalid_header"),
    (http_exceptions.PayloadEncodingError, "bad_body_encoding"),
    (http_exceptions.BadHttpMessage, "bad_message"),
)
OTHER_REASON: Final = "other"

MALFORMED_REQUESTS: Final = Counter(
    "lexio_gateway_http_malformed_requests_total",
    "HTTP requests the parser could not read, answered 400 bad_request before any route, by "
    "what was wrong with them.",
    ["reason"],
)
for _, _reason in MALFORMED_REASONS:
    MALFORMED_REQUESTS.labels(reason=_reason)
MALFORMED_REQUESTS.labels(reason=OTHER_REASON)


def malformed_reason(error: BaseException | None) -> str:
    """
    >>> malformed_reason(http_exceptions.LineTooLong(b"Authorization: Bearer xxx", 8190))
    'line_too_long'
    >>> malformed_reason(None)
    'other'
    """
    for kind, reason in MALFORMED_REASONS:
        if isinstance(error, kind):
            return reason
    return OTHER_REASON


def http_error_code(status: int) -> str:
    """The code of an HTTP error aiohttp raised, from its status.

    >>> http_error_code(404), http_error_code(405), http_error_code(413)
    ('not_found', 'method_not_allowed', 'request_entity_too_large')
    """
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        return "http_error"
    return phrase.lower().replace(" ", "_").replace("-", "_")


def error_answer(status: int, code: str) -> web.Response:
    """An error as every route gives one: ``{"error": code}``, the security headers, no-store."""
    return web.json_response(
        {"error": code},
        status=status,
        headers={**SECURITY_HEADERS, hdrs.CACHE_CONTROL: "no-store"},
    )


class _RequestHandler(web.RequestHandler):
    """A connection whose requests aiohttp could not hand to a route are answered as the
    gateway answers (the module's docstring)."""

    def handle_error(
        self,
        request: web.BaseRequest,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        if status >= HTTPStatus.INTERNAL_SERVER_ERROR:
            self.log_exception("request failed", exc_info=exc)
            code = "internal"
        else:
            reason = malformed_reason(exc)
            MALFORMED_REQUESTS.labels(reason=reason).inc()
            # The parser's own words, cut: they may quote the client's bytes.
            detail = str(exc)[:200] if exc is not None else (message or "")[:200]
            log.warning(
                "malformed http request",
                extra={"reason": reason, "status": status, "detail": detail},
            )
            code = "bad_request"
        if request.writer.output_size > 0:
            # Part of an answer went out already: the connection can only be dropped.
            raise ConnectionError("an answer was under way; the connection is dropped")
        answer = error_answer(status, code)
        answer.force_close()
        return answer


class _Server(web.Server):
    def __call__(self) -> web.RequestHandler:
        return _RequestHandler(self, loop=self._loop, **self._kwargs)


class GatewayRunner(web.AppRunner):
    """``web.AppRunner`` whose server's connections are :class:`_RequestHandler`\\ s, and
    whose clean-up lets the connections still open be heard while the application shuts down.

    aiohttp's own clean-up marks every connection closing (``pre_shutdown``) before it runs
    the application's ``on_shutdown``, and from then on drops whatever a client sends
    (``RequestHandler.data_received``). The gateway's ``on_shutdown`` sends its players away a
    few at a time over tens of seconds (drain.py), and those still waiting play on meanwhile:
    their moves must be read. So the sites stop (no one new arrives), the application shuts
    down, and only then does aiohttp's clean-up run (its ``on_shutdown`` a second time: the
    gateway's does nothing the second time). (Found by make load-rollout: with a 90 s grace,
    1,099 of 2,000 tables had an act go unanswered on a stopping gateway.)"""

    async def cleanup(self) -> None:
        for site in list(self.sites):
            await site.stop()
        if self.server is not None:  # set up
            await self.app.shutdown()
        await super().cleanup()

    async def _make_server(self) -> web.Server:
        made = await super()._make_server()
        return _Server(
            made.request_handler,
            request_factory=made.request_factory,
            handler_cancellation=made.handler_cancellation,
            loop=made._loop,
            **made._kwargs,
        )
