"""F&E scenarios as data, their canonical hash, and the game calendar.

A scenario file holds only facts (seats, empires, turn order, turn limits, optional rules) in
hexpost's own format. Both players must start from the same facts (protocol property P8), so
``data_hash`` is the SHA-256 of the *decoded* scenario re-encoded as sorted-key msgpack: it
does not change when someone reformats the JSON, and it changes with any fact.

The calendar is the General War's: turn 1 is Fall Y168, and each turn is half a year.
"""

from __future__ import annotations

import functools
import hashlib
from importlib import resources

import msgspec

from engine.core.ruleset import OptionSpec, OptionValue, ScenarioInfo, SeatSpec

_CANONICAL = msgspec.msgpack.Encoder(order="sorted")


class ScenarioSeat(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A seat in a scenario: its name, the side it plays, and that side's empires."""

    seat: str
    side: str
    empires: tuple[str, ...] = ()


class ScenarioOption(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """An optional rule chosen at game creation."""

    id: str
    default: OptionValue
    help: str
    rule: str = ""


class Scenario(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One scenario record as stored in ``engine/fe/data/scenarios``."""

    id: str
    number: str
    title: str
    seats: tuple[ScenarioSeat, ...]
    turn_order: tuple[str, ...]
    """Seats in player-turn order within each game turn."""
    first_turn: int
    last_turn: int
    options: tuple[ScenarioOption, ...] = ()


class ScenarioError(ValueError):
    """A shipped scenario file is inconsistent (a packaging bug, never a player error)."""


def turn_date(turn: int) -> tuple[int, str]:
    """The (year, season) of a game turn: turn 1 is Fall Y168, turn 2 Spring Y169."""
    return 168 + turn // 2, "Fall" if turn % 2 else "Spring"


def turn_label(turn: int) -> str:
    """E.g. ``"Fall Y168 (turn 1)"``."""
    year, season = turn_date(turn)
    return f"{season} Y{year} (turn {turn})"


def data_hash(scenario: Scenario) -> bytes:
    """SHA-256 of the scenario's canonical (sorted-key msgpack) encoding."""
    return hashlib.sha256(_CANONICAL.encode(scenario)).digest()


def decode_scenario(raw: bytes) -> Scenario:
    """Decode and check one scenario file."""
    scenario = msgspec.json.decode(raw, type=Scenario)
    _check(scenario)
    return scenario


def _check(scenario: Scenario) -> None:
    seats = [s.seat for s in scenario.seats]
    if len(set(seats)) != len(seats) or len(seats) < 2:
        raise ScenarioError(f"scenario {scenario.id}: seats must be two or more distinct names")
    if sorted(scenario.turn_order) != sorted(seats):
        raise ScenarioError(f"scenario {scenario.id}: turn order must name every seat once")
    if not 1 <= scenario.first_turn <= scenario.last_turn:
        raise ScenarioError(f"scenario {scenario.id}: bad turn range")
    options = [o.id for o in scenario.options]
    if len(set(options)) != len(options):
        raise ScenarioError(f"scenario {scenario.id}: option ids must be unique")


def info(scenario: Scenario) -> ScenarioInfo:
    """What game creation shows and checks (P8) about a scenario."""
    return ScenarioInfo(
        id=scenario.id,
        title=scenario.title,
        seats=tuple(SeatSpec(s.seat, s.side, s.empires) for s in _in_turn_order(scenario)),
        options=tuple(OptionSpec(o.id, o.default, o.help, o.rule) for o in scenario.options),
        data_hash=data_hash(scenario),
        start=turn_label(scenario.first_turn),
    )


def _in_turn_order(scenario: Scenario) -> list[ScenarioSeat]:
    by_name = {s.seat: s for s in scenario.seats}
    return [by_name[name] for name in scenario.turn_order]


@functools.cache
def load_scenarios() -> tuple[Scenario, ...]:
    """Every shipped scenario, ordered by file name (stable on every machine)."""
    folder = resources.files("engine.fe.data.scenarios")
    names = sorted(entry.name for entry in folder.iterdir() if entry.name.endswith(".json"))
    scenarios = tuple(decode_scenario(folder.joinpath(name).read_bytes()) for name in names)
    ids = [s.id for s in scenarios]
    if len(set(ids)) != len(ids):
        raise ScenarioError("two scenario files share an id")
    return scenarios


def find_scenario(scenario_id: str) -> Scenario | None:
    """The shipped scenario with this id, or None."""
    return next((s for s in load_scenarios() if s.id == scenario_id), None)
