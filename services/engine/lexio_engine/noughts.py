"""Noughts and crosses, the example game, in the engine: start, act, view; ``GAME``."""

from __future__ import annotations

from typing import Any, Final

from lexio_engine.contract import Step, Table
from lexio_engine.json_state import JsonStateGame
from lexio_engine.registry import EngineGame
from lexio_engine.servicing import Call
from noughts_rules import STATE_FORMAT, Accepted, GameState, check_seat, new_game, play, seat_view
from noughts_rules import protocol as wire


class Noughts(JsonStateGame[GameState]):
    state_format = STATE_FORMAT
    from_plain = staticmethod(GameState.from_dict)
    check_seat = staticmethod(check_seat)
    views = staticmethod(wire.views_json)
    end_cause = staticmethod(wire.end_cause)

    async def start(self, seats: int, options: Any, settings: Any, seed: int, call: Call) -> Step:
        await call.read(lambda: wire.check_table(seats, {**options, **settings}))
        return self.accepted(new_game(), call.now)

    async def act(self, table: Table, seat: int, action: object, call: Call) -> Step:
        state, seat = await call.read(lambda: self.read(table, seat))
        chosen = await call.read(lambda: wire.action_from_json(action))
        call.action = wire.action_kind(chosen)
        done = play(state, seat, chosen, call.now)
        if isinstance(done, Accepted):
            return self.accepted(done.state, call.now, [wire.entry_json(e) for e in done.entries])
        return self.refused(table, state, call.now, {"reason": done.refusal.reason.value})

    async def view(self, table: Table, seat: int, with_log: bool, call: Call) -> dict[str, Any]:
        state, seat = await call.read(lambda: self.read(table, seat))
        return wire.view_json(seat_view(state, seat), call.now, with_log=with_log)


GAME: Final = EngineGame(name="noughts", build=lambda _: Noughts(), action_kinds=wire.ACTION_KINDS)
