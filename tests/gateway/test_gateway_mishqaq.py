"""al-Mishqaq on the gateway (issue 15): the same protocol and core as Lexio, through its
adapter and the real engine, lobby and lexicon (fr, en, ar). Whole games end by a try, a
resignation, a flag and a dead position; the protocol's defences hold; the suite runs on both
stores, and across replicas on Redis."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from gateway_play import reconnect, server_error
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lexio_testing import (
    GatewayFactory,
    GatewayHandle,
    GatewayProcess,
    LoopThread,
    doomed_and_survivor,
    environment_without_lexio,
    eventually,
    free_port,
)
from mishqaq_play import (
    PASS,
    check_m12,
    mishqaq_table,
    not_to_move,
    play_to_the_end,
    play_turn,
    racer,
    side,
    to_move,
    word_list,
)
from prometheus_client import REGISTRY

from lexio.mishqaq.v1 import engine_pb2 as pb
from lexio_client import GatewayClient
from lexio_gateway.records import TableStatus
from lexio_lobby.server import RunningLobby

FAST = {"bank_minute_seconds": 0.05}
"""Banks of 20 minutes last 1 s: the flag falls while the test watches."""


def _gateway(factory: GatewayFactory, lobby: RunningLobby, **overrides: Any) -> GatewayHandle:
    return factory(lobby_address=f"127.0.0.1:{lobby.port}", **overrides)


def _racers(latin: str = "fr") -> dict[str, Any]:
    return {"latin": racer(latin, 1), "arabic": racer("ar", 2)}


@pytest.mark.cluster_too
def test_lookup_then_a_race_to_a_try_with_no_rack_ever_shown(
    loop_thread: LoopThread, gateway_factory: GatewayFactory, two_games_lobby: RunningLobby
) -> None:
    """M1–M3 options seen before joining; M23 a try ends the game; M12 on every frame."""
    gateway = _gateway(gateway_factory, two_games_lobby, seed=11)

    async def scenario() -> None:
        options: dict[str, str | int] = {"host_side": "arabic", "latin": "fr", "latin_minutes": 25}
        async with mishqaq_table(gateway.url, options=options) as (host, guest):
            assert host.games == {"lexio": True, "mishqaq": True}
            assert host.table["options"] == {
                "host_side": "arabic",
                "latin": "fr",
                "latin_minutes": 25,
                "arabic_minutes": 30,
            }
            # The host chose the Arabic side (M1); the banks follow the options (M3).
            assert (side(host), side(guest)) == ("arabic", "latin")
            assert (host.view["latin_bank"], host.view["arabic_bank"]) == (1500, 1800)
            assert host.log[0]["kind"] == "opening"
            await play_to_the_end([host, guest], _racers())
            ending = host.view["ending"]
            assert ending == guest.view["ending"] and ending["cause"] == "try"
            assert host.log == guest.log and len(host.log) == host.seq
            assert host.log[-1]["kind"] == "result"
            # M12: both racks are revealed only at the end.
            assert ending["latin_rack"] is not None and ending["arabic_rack"] is not None
            for client in (host, guest):
                check_m12(client)

    loop_thread.run(scenario(), timeout=180)


def test_resigning_when_it_is_not_your_turn(
    loop_thread: LoopThread, gateway_factory: GatewayFactory, two_games_lobby: RunningLobby
) -> None:
    """M31: at any moment, also out of turn; the opponent wins at once."""
    gateway = _gateway(gateway_factory, two_games_lobby)

    ended = {"game": "mishqaq", "cause": "resign"}

    async def scenario() -> None:
        before = REGISTRY.get_sample_value("lexio_gateway_games_ended_total", ended) or 0
        async with mishqaq_table(gateway.url) as clients:
            waiting = not_to_move(clients)
            mover = to_move(clients)
            with server_error("not_your_turn"):
                await waiting.act(PASS)
            await waiting.act({"resign": {}})
            await mover.wait_view(waiting.seq)
            ending = mover.view["ending"]
            assert (ending["cause"], ending["winner"]) == ("resign", side(mover))
            # Operators see it by game and cause (docs/operations.md).
            after = REGISTRY.get_sample_value("lexio_gateway_games_ended_total", ended)
            assert after == before + 1
            with server_error("game_over"):
                await mover.act(PASS)

    loop_thread.run(scenario(), timeout=60)


def test_a_flag_falls_once_and_the_opponent_wins(
    loop_thread: LoopThread,
    gateway_factory: GatewayFactory,
    two_games_lobby: RunningLobby,
    gateway_backend: str,
) -> None:
    """M29: the table sends the timeout when the mover's bank is empty, once; on Redis two
    replicas hold the table (both run its clock)."""
    replicas = 2 if gateway_backend == "redis" else 1
    gateways = [
        _gateway(gateway_factory, two_games_lobby, mishqaq_settings=FAST) for _ in range(replicas)
    ]

    async def scenario() -> None:
        options = {"latin_minutes": 20, "arabic_minutes": 40}
        async with mishqaq_table([g.url for g in gateways], options=options) as clients:
            mover = to_move(clients)
            other = not_to_move(clients)
            flag_at = mover.view["flag_at"]
            assert flag_at is not None
            await other.wait_for(lambda f: f["type"] == "view" and f["view"]["ending"], 10, since=0)
            await mover.wait_for(lambda f: f["type"] == "view" and f["view"]["ending"], 10, since=0)
            ending = other.view["ending"]
            assert (ending["cause"], ending["winner"]) == ("flag", side(other))
            assert ending["at"] == pytest.approx(flag_at)
            results = [e for e in other.log if e["kind"] == "result"]
            assert len(results) == 1 and other.log == mover.log  # one firing, seen by both
            # A second firing would come from a replica's clock (each holding the table runs
            # one): once none has a timer set or a firing under way, every commit the table
            # will ever have is in the store, and no event can reach a seat but those.
            table_id = other.table["table_id"]
            await eventually(
                lambda: all(_clock_at_rest(g, table_id) for g in gateways),
                "no replica's clock of the finished table set or firing",
            )
            record = await gateways[0].hub.store.get_table(table_id)
            assert record is not None and record.seq == other.seq == mover.seq
            assert [e["kind"] for e in mover.log].count("result") == 1

    loop_thread.run(scenario(), timeout=60)


def _clock_at_rest(gateway: GatewayHandle, table_id: str) -> bool:
    """Nothing of the table's clock is set or running on this replica: it holds the game as
    over, its timer is off, and no firing is still on its way to a commit (a timer that
    falls due spawns its firing as one of the replica's background tasks, the only ones
    here: no tab of a seat is being replaced)."""
    room = gateway.hub.rooms.get(table_id)
    if room is None:
        return True  # not held here: no clock here
    at_rest = room.record.status is TableStatus.OVER and not room.clock.scheduled
    return at_rest and not gateway.hub.lifecycle.tasks


def test_four_passes_that_draw_nothing_are_a_dead_position(
    loop_thread: LoopThread, gateway_factory: GatewayFactory, two_games_lobby: RunningLobby
) -> None:
    """M11 racks fill up to 12, then M35: the side with more time left wins."""
    gateway = _gateway(gateway_factory, two_games_lobby)

    async def scenario() -> None:
        async with mishqaq_table(gateway.url) as clients:
            await play_to_the_end(clients, {}, max_turns=12)
            ending = clients[0].view["ending"]
            assert ending["cause"] == "dead_position"
            assert (clients[0].view["latin_rack_count"], clients[0].view["arabic_rack_count"]) == (
                12,
                12,
            )
            passes = [e["count"] for e in clients[0].log if e["kind"] == "pass"]
            assert passes[-4:] == [0, 0, 0, 0]
            # Whole seconds decide; equal to the second is a draw (M35).
            banks = {s: int(ending_bank(clients[0], s)) for s in ("latin", "arabic")}
            if banks["latin"] == banks["arabic"]:
                assert ending["winner"] is None
            else:
                assert ending["winner"] == max(banks, key=lambda s: banks[s])

    loop_thread.run(scenario(), timeout=60)


def ending_bank(client: GatewayClient, of_side: str) -> float:
    return float(client.view[f"{of_side}_bank"])


def test_a_meaning_pause_stops_both_clocks_and_only_its_caller_ends_it(
    loop_thread: LoopThread, gateway_factory: GatewayFactory, two_games_lobby: RunningLobby
) -> None:
    """M30: either player, at any moment; no placement, pass or swap meanwhile."""
    gateway = _gateway(gateway_factory, two_games_lobby)

    async def scenario() -> None:
        async with mishqaq_table(gateway.url) as clients:
            mover, other = to_move(clients), not_to_move(clients)
            await other.act({"pause": {}})
            await mover.wait_view(other.seq)
            pause = mover.view["pause"]
            assert pause["by"] == side(other) and mover.view["flag_at"] is None
            with server_error("paused"):
                await mover.act(PASS)
            with server_error("not_the_pauser"):
                await mover.act({"resume": {}})
            await other.act({"resume": {}})
            await mover.wait_view(other.seq)
            assert mover.view["pause"] is None and mover.view["flag_at"] is not None
            pauses = (mover.view["latin_pauses_left"], mover.view["arabic_pauses_left"])
            assert sorted(pauses) == [2, 3]
            assert [e["kind"] for e in mover.log][-2:] == ["pause", "resume"]

    loop_thread.run(scenario(), timeout=60)


def test_a_refusal_names_every_unknown_word_and_spends_a_reserve_try(
    loop_thread: LoopThread, gateway_factory: GatewayFactory, two_games_lobby: RunningLobby
) -> None:
    """M24 (Lexio's R19–R20): to the actor only, the turn and clock go on."""
    gateway = _gateway(gateway_factory, two_games_lobby, seed=3)

    async def scenario() -> None:
        async with mishqaq_table(gateway.url) as clients:
            mover, waiting = to_move(clients), not_to_move(clients)
            mover_side = side(mover)
            words = word_list("fr" if mover_side == "latin" else "ar")
            letters = [t for t in mover.view["rack"] if not t["blank"]]
            # Two of the rack's tiles that make no word in the mover's list, laid from its red
            # square forward: read in that order by either side (M20).
            first, second = next(
                (a, b)
                for a, b in itertools.permutations(letters, 2)
                if words.unknown([a["letter"] + b["letter"]])
            )
            row, col, step = (10, 1, 1) if mover_side == "latin" else (10, 20, -1)
            tiles = [
                {"row": row, "col": col, "tile": first["code"]},
                {"row": row, "col": col + step, "tile": second["code"]},
            ]
            seen = waiting.received
            with server_error("unknown_words"):
                await mover.act({"place": {"tiles": tiles}})
            refused = next(f for f in reversed(mover.frames) if f["type"] == "refused")
            word = first["letter"] + second["letter"]
            assert (refused["words"], refused["reserve_tries"]) == ([word], 9)
            await mover.act(PASS)  # still the mover's turn
            assert not [f for f in waiting.frames[seen:] if f["type"] == "refused"]

    loop_thread.run(scenario(), timeout=60)


@pytest.mark.parametrize(
    ("action", "code"),
    [
        ({"pass_turn": []}, "bad_action"),
        ({"place": []}, "bad_action"),
        ({"place": {"tiles": [{"row": 10.0, "col": 1, "tile": "C"}]}}, "bad_action"),
        ({"place": {"tiles": [{"row": 10, "col": 1, "tile": "E+"}]}}, "bad_action"),
        ({"swap": {"row": True, "col": 1}}, "bad_action"),
        ({"timeout": {}}, "bad_action"),  # only the table times out
        ({"exchange": {"tiles": "AB"}}, "bad_action"),  # Lexio's, not al-Mishqaq's
    ],
)
def test_bad_actions_are_refused_and_change_nothing(
    loop_thread: LoopThread,
    gateway_factory: GatewayFactory,
    two_games_lobby: RunningLobby,
    action: dict[str, Any],
    code: str,
) -> None:
    gateway = _gateway(gateway_factory, two_games_lobby)

    async def scenario() -> None:
        async with mishqaq_table(gateway.url) as clients:
            mover = to_move(clients)
            before = dict(mover.view)
            with server_error(code, what=action):
                await mover.request({"type": "act", "action": action})
            with server_error("bad_action"):  # M25: no preview
                await mover.request({"type": "preview", "action": {"place": {"tiles": []}}})
            await mover.sync()  # whatever the refused frames sent the mover has arrived
            assert {k: v for k, v in mover.view.items() if "bank" not in k} == {
                k: v for k, v in before.items() if "bank" not in k
            }
            await mover.act(PASS)  # the game goes on

    loop_thread.run(scenario(), timeout=60)


def test_bad_options_are_refused_before_any_table_opens(
    loop_thread: LoopThread, gateway_factory: GatewayFactory, two_games_lobby: RunningLobby
) -> None:
    gateway = _gateway(gateway_factory, two_games_lobby)

    async def scenario() -> None:
        async with GatewayClient.connect(gateway.url) as ana:
            for options, code in (
                ({"latin_minutes": 45}, "invalid_option"),
                ({"host_side": "middle"}, "invalid_option"),
                ({"colour": "red"}, "invalid_option"),
                ({"latin_minutes": "30"}, "invalid_option"),
            ):
                with server_error(code, what=options):
                    await ana.create("Ana", game="mishqaq", options=options)
            with server_error("bad_frame"):
                await ana.request(
                    {"type": "create", "name": "Ana", "game": "mishqaq", "options": []}
                )
            with server_error("bad_frame"):
                await ana.request(
                    {"type": "create", "name": "Ana", "game": "mishqaq", "options": {"x": True}}
                )
            assert ana.token is None

    loop_thread.run(scenario(), timeout=60)


def test_reconnecting_replays_missed_events_or_sends_a_snapshot(
    loop_thread: LoopThread, gateway_factory: GatewayFactory, two_games_lobby: RunningLobby
) -> None:
    gateway = _gateway(gateway_factory, two_games_lobby, seed=5)

    async def scenario() -> None:
        async with mishqaq_table(gateway.url) as clients:
            host, guest = clients
            await guest.drop()
            players = _racers()
            for _ in range(3):
                mover = to_move(clients)
                if mover is guest:
                    break
                await play_turn([host], players)
            await guest.open()  # resumes with its token and last seq: missed events + view
            assert guest.log == host.log and guest.seq == host.seq
            guest.seq = -1
            await guest.drop()
            await guest.open()  # no last seq: a snapshot with the whole log
            assert guest.log == host.log

    loop_thread.run(scenario(), timeout=60)


@pytest.mark.parametrize("gateway_backend", ["redis"])
def test_a_race_across_two_replicas(
    loop_thread: LoopThread,
    gateway_factory: GatewayFactory,
    two_games_lobby: RunningLobby,
) -> None:
    """The host on one replica, the guest on the other: every move reaches both."""
    first = _gateway(gateway_factory, two_games_lobby, seed=13)
    second = _gateway(gateway_factory, two_games_lobby, seed=13)

    async def scenario() -> None:
        async with mishqaq_table([first.url, second.url], options={"latin": "en"}) as clients:
            await play_to_the_end(clients, _racers("en"))
            assert clients[0].view["ending"] == clients[1].view["ending"]
            assert clients[0].log == clients[1].log == clients[0].log[: clients[0].seq]

    loop_thread.run(scenario(), timeout=180)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
_ACTIONS = st.one_of(
    st.dictionaries(
        st.sampled_from(["place", "pass_turn", "swap", "pause", "resume", "resign", "timeout"]),
        _JSON | st.just({}) | st.just([]),
        max_size=2,
    ),
    st.builds(
        lambda row, tile: {"place": {"tiles": [{"row": row, "col": 1, "tile": tile}]}},
        st.sampled_from([10, 10.0, True, [], "10"]),
        st.sampled_from(["C", "R+", "ش", "?", "", "CC", 7]),
    ),
)


def test_random_actions_never_break_a_table(
    loop_thread: LoopThread, gateway_factory: GatewayFactory, two_games_lobby: RunningLobby
) -> None:
    gateway = _gateway(gateway_factory, two_games_lobby)

    @settings(
        max_examples=20,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(actions=st.lists(_ACTIONS, min_size=1, max_size=6))
    def fuzz(actions: list[dict[str, Any]]) -> None:
        async def scenario() -> None:
            async with mishqaq_table(gateway.url) as clients:
                for action in actions:
                    for client in clients:
                        await client.send_raw(
                            json.dumps({"type": "act", "id": "f", "action": action})
                        )
                for client in clients:
                    await client.send({"type": "ping"})
                await asyncio.sleep(0.1)
                for client in clients:
                    codes = [f.get("code") for f in client.frames if f["type"] == "error"]
                    assert "internal" not in codes
                    if client.closed.is_set():
                        await client.open()
                # Whatever the frames did, the table plays on to its end.
                if not clients[0].view.get("ending"):
                    waiting = not_to_move(clients)
                    await waiting.act({"resign": {}})
                for client in clients:
                    await client.wait_for(
                        lambda f: f["type"] == "view" and f["view"]["ending"], 5, since=0
                    )
                    check_m12(client)

        loop_thread.run(scenario(), timeout=60)

    fuzz()


def test_the_engine_state_stays_on_the_server(
    loop_thread: LoopThread, gateway_factory: GatewayFactory, two_games_lobby: RunningLobby
) -> None:
    """What the gateway stores for an al-Mishqaq table is the engine's own state."""
    gateway = _gateway(gateway_factory, two_games_lobby)

    async def scenario() -> None:
        async with mishqaq_table(gateway.url) as (host, _):
            record = gateway.hub.rooms[host.table["table_id"]].record
            state = pb.GameState.FromString(record.state)
            assert state.format == "mishqaq-state/1"
            assert record.options["host_side"] == "latin"
            assert record.clock is not None and record.clock.action == "timeout"
            assert (record.min_seats, record.max_seats) == (2, 2)

    loop_thread.run(scenario(), timeout=60)


def test_sigkill_mid_game_comes_back_with_both_banks_right(
    loop_thread: LoopThread,
    engine_server: Any,
    two_games_lobby: RunningLobby,
    tmp_path: Path,
) -> None:
    """The real gateway program, killed mid-game and started again on its SQLite file: every
    accepted move is there, and the banks are what the clock says (M28): the waiting side's
    unchanged, the mover's run down by the time that passed, never up."""
    port = free_port()
    env = environment_without_lexio(
        LEXIO_GATEWAY_PORT=str(port),
        LEXIO_ENGINE_ADDRESS=f"127.0.0.1:{engine_server.port}",
        LEXIO_LOBBY_ADDRESS=f"127.0.0.1:{two_games_lobby.port}",
        LEXIO_GATEWAY_DB=str(tmp_path / "gateway.sqlite3"),
    )
    first = GatewayProcess(env, port)
    try:

        async def before_the_crash() -> tuple[list[GatewayClient], list[dict[str, Any]], float]:
            clients = [GatewayClient(aiohttp.ClientSession(), first.url, None) for _ in range(2)]
            for client in clients:
                await client.open()
            await clients[0].create("Ana", game="mishqaq")
            await clients[1].join(clients[0].table["code"], "Bruno")
            await clients[0].start()
            await clients[1].wait_for(lambda f: f["type"] == "snapshot", since=0)
            players = _racers()
            for _ in range(4):
                await play_turn(clients, players)
            return clients, [{**c.view, "seq": c.seq} for c in clients], time.time()

        clients, views, crashed_at = loop_thread.run(before_the_crash(), timeout=60)
    finally:
        first.kill()
    second = GatewayProcess(env, port)
    try:

        async def after_the_restart() -> None:
            for client in clients:
                await asyncio.wait_for(client.closed.wait(), 5)
                await reconnect(client)
            for client, before in zip(clients, views, strict=True):
                assert client.seq == before["seq"] and len(client.log) == client.seq
                for key in ("board", "rack", "turn", "latin_rack_count", "arabic_rack_count"):
                    assert client.view[key] == before[key], key
                mover_bank = f"{before['turn']}_bank"
                waiting_bank = "arabic_bank" if before["turn"] == "latin" else "latin_bank"
                assert client.view[waiting_bank] == before[waiting_bank]
                elapsed = client.view["now"] - before["now"]
                assert client.view[mover_bank] == pytest.approx(before[mover_bank] - elapsed)
                assert client.view[mover_bank] < before[mover_bank]  # a bank never gains time
                assert client.view["flag_at"] == before["flag_at"]
            assert clients[0].view["now"] >= crashed_at
            mover = to_move(clients)
            ack = await mover.act(PASS)  # the game goes on where it was
            for client in clients:
                await client.wait_view(ack["seq"])
                await client.close()
                await client.session.close()

        loop_thread.run(after_the_restart(), timeout=60)
    finally:
        assert second.stop() == 0


@pytest.mark.parametrize("gateway_backend", ["redis", "cluster"])
def test_a_replica_killed_mid_race_its_racer_finishes_on_the_other(
    loop_thread: LoopThread, engine_server: Any, two_games_lobby: RunningLobby, store_url: str
) -> None:
    """Two gateway processes on one Redis, or on a Redis Cluster; the Latin racer on one, the
    Arabic on the other. SIGKILL the first: its racer comes back on the survivor with every
    accepted move, the banks as the clock says (M28: the waiting side's unchanged, the
    mover's run down, never up), and the race goes on there."""
    env = environment_without_lexio(
        LEXIO_ENGINE_ADDRESS=f"127.0.0.1:{engine_server.port}",
        LEXIO_LOBBY_ADDRESS=f"127.0.0.1:{two_games_lobby.port}",
        LEXIO_REDIS_URL=store_url,
    )
    with doomed_and_survivor(env) as (doomed, survivor):

        async def scenario() -> None:
            ana = GatewayClient(aiohttp.ClientSession(), doomed.url, None)
            bruno = GatewayClient(aiohttp.ClientSession(), survivor.url, None)
            clients = [ana, bruno]
            try:
                for client in clients:
                    await client.open()
                await ana.create("Ana", game="mishqaq")
                await bruno.join(ana.table["code"], "Bruno")
                await ana.start()
                await bruno.wait_for(lambda f: f["type"] == "snapshot", since=0)
                players = _racers()
                for _ in range(4):
                    await play_turn(clients, players)
                before = {**bruno.view, "seq": bruno.seq}
                log_before = list(bruno.log)
                doomed.kill()
                await asyncio.wait_for(ana.closed.wait(), 5)
                ana.base_url = survivor.url
                await reconnect(ana, timeout=15)
                await ana.wait_for(lambda f: f["type"] in ("snapshot", "view"), since=0)
                assert ana.log == log_before and ana.seq == before["seq"]
                mover_bank = f"{before['turn']}_bank"
                waiting_bank = "arabic_bank" if before["turn"] == "latin" else "latin_bank"
                assert ana.view[waiting_bank] == before[waiting_bank]
                assert ana.view[mover_bank] < before[mover_bank]  # a bank never gains time
                mover = to_move(clients)
                ack = await mover.act(PASS)  # the race goes on, on the survivor
                for client in clients:
                    await client.wait_view(ack["seq"])
            finally:
                for client in clients:
                    await client.close()
                    await client.session.close()

        loop_thread.run(scenario(), timeout=90)
