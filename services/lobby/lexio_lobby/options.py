"""Table options: what a game lets the host fix with the invitation, checked for shape only.

A game registers its options in the lobby's configuration (:mod:`lexio_lobby.games`): each is
a name, a list of choices (all strings or all integers) and a default among them: a host
picks a side, a language or a time bank this way, whatever the game means by them.

The lobby checks only the **shape** of what ``CreateTable`` asks for — the name is registered,
the value has the choices' type and is one of them — and fills every option not asked for with
its default, so a table always carries the complete set. What the options *mean* (which side
the joiner gets, what a time bank is) is the game's business: no rule lives here.

Values are plain ``str`` or ``int`` (never ``bool``, which Python counts as an int: a JSON
``true`` is not the integer 1). A table's options are a tuple of ``(name, value)`` pairs in
registration order — immutable, like the rest of :class:`~lexio_lobby.model.Table` — and are
stored as a JSON object, which keeps integers integers.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, TypeAlias, TypeGuard

OptionValue: TypeAlias = str | int
#: A table's options: every registered option of its game, in registration order.
Options: TypeAlias = tuple[tuple[str, OptionValue], ...]

#: The same pattern as game names.
OPTION_NAME: Final = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
MAX_OPTIONS: Final = 16
MAX_CHOICES: Final = 64
#: A text choice is what a menu shows or a gateway matches on: short and printable.
MAX_TEXT_LENGTH: Final = 64
#: Integer choices travel as protobuf int64.
INT64_MIN: Final = -(2**63)
INT64_MAX: Final = 2**63 - 1


class OptionConfigError(ValueError):
    """An option's registration cannot be used (the message names the option and why)."""


class InvalidOptionError(ValueError):
    """A requested option is not registered, has the wrong type, or is not a choice."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _valid_choice(value: object) -> bool:
    if isinstance(value, str):
        return 1 <= len(value) <= MAX_TEXT_LENGTH and value.isprintable()
    if isinstance(value, bool) or not isinstance(value, int):
        return False
    return INT64_MIN <= value <= INT64_MAX


@dataclass(frozen=True)
class OptionSpec:
    """One registered option: its name, its choices (in the order menus show them), and the
    default a table gets when the host does not pick."""

    name: str
    choices: tuple[OptionValue, ...]
    default: OptionValue

    def __post_init__(self) -> None:
        where = f"option {self.name!r}"
        if not isinstance(self.name, str) or not OPTION_NAME.fullmatch(self.name):
            raise OptionConfigError(
                f"{where}: name is 1-32 of a-z 0-9 _ -, starting with a letter or digit"
            )
        if not isinstance(self.choices, tuple) or not 1 <= len(self.choices) <= MAX_CHOICES:
            raise OptionConfigError(f"{where}: choices must be a list of 1 to {MAX_CHOICES}")
        for choice in self.choices:
            if not _valid_choice(choice):
                raise OptionConfigError(
                    f"{where}: choice {choice!r} is neither an integer (int64) nor a string "
                    f"of 1-{MAX_TEXT_LENGTH} printable characters"
                )
        if len({type(choice) for choice in self.choices}) != 1:
            raise OptionConfigError(f"{where}: choices must be all strings or all integers")
        if len(set(self.choices)) != len(self.choices):
            raise OptionConfigError(f"{where}: choices repeat a value")
        if not self.accepts(self.default):
            raise OptionConfigError(f"{where}: default {self.default!r} is not one of the choices")

    @property
    def kind(self) -> type:
        """``str`` or ``int``: the type of every choice."""
        return type(self.choices[0])

    def accepts(self, value: object) -> TypeGuard[OptionValue]:
        """The value has the choices' type (so ``True`` is never ``1``) and is one of them."""
        return type(value) is self.kind and value in self.choices


def check_registry(specs: Sequence[OptionSpec]) -> None:
    """One game's options together: at most :data:`MAX_OPTIONS`, names unique."""
    if len(specs) > MAX_OPTIONS:
        raise OptionConfigError(f"at most {MAX_OPTIONS} options, got {len(specs)}")
    names = [spec.name for spec in specs]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise OptionConfigError(f"options registered twice: {duplicates}")


def parse_option(entry: object, index: int) -> OptionSpec:
    """Option number ``index`` from the configuration's JSON: ``{"name", "choices",
    "default"}``. Errors name it by its name, or by its number when it has none."""
    if not isinstance(entry, dict):
        raise OptionConfigError(f"option #{index}: not a JSON object")
    label = entry.get("name")
    where = f"option {label!r}" if isinstance(label, str) else f"option #{index}"
    missing = sorted({"name", "choices", "default"} - set(entry))
    if missing:
        raise OptionConfigError(f"{where}: missing keys {missing}")
    unknown = sorted(set(entry) - {"name", "choices", "default"})
    if unknown:
        raise OptionConfigError(f"{where}: unknown keys {unknown}")
    if not isinstance(label, str):
        raise OptionConfigError(f"{where}: name must be a string")
    choices = entry["choices"]
    if not isinstance(choices, list):
        raise OptionConfigError(f"{where}: choices must be a list")
    return OptionSpec(name=label, choices=tuple(choices), default=entry["default"])


def resolve(specs: Sequence[OptionSpec], requested: Mapping[str, object]) -> Options:
    """The complete options of a new table: each requested one checked against its spec,
    every other one at its default. :class:`InvalidOptionError` names the first bad one."""
    by_name = {spec.name: spec for spec in specs}
    chosen: dict[str, OptionValue] = {}
    for name, value in requested.items():
        spec = by_name.get(name)
        if spec is None or not spec.accepts(value):
            raise InvalidOptionError(name)
        chosen[name] = value
    return tuple((spec.name, chosen.get(spec.name, spec.default)) for spec in specs)


def options_to_json(options: Options) -> str:
    """Options as every store keeps them: one JSON object, in registration order."""
    return json.dumps(dict(options), ensure_ascii=False)


def options_from_json(text: str | None) -> Options:
    """The stored options; a table stored before options existed (no value) has none."""
    if not text:
        return ()
    loaded = json.loads(text)
    if not isinstance(loaded, dict):
        raise ValueError("stored options are not a JSON object")
    for name, value in loaded.items():
        if not (isinstance(value, str) or _is_int(value)):
            raise ValueError(f"stored option {name!r} is neither a string nor an integer")
    return tuple(loaded.items())
