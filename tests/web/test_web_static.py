"""Each game's package is served like every static file (issue 24): its entry module, its
markup, its styles and its catalogs under /static/js/games/<id>/, with the MIME type the
browser needs (X-Content-Type-Options: nosniff refuses a stylesheet served as anything but
text/css), Cache-Control: no-cache and an ETag, so that a new version is seen at once and an
unchanged one costs a 304."""

from __future__ import annotations

import urllib.error
import urllib.request
from email.message import Message

import pytest
from lexio_testing import GatewayFactory
from test_web_catalogs import GAMES, LANGUAGES, game_ids

# A module script needs a JavaScript MIME type (either of these two).
TYPES = {
    "js": {"text/javascript", "application/javascript"},
    "html": {"text/html"},
    "css": {"text/css"},
    "json": {"application/json"},
}


def package_files(game: str) -> list[str]:
    files = [f"{game}.html", f"{game}.css", *(f"i18n/{lang}.json" for lang in LANGUAGES)]
    files += sorted(path.name for path in (GAMES / game).glob("*.js"))
    return files


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, Message]:
    """The status and the headers (looked up by any case: aiohttp sends "Etag")."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, reply.headers
    except urllib.error.HTTPError as error:
        return error.code, error.headers


@pytest.mark.parametrize("game", game_ids())
def test_a_games_package_is_served_and_revalidated_by_etag(
    gateway_factory: GatewayFactory, game: str
) -> None:
    gateway = gateway_factory()
    files = package_files(game)
    assert "index.js" in files
    for name in files:
        url = f"{gateway.url}/static/js/games/{game}/{name}"
        status, headers = get(url)
        assert status == 200, url
        assert headers["Content-Type"].split(";")[0] in TYPES[name.rsplit(".", 1)[1]], (
            url,
            headers["Content-Type"],
        )
        assert headers["Cache-Control"] == "no-cache", url
        assert headers["X-Content-Type-Options"] == "nosniff", url
        etag = headers["ETag"]
        assert etag, url
        status, _ = get(url, {"If-None-Match": etag})
        assert status == 304, url
