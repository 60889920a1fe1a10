"""al-Mishqaq's views and log entries as the protocol carries them (the engine's
``lexio_engine.mishqaq.wire.view_json`` and ``entry_json``), held to what the players have
been sent since the first release, value for value (M12's hidden racks aside: a view is only
its side's).

The JSON was first made by way of the typed ``lexio.mishqaq.v1`` messages (``SideView`` …,
flattened by ``lexio_gateway.jsoncodec``, a side-less field written ``null``); the one engine
contract (issue 38) builds it straight from the rules' values, four times faster. The digests
below are of that first JSON, every view of both sides (with and without the log) and every
new entry, along random games (the property tests' generator), serialised with sorted keys:
a different value, a float written as an integer, a missing or extra field changes them.
"""

from __future__ import annotations

import hashlib
import json
import random

import pytest
from test_mishqaq_properties import random_game

from lexio_engine.mishqaq.wire import entry_json, view_json
from mishqaq_rules import SIDES, side_view

#: sha256 of the JSON of (seed, latin)'s game, made by the typed messages' path.
DIGESTS = {
    (0, "fr"): "60b08046812f133373a1cfdfcb5d548759874b32623d9081ff8dc5aaabd41bd7",
    (1, "en"): "d4a17d810259eb35e9a985eaf8354c0281170687e7dd8600d27272590aaa82df",
    (2, "fr"): "64c3134ef94fbfc44650759b8c94487cc8ffc7b4be0a721cdaf2f39e26cf13d5",
    (3, "en"): "d94c103c0e76515b1a444ac2d45c083f7e97b75c3c6408eae2e7a5ddd31614f3",
    (4, "fr"): "4ddce46b3f37798bdbb5e6bbc0ef601c501ad683641daee16c2c284c10b9be29",
    (5, "en"): "064770f5540c014d26ceb7239007514ae21a8bd5951217d68b77f1d3d38f22ec",
    (6, "fr"): "97081ad813bf39a090d2819f7850d7c9e0706cbc2d0cac92828f2036eeaf632b",
    (7, "en"): "6be630174b6f30ba96563978a8adf3c5de95444a9f40d5a12458844b6a54b85c",
    (8, "fr"): "1aeaa48f67797823888a6166f945616f3069dd1041029a95600ba2e8136130c4",
    (9, "en"): "297d48bbbf185c0db189bf52c3a5b401b12cf055f30fa87e0e2479597bd38e68",
    (10, "fr"): "8ee4fd1a93efe03f066cfff6361a3a81d7d6285623e1737de237a4a33682bdec",
    (11, "en"): "3d496ce63cdf389dda87c4e28dae18dbafdc3ee7c3b7ee6294cd732ab6d52eee",
    (12, "fr"): "844440ca343969f6a81991131dba4f3dd14488e1eef5993ecf603ae9151e8d09",
    (13, "en"): "45c0ba2d2497ec0bac6e6d03bc745192e7ec6b2d804df1a9233fbc0ac04806eb",
    (14, "fr"): "e0039b05ae66564898161c11379d7ccdbff5c6b2308b462c3058a6080dfcb3a2",
    (15, "en"): "1d6b2c411d427b91edbd86d3c19808d240f42f794c25efd41133458d5a00ebbd",
    (16, "fr"): "e5818dd58d563016787e925b484c09f36a26bbfc6aac7795f9a05b0de0bf67a5",
    (17, "en"): "34786113f42b0a0343b298c45403e8073eab83e2c5b27113ef5f9316dd7ab491",
    (18, "fr"): "19b28288cd1ac59822196a0382758335f5a09216f7f0bd144f90702fb07c9271",
    (19, "en"): "815648313b743208c6d17c2d8903e26f531bd5e4fc1d3c3200dc38b8888d9097",
    (20, "fr"): "c394a750c6debf89e2c1cefd215c7579ece584d36115053bdce32001c6f3a3f1",
    (21, "en"): "5ea0ccc1a367cba5e2242065dfe140ba150c56327454aa39f655b24b21e341d4",
    (22, "fr"): "18713a2d197df3dcae6f090dff9105aaa080f9da356f65a9d26d40c67856f03b",
    (23, "en"): "41b2b6921914347eb51920dfd38214ea25ec0a6d3a4ee0820a50e9c66c2397c0",
    (24, "fr"): "d32d66a005edfd44c7153ca2a4fc3459aa61f6ba906efabd92874680b41b9974",
    (25, "en"): "65a9cb7ad55fc00f491e4f7151def4258dab4c62290ef91765b776989b364ac8",
    (26, "fr"): "76d61b645134230da6eb97c926d2acb22df1e885cb7c539f90027f0285c039c6",
    (27, "en"): "4e1f11eb79dc78dd131e74b119bc43a1e71208290a2899abf8b5c55d61a97166",
    (28, "fr"): "d23cdac80e427310c8a4d53162c919f6ddf50b7446f4c51533d6f2b43552d304",
    (29, "en"): "37a754cbb16a1eddeb89d2174ca800d027f3b4123962955f9132430f7d876f03",
    (30, "fr"): "c191b6a81aed00aff92ba7d23ea3bacfe2b7378f45f2dcb62b4a075adb1ddff5",
    (31, "en"): "881a4e2da52492c5e31343d1b11bdd047ab3d689a064208dd3c864b8ee72b9f2",
    (32, "fr"): "1833859d1a87e41ec882a9f3e821127fbba64b8d622970e42cd1e56198c4f9af",
    (33, "en"): "14fac4d953d0d4336418c791784c2121784d834031969c6caf953deda93d71a6",
    (34, "fr"): "3ac91067544514cb4f45e7bfc2c49068cb34941dda62a56a2b69477d64967e9f",
    (35, "en"): "9a94e60ae2dff2a21276f3da16d4f7552fc7e1ea3e5c4c2624bb6a3fa570dce8",
    (36, "fr"): "81b34df84ec558a3a2fc59c9c91b6a52597dbcead822d5c1ecaa43c2050289fe",
    (37, "en"): "15bbeb1e5deda6d63dae3744ba2f2e8dfd056c7a7bc25b0e527c23d6f537245a",
    (38, "fr"): "894596b5ce29fbe201879af2b3b00fb977e977b6c05b55cd2e7ce382927451c1",
    (39, "en"): "9072e7e37531b3f2aae4c797da1cfb067c793d80d37517bce6a91c6976ed6df8",
}


def _digest(seed: int, latin: str) -> str:
    digest = hashlib.sha256()
    for step in random_game(random.Random(seed), latin):
        after = step.outcome.state
        for side in SIDES:
            view = side_view(after, side, step.now)
            for with_log in (False, True):
                plain = view_json(view, step.now, with_log=with_log)
                digest.update(json.dumps(plain, sort_keys=True).encode())
        for entry in after.log[len(step.before.log) :]:
            digest.update(json.dumps(entry_json(entry), sort_keys=True).encode())
    return digest.hexdigest()


@pytest.mark.parametrize(("seed", "latin"), sorted(DIGESTS))
def test_views_and_entries_are_what_players_were_sent(seed: int, latin: str) -> None:
    assert _digest(seed, latin) == DIGESTS[(seed, latin)]


def test_the_games_cover_what_a_view_can_hold() -> None:
    """The digests are not of empty games: placements, blanks, pauses, swaps and endings."""
    kinds: set[str] = set()
    causes: set[str] = set()
    for seed, latin in sorted(DIGESTS):
        for step in random_game(random.Random(seed), latin):
            kinds.update(e.kind.value for e in step.outcome.state.log)
            if step.outcome.state.ending is not None:
                causes.add(step.outcome.state.ending.cause.value)
    assert {"opening", "place", "pass", "swap", "pause", "resume", "result"} <= kinds, kinds
    assert len(causes) >= 3, causes
