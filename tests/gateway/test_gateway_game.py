"""Whole games through the real gateway, lobby, engine and lexicon on loopback."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from gateway_play import (
    bot,
    french_words,
    play_one_turn,
    play_to_the_end,
    seated_table,
    server_error,
    started_game,
    started_table,
    to_play,
)
from lexio_testing import GatewayFactory, LoopThread

from lexio_client import ServerError


def test_two_players_create_join_start_and_play(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    gateway = gateway_factory()

    async def scenario() -> None:
        async with seated_table(gateway.url, ["Ana", "Bruno"]) as (ana, bruno):
            assert ana.games == {"lexio": True}
            assert [s["name"] for s in bruno.table["seats"]] == ["Ana", "Bruno"]
            assert bruno.table["seats"][0]["host"] and not bruno.table["seats"][1]["host"]
            assert (ana.table["you"], bruno.table["you"]) == (0, 1)
            with server_error("not_host", what="only the host may start"):
                await bruno.start()
            await started_table([ana, bruno])
            assert ana.view["turn"] == 0
            assert len(ana.view["rack"]) == 7 and ana.view["rack_counts"] == [7, 7]
            # R10/R2: the host opens; Bruno acting now is out of turn and changes nothing.
            with server_error("not_your_turn", what="out of turn"):
                await bruno.pass_turn()
            move = bot().choose(ana.view)
            assert "place" in move
            ack = await ana.act(move)
            assert ack["seq"] == 1
            await bruno.wait_view(1)
            assert bruno.log[0]["kind"] == "place" and bruno.log[0]["score"] > 0
            assert bruno.view["board"] == ana.view["board"]
            assert bruno.view["turn"] == 1
            await bruno.pass_turn()
            await ana.wait_view(2)
            assert ana.log[-1]["kind"] == "pass" and ana.log[-1]["cause"] == "player"

    loop_thread.run(scenario(), timeout=60)


@pytest.mark.parametrize(
    ("names", "seed", "cause"),
    [
        pytest.param(["Ana", "Bruno"], 10, "rack_emptied", id="2-players-R30"),
        pytest.param(["Ana", "Bruno"], 7, "no_placement", id="2-players-R31"),
        pytest.param(["Ana", "Bruno", "Chloé", "Dani"], 16, "rack_emptied", id="4-players-R30"),
    ],
)
def test_a_whole_game_to_its_end_reveals_every_rack(
    loop_thread: LoopThread,
    gateway_factory: GatewayFactory,
    names: list[str],
    seed: int,
    cause: str,
) -> None:
    """R30/R31 through every service; R32: final scores, shared victory rule, racks revealed."""
    gateway = gateway_factory(seed=seed)

    async def scenario() -> None:
        async with started_game(gateway.url, names) as clients:
            await play_to_the_end(clients, bot(seed))
            views = [c.view for c in clients]
            for client in clients:
                ending = client.view["ending"]
                assert ending is not None
                assert ending["cause"] == cause
                assert ending == views[0]["ending"]
                assert len(ending["racks"]) == len(names)
                assert ending["final_scores"] == [
                    s + a for s, a in zip(client.view["scores"], ending["adjustments"], strict=True)
                ]
                best = max(ending["final_scores"])
                assert ending["winners"] == [
                    i for i, s in enumerate(ending["final_scores"]) if s == best
                ]
            ending = views[0]["ending"]
            if cause == "rack_emptied":
                finisher = ending["finisher"]
                assert ending["racks"][finisher] == ""
                assert ending["adjustments"][finisher] == -sum(
                    a for i, a in enumerate(ending["adjustments"]) if i != finisher
                )
            else:
                assert all(a <= 0 for a in ending["adjustments"])
            # After the end every action is refused as game_over (R30–R32).
            with server_error("game_over", what="played after the end"):
                await to_play(clients).pass_turn()

    loop_thread.run(scenario(), timeout=120)


def test_resent_action_id_applies_once(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    gateway = gateway_factory()

    async def scenario() -> None:
        async with started_game(gateway.url, ["Ana", "Bruno"]) as (ana, bruno):
            first = await ana.act({"pass_turn": {}}, action_id="same-id")
            await bruno.wait_view(1)
            ana_seen, bruno_seen = ana.received, bruno.received
            again = await ana.request({"type": "act", "action": {"pass_turn": {}}, "id": "same-id"})
            assert again == first
            # Were the resend applied again, its ack would go out before the seats are told:
            # the answer proves nothing. Ana's connection is read one frame at a time, so her
            # pong comes once the resend was handled to its end, whatever it sent Bruno; his
            # own pong then comes after all of that.
            await ana.sync()
            await bruno.sync()
            assert ana.frames[ana_seen:] == [first, {"type": "pong"}]
            assert bruno.frames[bruno_seen:] == [{"type": "pong"}]
            assert [e["kind"] for e in bruno.log] == ["pass"] and bruno.seq == 1
            assert bruno.view["turn"] == 1

    loop_thread.run(scenario(), timeout=60)


def test_frames_to_a_seat_never_hold_another_rack_or_the_bag(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    """R6: before the end, no frame sent to a seat contains another seat's rack."""
    gateway = gateway_factory(seed=11)

    async def scenario() -> None:
        async with started_game(gateway.url, ["Ana", "Bruno", "Chloé"]) as clients:
            for _ in range(12):
                await play_one_turn(clients, bot(11))
                racks = {c.table["you"]: c.view["rack"] for c in clients}
                for c in clients:
                    me = c.table["you"]
                    for frame in c.frames:
                        text = json.dumps(frame)
                        assert "bag" not in {k for k in frame if k != "bag_count"}
                        if frame["type"] in ("view", "snapshot"):
                            assert frame["view"]["rack"] in ("", racks[me]) or frame["seq"] < c.seq
                            assert set(frame["view"]) >= {"rack", "rack_counts"}
                            assert frame["view"]["ending"] is None
                        for seat, rack in racks.items():
                            if seat != me and len(rack) == 7 and rack != racks[me]:
                                assert f'"rack": "{rack}"' not in text

    loop_thread.run(scenario(), timeout=120)


def test_r19_r20_a_refusal_goes_only_to_the_player_and_shows_the_reserve(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    gateway = gateway_factory()
    words = set(french_words())

    async def scenario() -> None:
        async with started_game(gateway.url, ["Ana", "Bruno"]) as (ana, bruno):
            rack = [t for t in ana.view["rack"] if t != "?"]
            pair = next(
                (a, b) for i, a in enumerate(rack) for b in rack[i + 1 :] if a + b not in words
            )
            bruno_seen = len(bruno.frames)
            with pytest.raises(ServerError) as refused:
                await ana.place((6, 6, pair[0]), (6, 7, pair[1]))
            frame = refused.value.frame
            assert frame["type"] == "refused"
            assert (frame["reason"], frame["words"]) == ("unknown_words", [pair[0] + pair[1]])
            assert (frame["reserve_tries"], 0 < frame["reserve_next_in"] <= 15) == (9, True)
            view = await ana.wait_for(lambda f: f["type"] == "view")
            assert view["view"]["reserve_tries"] == 9 and view["seq"] == 0
            # Ana's view goes out once the refusal's commit has told the seats (under the
            # table's lock, after her `refused`): whatever it sent Bruno was sent by then, and
            # his pong comes after it.
            await bruno.sync()
            # A `table` frame may come late from the start on a shared store (who is connected,
            # heard through the bus): the table Bruno already had, started, but for who is
            # connected — nothing of the refusal.
            had = [f for f in bruno.frames[:bruno_seen] if f["type"] == "table"][-1]

            def but_presence(table: dict[str, Any]) -> dict[str, Any]:
                seats = [{k: v for k, v in s.items() if k != "connected"} for s in table["seats"]]
                return {**table, "seats": seats, "state": None}

            late = [f for f in bruno.frames[bruno_seen:] if f["type"] == "table"]
            assert all(f["state"] == "started" for f in late), late
            assert all(but_presence(f) == but_presence(had) for f in late), (had, late)
            assert [f for f in bruno.frames[bruno_seen:] if f["type"] != "table"] == [
                {"type": "pong"}
            ]
            assert ana.view["turn"] == 0 and ana.seq == 0  # still Ana's turn, nothing played

    loop_thread.run(scenario(), timeout=30)


def test_seat_tokens_never_reach_the_logs(
    loop_thread: LoopThread, gateway_factory: GatewayFactory, caplog: pytest.LogCaptureFixture
) -> None:
    gateway = gateway_factory()
    caplog.set_level(logging.DEBUG)

    async def scenario() -> list[str]:
        async with started_game(gateway.url, ["Ana", "Bruno"]) as clients:
            await clients[0].pass_turn()
            await clients[1].drop()
            await clients[1].open()
            return [c.token for c in clients if c.token]

    tokens = loop_thread.run(scenario(), timeout=30)
    assert len(tokens) == 2
    logged = "\n".join(
        f"{r.getMessage()} {vars(r)}" for r in caplog.records if r.name.startswith("lexio")
    )
    assert "seated" in logged  # the gateway did log the seating…
    for token in tokens:
        assert token not in logged  # …never the secret
