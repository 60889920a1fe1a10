"""Hidden information (R6) over whole games, and random frames thrown at a live gateway."""

from __future__ import annotations

import contextlib
import json

import pytest
from gateway_play import bot, pass_to_the_end, play_one_turn, started_game
from hidden_info import strings_in
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lexio_testing import GatewayFactory, GatewayHandle, LoopThread

from lexio.engine.v1 import engine_pb2 as pb
from lexio_client import GatewayClient


def _truth(gateway: GatewayHandle, table_id: str) -> pb.GameState:
    """What the server holds (every rack, the bag's order): never sent to anyone."""
    return pb.GameState.FromString(gateway.hub.rooms[table_id].record.state)


@pytest.mark.parametrize(("players", "seed"), [(2, 21), (3, 22), (4, 23)])
@pytest.mark.cluster_too
def test_r6_no_frame_holds_another_rack_or_the_bag_until_the_end(
    loop_thread: LoopThread, gateway_factory: GatewayFactory, players: int, seed: int
) -> None:
    gateway = gateway_factory(seed=seed)
    names = ["Ana", "Bruno", "Chloé", "Dani"][:players]

    async def scenario() -> None:
        async with started_game(gateway.url, names) as clients:
            table_id = clients[0].table["table_id"]
            racks_of: list[set[str]] = [set() for _ in clients]
            bags: set[str] = set()
            checked = [0] * players
            player = bot(seed)

            def check() -> None:
                truth = _truth(gateway, table_id)
                for seat, rack in enumerate(truth.racks):
                    racks_of[seat].add(rack)
                if truth.bag:
                    bags.add(truth.bag[:8])
                for client in clients:
                    me = client.table["you"]
                    secrets = {
                        rack
                        for seat, racks in enumerate(racks_of)
                        if seat != me
                        for rack in racks
                        if len(rack) >= 4 and rack not in racks_of[me]
                    }
                    for frame in client.frames[checked[me] :]:
                        if frame["type"] in ("view", "snapshot"):
                            assert frame["view"]["rack"] in racks_of[me]
                            if frame["view"]["ending"] is not None:
                                continue  # R32: the reveal
                        text = json.dumps(frame)
                        assert '"bag"' not in text and '"racks"' not in text
                        values = strings_in(frame)
                        assert not secrets.intersection(values), frame
                        assert not any(b in v for b in bags for v in values if len(b) == 8)
                        if frame["type"] == "event" and frame["entry"]["kind"] == "exchange":
                            assert frame["entry"]["tiles"] == [] and frame["entry"]["words"] == []
                    checked[me] = len(client.frames)

            check()
            while not clients[0].view.get("ending"):
                await play_one_turn(clients, player)
                check()
            # R32: at the end every rack is revealed to every seat.
            truth = _truth(gateway, table_id)
            for client in clients:
                assert client.view["ending"]["racks"] == list(truth.racks)

    loop_thread.run(scenario(), timeout=180)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
# Valid JSON that Python reads badly: integers past its 4,300-digit limit, NaN, infinity.
_HOSTILE_NUMBERS = st.sampled_from(["9" * 4301, "-" + "1" * 50, "NaN", "-Infinity", "1e999"])
_TYPES = st.sampled_from(
    ["hello", "create", "join", "leave", "start", "act", "preview", "rematch", "ping", "nope"]
)
# Actions whose parts are the wrong kind of thing: lists where objects go, and the reverse.
_ACTION_PART = st.one_of(
    st.just([]), st.just({}), st.lists(_JSON, max_size=2), _JSON, st.just([[]]), st.just([{}])
)
_ACTIONS = st.one_of(
    st.dictionaries(st.sampled_from(["place", "exchange", "pass_turn"]), _ACTION_PART, max_size=2),
    st.builds(lambda tiles: {"place": {"tiles": tiles}}, _ACTION_PART),
    st.builds(
        lambda row: {"place": {"tiles": [{"row": row, "col": 6, "letter": "A"}]}},
        st.sampled_from([6.0, True, [], {}, "6", None]),
    ),
)
_FRAMES = st.one_of(
    st.text(max_size=60),
    _JSON.map(json.dumps),
    st.builds(
        lambda kind, number: f'{{"type": "{kind}", "id": "n", "protocol": {number}}}',
        _TYPES,
        _HOSTILE_NUMBERS,
    ),
    st.builds(
        lambda kind, action: json.dumps({"type": kind, "id": "x", "action": action}),
        st.sampled_from(["act", "preview"]),
        _ACTIONS,
    ),
    st.builds(
        lambda kind, fields: json.dumps({**fields, "type": kind}),
        _TYPES,
        st.dictionaries(
            st.sampled_from(["id", "name", "code", "token", "action", "last_seq", "protocol"]),
            _JSON,
            max_size=4,
        ),
    ),
)


async def _handled_or_closed(client: GatewayClient) -> None:
    """Every frame ``client`` sent is handled (the pong of a ping sent after them came), or the
    gateway closed its connection (a wait then fails at once with ConnectionError)."""
    with contextlib.suppress(ConnectionError):
        await client.sync()


def test_random_frames_change_nothing_they_should_not_and_a_game_still_completes(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    gateway = gateway_factory(seed=31)

    @settings(
        max_examples=30,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(frames=st.lists(_FRAMES, min_size=1, max_size=8))
    def fuzz(frames: list[str]) -> None:
        async def scenario() -> None:
            async with started_game(gateway.url, ["Ana", "Bruno"]) as (ana, bruno):
                async with GatewayClient.connect(gateway.url) as stranger:
                    for raw in frames:
                        await stranger.send_raw(raw)
                        await ana.send_raw(raw)
                    # Each connection's pong comes after every frame sent before its ping
                    # was handled (or the gateway closed it: the wait fails at once).
                    await _handled_or_closed(ana)
                    await _handled_or_closed(stranger)
                for frame in ana.frames + bruno.frames:
                    if frame["type"] == "error":
                        assert frame["code"] != "internal", frame
                # Whatever Ana's frames did, the table is consistent and plays to its end.
                if ana.closed.is_set():
                    await ana.open()
                # What Ana's frames did reached Bruno too, before his pong: both views are
                # the table's when the turns are passed (once a pass arrived after this).
                await bruno.sync()
                await pass_to_the_end([ana, bruno])
                assert ana.view["ending"] == bruno.view["ending"]

        loop_thread.run(scenario(), timeout=120)

    fuzz()
