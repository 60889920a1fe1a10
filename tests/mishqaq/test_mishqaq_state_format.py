"""The stored state: ``GameState.to_dict``/``from_dict`` (JSON-safe, versioned, bags' order
included), and StateFormatError naming the faulty field."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mishqaq_positions import OPENED, A, AcceptAll, L, accepted, every, place, position

from mishqaq_rules.actions import Pass, Pause, Resign, Swap
from mishqaq_rules.game import play
from mishqaq_rules.reasons import InvalidOptionError, StateFormatError
from mishqaq_rules.state import STATE_FORMAT, GameState, new_game


def rich_state() -> GameState:
    """Blanks, bilingual tiles, a swap, a pause that ended by itself, a refusal, a pass."""
    state = position({**OPENED, (11, 1): "?R", (9, 20): "?ش", (9, 4): "ن+"}, latin=["R", "S", "E"])
    state = accepted(play(state, L, Swap(11, 1), 1.0, {})).state
    state = accepted(play(state, A, Pause(), 2.0, {})).state
    state = accepted(play(state, L, place((10, 4, "S")), 70.0, every(AcceptAll()))).state
    state = play(state, A, place((5, 5, "ا")), 71.0, {}).state
    return accepted(play(state, A, Pass(), 72.0, {})).state


def round_trip(state: GameState) -> GameState:
    return GameState.from_dict(json.loads(json.dumps(state.to_dict())))


@pytest.mark.parametrize("latin", ["fr", "en"])
def test_a_new_game_round_trips_through_json(latin: str) -> None:
    state = new_game(latin=latin, seed=8, now=1.5, banks=(1500.0, 2100.0))
    assert round_trip(state) == state


def test_a_game_in_play_round_trips_through_json() -> None:
    state = rich_state()
    assert round_trip(state) == state
    paused = accepted(play(state, L, Pause(), 80.0, {})).state
    assert round_trip(paused) == paused


def test_an_ended_game_round_trips_with_its_revealed_racks() -> None:
    over = accepted(play(rich_state(), A, Resign(), 90.0, {})).state
    assert over.ending is not None and round_trip(over) == over


def test_the_stored_form_holds_the_bags_order_and_a_format_version() -> None:
    state = new_game(latin="fr", seed=8, now=0.0)
    stored = state.to_dict()
    assert stored["format"] == STATE_FORMAT == "mishqaq-state/1"
    assert stored["bags"]["latin"] == [t.text for t in state.bag(L)]


def mangled(path: list[str | int], value: Any) -> dict[str, Any]:
    stored = rich_state().to_dict()
    target: Any = stored
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return stored


@pytest.mark.parametrize(
    ("path", "value", "named"),
    [
        (["format"], "mishqaq-state/0", "state.format"),
        (["latin"], "de", "state.latin"),
        (["turn"], "greek", "state.turn"),
        (["bags", "latin", 0], "ش", "state.bags.latin[0]"),
        (["racks", "arabic"], "ا", "state.racks.arabic"),
        (["board", 0, "row"], 22, "state.board[0]"),
        (["board", 0, "tile"], "E+", "state.board[0].tile"),
        (["clock", "banks", "latin"], "lots", "state.clock.banks.latin"),
        (["clock", "pauses_left", "arabic"], 4, "state.clock.pauses_left.arabic"),
        (["reserves", "latin", "tries"], 11, "state.reserves.latin.tries"),
        (["log", 1, "kind"], "exchange", "state.log[1].kind"),
        (["idle_passes"], -1, "state.idle_passes"),
    ],
)
def test_a_state_this_version_cannot_read_names_the_field(
    path: list[str | int], value: Any, named: str
) -> None:
    with pytest.raises(StateFormatError) as raised:
        GameState.from_dict(mangled(path, value))
    assert str(raised.value).startswith(named + ":") or str(raised.value).startswith(named + "."), (
        raised.value
    )


def test_a_missing_field_is_named() -> None:
    stored = rich_state().to_dict()
    del stored["clock"]
    with pytest.raises(StateFormatError, match=r"^state\.clock: missing"):
        GameState.from_dict(stored)
    with pytest.raises(StateFormatError, match=r"^state: not an object"):
        GameState.from_dict([])


def test_new_game_refuses_options_the_game_does_not_have() -> None:
    with pytest.raises(InvalidOptionError):
        new_game(latin="de", seed=1, now=0.0)
    with pytest.raises(InvalidOptionError):
        new_game(latin="fr", seed=1, now=0.0, banks=(0.0, 1800.0))
    with pytest.raises(InvalidOptionError):
        new_game(latin="fr", seed=1, now=0.0, banks=(float("inf"), 1800.0))
