"""Table options: registered in the games configuration, fixed by CreateTable, shown on the
table and in ListGames. Parsing is checked case by case; the rest runs over real gRPC on both
stores."""

from __future__ import annotations

import json
import logging
import socket
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import grpc
import pytest
from lexio_testing import LoopThread
from lobby_fixtures import (
    BACKENDS,
    CARDS,
    MISHQAQ,
    MISHQAQ_DEFAULTS,
    MISHQAQ_JSON,
    FakeClock,
    LobbyHarness,
    backend_config,
    from_values,
    lobby_config,
    refusal,
    write_v1_file,
    write_v1_hash,
)

from lexio.lobby.v1 import lobby_pb2 as pb
from lexio_common.config import ConfigError
from lexio_lobby.games import GameConfigError, GameSpec, parse_games
from lexio_lobby.options import InvalidOptionError, OptionSpec, resolve
from lexio_lobby.server import LobbyConfig

INVALID_OPTION = (grpc.StatusCode.INVALID_ARGUMENT, "invalid_option")


def _games(*options: object) -> str:
    """A configuration of one game, "mishqaq", with these option entries."""
    return json.dumps([{"name": "mishqaq", "min_seats": 2, "max_seats": 2, "options": options}])


def _option(**entry: Any) -> dict[str, Any]:
    return {"name": "side", "choices": ["latin", "arabic"], "default": "latin", **entry}


# -- configuration ----------------------------------------------------------------------------


def test_the_documented_registration_parses_with_integers_kept_integers() -> None:
    (game,) = parse_games(json.dumps([MISHQAQ_JSON]))
    assert (game.name, game.min_seats, game.max_seats) == ("mishqaq", 2, 2)
    assert (game.health_address, game.health_service) == (
        "127.0.0.1:50051",
        "lexio.mishqaq.v1.Engine",
    )
    assert game.options == (
        OptionSpec("host_side", ("latin", "arabic"), "latin"),
        OptionSpec("latin", ("fr", "en"), "fr"),
        OptionSpec("latin_minutes", (20, 25, 30, 35, 40), 30),
        OptionSpec("arabic_minutes", (20, 25, 30, 35, 40), 30),
    )
    minutes = game.options[2]
    assert all(type(choice) is int for choice in minutes.choices)
    assert type(minutes.default) is int


def test_a_game_without_options_has_none_and_bounds_are_inclusive() -> None:
    (plain,) = parse_games('[{"name": "cards", "min_seats": 2, "max_seats": 4}]')
    assert plain.options == ()
    (empty,) = parse_games(_games())
    assert empty.options == ()
    many = [_option(name=f"o{i}") for i in range(16)]
    (game,) = parse_games(_games(*many))
    assert len(game.options) == 16
    (wide,) = parse_games(_games(_option(choices=list(range(64)), default=63)))
    assert len(wide.options[0].choices) == 64
    (edge,) = parse_games(
        _games(
            _option(name="a" * 32, choices=[-(2**63), 2**63 - 1], default=-(2**63)),
            _option(name="0-x_y", choices=["x" * 64, "ليلى", "🦊"], default="🦊"),
        )
    )
    assert edge.options[1].choices == ("x" * 64, "ليلى", "🦊")


@pytest.mark.parametrize(
    ("options", "why"),
    [
        ('"side"', "options must be a list"),
        ('{"side": ["latin"]}', "options must be a list"),
        ('["side"]', "option #0: not a JSON object"),
        ('[{"choices": ["a"], "default": "a"}]', r"option #0: missing keys \['name'\]"),
        ('[{"name": "side", "default": "a"}]', r"missing keys \['choices'\]"),
        ('[{"name": "side", "choices": ["a"]}]', r"missing keys \['default'\]"),
        ('[{"name": "side", "choices": ["a"], "default": "a", "help": "x"}]', "unknown keys"),
        ('[{"name": 5, "choices": ["a"], "default": "a"}]', "option #0: name must be a string"),
        ('[{"name": "Side", "choices": ["a"], "default": "a"}]', "name is 1-32"),
        ('[{"name": "", "choices": ["a"], "default": "a"}]', "name is 1-32"),
        ('[{"name": "-side", "choices": ["a"], "default": "a"}]', "name is 1-32"),
        ('[{"name": "host side", "choices": ["a"], "default": "a"}]', "name is 1-32"),
        (f'[{{"name": "{"a" * 33}", "choices": ["a"], "default": "a"}}]', "name is 1-32"),
        ('[{"name": "side", "choices": "latin", "default": "latin"}]', "choices must be a list"),
        ('[{"name": "side", "choices": [], "default": "a"}]', "choices must be a list of 1 to"),
        ('[{"name": "side", "choices": [1, "a"], "default": 1}]', "all strings or all integers"),
        ('[{"name": "side", "choices": [true, false], "default": true}]', "neither an integer"),
        ('[{"name": "side", "choices": [1, true], "default": 1}]', "neither an integer"),
        ('[{"name": "side", "choices": [1.5, 2], "default": 2}]', "neither an integer"),
        ('[{"name": "side", "choices": [20.0, 25], "default": 25}]', "neither an integer"),
        ('[{"name": "side", "choices": [null], "default": null}]', "neither an integer"),
        ('[{"name": "side", "choices": [["a"]], "default": "a"}]', "neither an integer"),
        ('[{"name": "side", "choices": [""], "default": ""}]', "neither an integer"),
        ('[{"name": "side", "choices": ["a\\nb"], "default": "a"}]', "printable"),
        (f'[{{"name": "side", "choices": ["{"x" * 65}"], "default": "a"}}]', "printable"),
        (f'[{{"name": "side", "choices": [{2**63}], "default": 1}}]', "int64"),
        ('[{"name": "side", "choices": ["a", "a"], "default": "a"}]', "repeat"),
        ('[{"name": "side", "choices": [20, 25, 20], "default": 20}]', "repeat"),
        ('[{"name": "side", "choices": ["a", "b"], "default": "c"}]', "default 'c' is not one"),
        ('[{"name": "side", "choices": [20, 30], "default": 25}]', "default 25 is not one"),
        ('[{"name": "side", "choices": [20, 30], "default": "20"}]', "default '20' is not one"),
        ('[{"name": "side", "choices": ["20", "30"], "default": 20}]', "default 20 is not one"),
        ('[{"name": "side", "choices": [0, 1], "default": true}]', "default True is not one"),
        ('[{"name": "side", "choices": [20, 30], "default": 20.0}]', "default 20.0 is not one"),
        ('[{"name": "side", "choices": [20, 30], "default": null}]', "default None is not one"),
    ],
)
def test_a_bad_option_is_refused_naming_the_game_and_the_option(options: str, why: str) -> None:
    text = f'[{{"name": "mishqaq", "min_seats": 2, "max_seats": 2, "options": {options}}}]'
    with pytest.raises(GameConfigError, match=why) as e:
        parse_games(text)
    message = str(e.value)
    assert message.startswith("game 'mishqaq'"), message
    entry = json.loads(options)
    named = isinstance(entry, list) and isinstance(entry[0], dict) and "name" in entry[0]
    if named and isinstance(entry[0]["name"], str):
        assert f"option {entry[0]['name']!r}" in message, message
    assert "\n" not in message  # one line, as the start-up log shows it


def test_too_many_options_and_too_many_choices_are_refused() -> None:
    with pytest.raises(GameConfigError, match="game 'mishqaq': at most 16 options, got 17"):
        parse_games(_games(*(_option(name=f"o{i}") for i in range(17))))
    with pytest.raises(GameConfigError, match=r"game 'mishqaq', option 'side': .* 1 to 64"):
        parse_games(_games(_option(choices=list(range(65)), default=0)))


def test_an_option_registered_twice_is_refused() -> None:
    with pytest.raises(GameConfigError, match=r"game 'mishqaq': options registered twice"):
        parse_games(_games(_option(), _option(choices=["a", "b"], default="a")))


def test_a_game_spec_checks_its_options_in_code_too() -> None:
    side = OptionSpec("side", ("latin", "arabic"), "latin")
    with pytest.raises(GameConfigError, match="registered twice"):
        GameSpec("g", 2, 2, options=(side, side))
    with pytest.raises(ValueError, match="all strings or all integers"):
        OptionSpec("side", ("latin", 2), "latin")


def test_bad_options_in_the_environment_stop_the_configuration(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LEXIO_LOBBY_GAMES", _games(_option(default="centre")))
    with pytest.raises(ConfigError, match="LEXIO_LOBBY_GAMES: game 'mishqaq', option 'side'"):
        LobbyConfig.from_env()
    monkeypatch.setenv("LEXIO_LOBBY_GAMES", json.dumps([MISHQAQ_JSON]))
    assert LobbyConfig.from_env().games[0].options[2].choices == (20, 25, 30, 35, 40)


def test_resolving_fills_defaults_in_registration_order_and_checks_types() -> None:
    specs = MISHQAQ.options
    assert resolve(specs, {}) == tuple(MISHQAQ_DEFAULTS.items())
    assert resolve(specs, {"latin_minutes": 40, "host_side": "arabic"}) == (
        ("host_side", "arabic"),
        ("latin", "fr"),
        ("latin_minutes", 40),
        ("arabic_minutes", 30),
    )
    for bad in (
        {"colour": "red"},
        {"latin": "de"},
        {"latin": 1},
        {"latin_minutes": "30"},
        {"latin_minutes": 45},
        {"latin_minutes": 30.0},
        {"latin_minutes": None},
    ):
        with pytest.raises(InvalidOptionError):
            resolve(specs, bad)
    bools = (OptionSpec("flag", (0, 1), 0),)
    with pytest.raises(InvalidOptionError):
        resolve(bools, {"flag": True})  # True == 1 in Python, but is no integer here


# -- over gRPC ----------------------------------------------------------------------------------


@pytest.fixture(params=BACKENDS)
def config(request: pytest.FixtureRequest, tmp_path: Path) -> LobbyConfig:
    return replace(backend_config(request, tmp_path), games=(CARDS, MISHQAQ))


@pytest.fixture
def lobby(loop_thread: LoopThread, config: LobbyConfig) -> Iterator[LobbyHarness]:
    harness = LobbyHarness(loop_thread, config).start()
    yield harness
    harness.stop()


def test_a_table_gets_every_option_with_the_defaults_filled_in(lobby: LobbyHarness) -> None:
    created = lobby.create(game="mishqaq")
    assert from_values(created.table.options) == MISHQAQ_DEFAULTS
    picked = lobby.create(
        game="mishqaq", player="p9", options={"host_side": "arabic", "arabic_minutes": 20}
    )
    expected = {**MISHQAQ_DEFAULTS, "host_side": "arabic", "arabic_minutes": 20}
    table_id = picked.table.table_id
    assert from_values(picked.table.options) == expected
    assert from_values(lobby.get(table_id).table.options) == expected
    joined = lobby.join(picked.invite_code, "p1")
    assert from_values(joined.table.options) == expected
    lobby.start_table(table_id, "p9")
    lobby.restart()  # stored, not remembered
    after = lobby.get(table_id).table
    assert after.state == pb.TABLE_STATE_STARTED
    assert from_values(after.options) == expected
    assert from_values(lobby.close_table(table_id, "p9").options) == expected


def test_a_game_without_options_gives_tables_without_options(lobby: LobbyHarness) -> None:
    created = lobby.create(game="cards")
    assert dict(created.table.options) == {}
    assert dict(lobby.get(created.table.table_id).table.options) == {}


@pytest.mark.parametrize(
    "options",
    [
        {"colour": "red"},  # not registered
        {"host_side": "centre"},  # not among the choices
        {"latin": "de"},
        {"latin_minutes": 45},
        {"latin_minutes": 0},
        {"latin_minutes": "30"},  # text where the choices are integers
        {"host_side": 1},  # an integer where they are text
        {"latin": pb.OptionValue()},  # no value at all
        {"host_side": "Latin"},  # choices are exact: no case folding
        {"latin": "fr", "latin_minutes": 45},  # one bad among good ones
    ],
)
def test_an_invalid_option_is_refused_and_opens_nothing(
    lobby: LobbyHarness, options: dict[str, Any]
) -> None:
    assert refusal(lobby.create, game="mishqaq", options=options) == INVALID_OPTION
    lobby.sweep()
    assert lobby.sample("lexio_lobby_tables", state="open") == 0
    calls = "lexio_lobby_calls_total"
    assert lobby.sample(calls, method="CreateTable", outcome="invalid_option") == 1


def test_options_for_a_game_that_registers_none_are_refused(lobby: LobbyHarness) -> None:
    assert refusal(lobby.create, game="cards", options={"latin": "fr"}) == INVALID_OPTION


def test_other_refusals_keep_their_order_around_invalid_option(lobby: LobbyHarness) -> None:
    bad = {"latin": "de"}
    assert refusal(lobby.create, game="chess", options=bad)[1] == "unknown_game"
    assert refusal(lobby.create, game="mishqaq", name="", options=bad)[1] == "invalid_name"
    assert refusal(lobby.create, game="mishqaq", player="", options=bad)[1] == "invalid_player"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_bad_option_is_refused_before_asking_the_games_back_end(
    loop_thread: LoopThread, tmp_path: Path
) -> None:
    """A malformed request costs no health check, and says what is wrong with it."""
    down = replace(MISHQAQ, health_address=f"127.0.0.1:{_closed_port()}")
    config = lobby_config(tmp_path / "lobby.sqlite3", games=(down,))
    harness = LobbyHarness(loop_thread, config).start()
    try:
        assert refusal(harness.create, game="mishqaq", options={"latin": "de"}) == INVALID_OPTION
        assert refusal(harness.create, game="mishqaq")[1] == "game_unavailable"
    finally:
        harness.stop()


def test_tables_stored_before_options_existed_still_play(
    loop_thread: LoopThread, config: LobbyConfig
) -> None:
    """A table of the previous release (no options stored) reads with no options — which is
    what it was created with — and can be looked up, joined and started as before."""
    clock = FakeClock()
    if config.redis_url:
        write_v1_hash(config.redis_url, "old-table", "2345678923", at=clock.now - 60)
    else:
        write_v1_file(config.db_path, "old-table", "2345678923", at=clock.now - 60)
    harness = LobbyHarness(loop_thread, config, clock=clock).start()
    try:
        assert dict(harness.get("old-table").table.options) == {}
        found = harness.lookup("23456-78923")
        assert (found.game, dict(found.options), found.seated) == ("cards", {}, 1)
        joined = harness.join("23456-78923", "p1")
        assert (joined.seat, dict(joined.table.options)) == (1, {})
        assert harness.start_table("old-table", "p0").state == pb.TABLE_STATE_STARTED
        harness.restart()
        assert len(harness.get("old-table").table.seats) == 2
    finally:
        harness.stop()


def test_list_games_shows_each_games_options(lobby: LobbyHarness) -> None:
    games = {g.name: g for g in lobby.stub.ListGames(pb.ListGamesRequest()).games}
    assert list(games["cards"].options) == []
    shown = [
        (
            o.name,
            [from_values({"c": c})["c"] for c in o.choices],
            from_values({"d": o.default_value})["d"],
        )
        for o in games["mishqaq"].options
    ]
    assert shown == [
        ("host_side", ["latin", "arabic"], "latin"),
        ("latin", ["fr", "en"], "fr"),
        ("latin_minutes", [20, 25, 30, 35, 40], 30),
        ("arabic_minutes", [20, 25, 30, 35, 40], 30),
    ]
    minutes = games["mishqaq"].options[2]
    assert {c.WhichOneof("value") for c in minutes.choices} == {"integer"}
    assert games["mishqaq"].options[0].default_value.WhichOneof("value") == "text"


def test_table_created_is_logged_with_its_options(
    lobby: LobbyHarness, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="lexio_lobby")
    created = lobby.create(game="mishqaq", options={"latin": "en", "latin_minutes": 25})
    refusal(lobby.create, game="mishqaq", options={"x" * 200: "y"})
    (line,) = [r for r in caplog.records if r.getMessage() == "table created"]
    assert line.__dict__["options"] == {**MISHQAQ_DEFAULTS, "latin": "en", "latin_minutes": 25}
    assert line.__dict__["table_id"] == created.table.table_id
    (refused,) = [r for r in caplog.records if r.getMessage() == "create refused: invalid option"]
    assert refused.__dict__["option"] == "?" + "x" * 32  # the caller's text, bounded


def test_the_proto_fields_are_additions_with_the_agreed_numbers() -> None:
    """The gateway codes against these names and numbers (issue 15)."""

    def fields(message: Any) -> dict[str, int]:
        return {f.name: f.number for f in message.DESCRIPTOR.fields}

    assert fields(pb.OptionValue) == {"text": 1, "integer": 2}
    assert fields(pb.OptionSpec) == {"name": 1, "choices": 2, "default_value": 3}
    assert fields(pb.Game)["options"] == 5
    assert fields(pb.CreateTableRequest)["options"] == 4
    assert fields(pb.Table)["options"] == 12
    assert fields(pb.LookupCodeRequest) == {"invite_code": 1}
    assert fields(pb.LookupCodeResponse) == {
        "game": 1,
        "options": 2,
        "seated": 3,
        "min_seats": 4,
        "max_seats": 5,
        "state": 6,
    }
    # What was there before keeps its numbers.
    assert fields(pb.CreateTableRequest) == {
        "game": 1,
        "player_id": 2,
        "display_name": 3,
        "options": 4,
    }
    assert [f for f, n in fields(pb.Table).items() if n <= 11] == [
        "table_id",
        "game",
        "state",
        "seats",
        "min_seats",
        "max_seats",
        "created_at",
        "updated_at",
        "expires_at",
        "close_reason",
        "version",
    ]
