"""Protobuf ↔ rules values (``lexio_engine.lexio.codec``): the engine applies an action to a
state read without its past log, and must write back exactly the state a full read would have
given."""

from __future__ import annotations

import pytest

from lexio.engine.v1 import engine_pb2 as pb
from lexio_engine.lexio import codec
from lexio_rules import Exchange, Pass, WordSet, new_game, play
from lexio_rules.game import Accepted


def _game_with_log(entries: int) -> pb.GameState:
    state = new_game(3, seed=11, now=0.0)
    for i in range(entries):
        seat = state.turn
        action = Exchange(state.racks[seat][:2]) if i % 2 else Pass()
        outcome = play(state, seat, action, float(i), WordSet(()))
        assert isinstance(outcome, Accepted)
        state = outcome.state
    return codec.state_to_pb(state)


@pytest.mark.parametrize("entries", [0, 1, 5])
def test_r11_a_state_read_without_its_log_is_written_back_whole(entries: int) -> None:
    stored = _game_with_log(entries)
    full = codec.state_from_pb(stored)
    light = codec.state_from_pb(stored, with_log=False)
    assert light.log == () and light.log_offset == entries == len(full.log)
    seat = full.turn
    by_full = play(full, seat, Pass(), 99.0, WordSet(()))
    by_light = play(light, seat, Pass(), 99.0, WordSet(()))
    assert isinstance(by_full, Accepted) and isinstance(by_light, Accepted)
    assert by_light.entry == by_full.entry
    written = codec.state_to_pb(by_light.state, stored.log)
    assert written == codec.state_to_pb(by_full.state)
    assert [e.number for e in written.log] == list(range(1, entries + 2))


def test_writing_a_state_without_its_earlier_log_is_refused() -> None:
    stored = _game_with_log(5)
    light = codec.state_from_pb(stored, with_log=False)
    with pytest.raises(ValueError, match="5"):
        codec.state_to_pb(light)
    with pytest.raises(ValueError):
        codec.state_to_pb(light, stored.log[:4])
