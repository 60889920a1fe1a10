"""Lexio's views and log entries as the protocol carries them (the engine's
``lexio_engine.lexio.wire.view_json`` and ``entry_json``), held to what the players have been
sent since the first release, value for value.

The JSON was first made by way of the typed ``lexio.engine.v1`` messages (``SeatView``,
``LogEntry``, flattened by ``lexio_gateway.jsoncodec``: enum values as lower-case codes, a pass
cause of no pass ``"unspecified"``, a finisher of no one ``-1``); the one engine contract
(issue 38) builds it straight from the rules' values. The digests below are of that first
JSON: every seat's view (with and without the log, before and after the end) and every entry,
along whole random games (tests/support/lexio_review_games.py), serialised with sorted keys: a
different value, a float written as an integer, a missing or extra field changes them.
"""

from __future__ import annotations

import hashlib
import json

import pytest
from lexio_review_games import play_random_game

from lexio_engine.lexio.wire import entry_json, view_json
from lexio_rules import EntryKind, all_views

#: sha256 of the JSON of seed's game, made by the typed messages' path.
DIGESTS: dict[int, str] = {
    0: "265a433f483bc52e94fc91002bbbf7be5e7b53f2c2ba48e294842441c9785957",
    1: "74687519ea666441b13c3f59f6ddbea701b28e7117c461750896ebdcd4ca371c",
    2: "8495d54f5f6ce9a8320813ea80f12a266b7921b7aa9d0822a4fe87fc78b6adf3",
    3: "17472cb13d620ba0bb0880d9c23e60731d3fc35432a173b316812833445a5f55",
    4: "0f4e33da6f0db693cb957e4f2a4f6e4f98184f3283e3e95fc42e8191272c0d77",
    5: "e9e065b023a56a9a742d5b3ce8399afccdbe5f77da9d690c05b359c7acb9670d",
    6: "f77d24093d9d4e2eb3b5f9393be16be0588cf48874db13e874d150f240a16845",
    7: "6f1ef6e630ded2684a2e73452123d35db6e842952b801c85c776e6400cf34e0e",
    8: "b1a32ee6c9916f9879132fdfacd112c70b214332a5bc42150f5b8b393a1b7c1a",
    9: "9d7525773065ae7776ca74fb01f74aae060d31d27b553f3153a6d06789f77a38",
    10: "43fe4d41bfa528b997071bc2e9a93ba6bd4fb8972e56ad5acd5586486b92d788",
    11: "776267866e0051e68511ae37aa850b55c3ce448f0120e211b49910adb5f31de2",
    12: "c39bc8cc92d1c8c5ae11dbb52cc72cc09386c53a3a83ca635dff6b59163a2a0b",
    13: "dba746b3f974e23de09882a4d71a52f472a1d3e8fbd4dcc3243789fbf3c5ad9b",
    14: "788a007666ccecfa1622de0b3cf23bd44999f92087520561e24cf0be4f5e07eb",
    15: "556e595a4c79b18023a966e10f620b71e19cc42511e78b719a0505b05a53162c",
    16: "7071699226e2cd7fb5c04d3c3c4a68616327780bc1e2115feeecf15c41405333",
    17: "020631423d61a2b3cd6ddfb26ebb9b1ff89c1b70df9a1a8be686316e55cdbdfb",
    18: "e4ca772c386a5c552c82b73722a04365cb26f1f0bc44c3d58689450dd4cd97d3",
    19: "a6f50e4911019d16def1debf696f7059fb1c6f338f17c1b6331dd5fa5b51102b",
    20: "6cd0ee07efe3c081fb21b4fb33a7ce69547c4a056f94ee52ceb2cbc56c482b34",
    21: "fea1adc7844e5255cfdce7a8af03943bc433aa4374c8d34609989b55ba977f17",
    22: "39d74379da4a71478b41ece9871aafe99e19f74d07c50476c8c96c0713b5c8c1",
    23: "50a049395b9d5988a14fa62db206e1b50ae9d49cd6beabc1a651e4c00d2a87d9",
    24: "6598c8d1cd62c1c560c3e27f01705b5f3998823ea90c17da895e0cc38680e4d1",
    25: "2f650984b3434fb3105f248c16baee88b3e83689ddb80451cde7d37b875a952d",
    26: "8b8c1f79eeb5ebedbe9bdf0e1d534e686486cddfe98f0d053c3af76d420975e3",
    27: "7ce1c979ea614cb60906c347eacd8b196e85d3f1df2290a90c16d90e07b6baa4",
    28: "2505ff37b58eacaed2b4ec2eda5c4c686441c5b6a351e2f78c1a3cbfe8244639",
    29: "9f431d9393ae911c6dc1a6a115e4448c7b51f383a52bfc5785c69f0c7924986b",
}


def _digest(seed: int) -> str:
    digest = hashlib.sha256()
    game = play_random_game(seed)
    for state in game.states:
        now = state.turn_started_at + 3.5
        for view in all_views(state, now):
            for with_log in (False, True):
                plain = view_json(view, with_log=with_log)
                digest.update(json.dumps(plain, sort_keys=True).encode())
    for entry in game.states[-1].log:
        digest.update(json.dumps(entry_json(entry), sort_keys=True).encode())
    return digest.hexdigest()


@pytest.mark.parametrize("seed", sorted(DIGESTS))
def test_views_and_entries_are_what_players_were_sent(seed: int) -> None:
    assert _digest(seed) == DIGESTS[seed]


def test_the_games_cover_what_a_view_can_hold() -> None:
    """The digests are not of empty games: placements, exchanges, passes of each cause, ends."""
    kinds = set()
    for seed in sorted(DIGESTS):
        final = play_random_game(seed).states[-1]
        kinds |= {e.kind for e in final.log}
        assert final.ending is not None
    assert set(EntryKind) <= kinds, kinds
