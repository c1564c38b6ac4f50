"""Ruleset-specific client code, chosen by ruleset id; the generic client for the rest.

Everything the app and the command line show of a game comes from the ruleset's face
(`engine.core.face`): summary, board, printed map, menus, checklist. A ruleset may add client
code of its own for what no face can say generically: extra keys of ``hexpost show --json``
(F&E has always printed its empires, units and hexes there), a scenario's details for
``hexpost scenario info`` (and for one game turn, ``--turn``), a check of its shipped data
for ``hexpost data check``, which fields of an order's form matter for the values
chosen so far, and calculators (``hexpost calc combat``) that work its rules without a game.
Such code lives in a package ``tui/rulesets/<id>/`` that exports a `RulesetClient` and names
it in the entry point group ``hexpost.clients``. A ruleset without one gets `GenericClient`,
which adds nothing: the shell works from the face alone.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

from engine.core.errors import HexpostError
from saves.registry import load_entry_point, named_entry_points

if TYPE_CHECKING:
    from importlib import metadata

ENTRY_POINT_GROUP = "hexpost.clients"


class ScenarioDetails(msgspec.Struct, frozen=True):
    """``hexpost scenario info``: the record for ``--json`` and its text for people."""

    record: Any
    text: str


class DataProblem(msgspec.Struct, frozen=True):
    """A broken reference in a ruleset's shipped data: the file, the entry, what is wrong."""

    file: str
    entry: str
    message: str


class CalcField(msgspec.Struct, frozen=True):
    """One value a calculator takes: its key in the values, its label, what the field starts
    with, the only values it allows (a menu, when given) and whether it may be left blank."""

    name: str
    label: str
    default: str = ""
    choices: tuple[str, ...] = ()
    required: bool = True


class Calculator(msgspec.Struct, frozen=True):
    """A calculator a ruleset's client works (`RulesetClient.calculate`): its name (``hexpost
    calc NAME``), a title and the fields the app's dialog asks for, in order."""

    name: str
    title: str
    fields: tuple[CalcField, ...]


class CalcRefusal(HexpostError):
    """A calculator's refusal of a bad value, with the name of the field that holds it, so
    the app can show the reason beside that field (the command line prints it as any
    `HexpostError`)."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


class DemoSeat(msgspec.Struct, frozen=True):
    """One player of a demo game: a name, the side played (in words), the home's folder and
    the loopback transport it sends and receives through."""

    name: str
    side: str
    path: str
    transport: Any


class Demo(Protocol):
    """A scripted game between two local seats, with no account (``hexpost demo``)."""

    game_name: str

    def run(self, keep: Path | None) -> int:
        """Play the whole script, narrating it; ``keep`` keeps the homes there."""
        ...

    def seats(self, root: Path) -> tuple[DemoSeat, DemoSeat]:
        """Build both homes under ``root`` with the game set up and ready to play."""
        ...


class RulesetClient(Protocol):
    """A ruleset's own client code; every method has a neutral answer in `GenericClient`."""

    id: str
    demo: Demo | None
    """The ruleset's demo game, if it ships one."""

    def record_extras(self, rules: Any) -> dict[str, Any]:
        """Keys added to the top level of ``hexpost show --json`` for a game's rules state."""
        ...

    def scenario_details(self, scenario_id: str) -> ScenarioDetails | None:
        """What ``hexpost scenario info`` says of a scenario (None: nothing beyond the list)."""
        ...

    def turn_details(self, scenario_id: str, turn: int) -> ScenarioDetails | None:
        """What ``hexpost scenario info --turn N`` says of one game turn (None: no such view)."""
        ...

    def data_problems(self) -> list[DataProblem]:
        """Broken references in the ruleset's shipped data (empty when consistent)."""
        ...

    def data_gaps(self) -> list[DataProblem]:
        """Facts the ruleset's sources leave open (not broken references: the check passes),
        so ``hexpost data check`` can name them."""
        ...

    def form_fields(self, order: str, values: Mapping[str, str]) -> tuple[str, ...] | None:
        """The parameters an order's form asks for given the values chosen so far (None:
        every parameter of the face's `Choice`)."""
        ...

    def calculate(self, name: str, values: Mapping[str, str]) -> ScenarioDetails | None:
        """The calculator ``name`` (``hexpost calc NAME``) on the typed ``values``: a record
        for ``--json`` and its text (None: the ruleset has no such calculator). Bad values
        raise `HexpostError` naming the value and the rule (`CalcRefusal`, naming the field,
        when one value is to blame)."""
        ...

    def calculators(self) -> tuple[Calculator, ...]:
        """The calculators `calculate` works, with their fields (empty: none)."""
        ...


class GenericClient:
    """The client of a ruleset that ships no client code: the face says it all."""

    demo: Demo | None = None

    def __init__(self, ruleset_id: str) -> None:
        self.id = ruleset_id

    def record_extras(self, rules: Any) -> dict[str, Any]:
        return {}

    def scenario_details(self, scenario_id: str) -> ScenarioDetails | None:
        return None

    def turn_details(self, scenario_id: str, turn: int) -> ScenarioDetails | None:
        return None

    def data_problems(self) -> list[DataProblem]:
        return []

    def data_gaps(self) -> list[DataProblem]:
        return []

    def form_fields(self, order: str, values: Mapping[str, str]) -> tuple[str, ...] | None:
        return None

    def calculate(self, name: str, values: Mapping[str, str]) -> ScenarioDetails | None:
        return None

    def calculators(self) -> tuple[Calculator, ...]:
        return ()


class ClientProblem(msgspec.Struct, frozen=True):
    """A client plug-in left out: its entry point's name and value, and what was wrong."""

    name: str
    value: str
    problem: str


class Clients(msgspec.Struct, frozen=True):
    found: dict[str, RulesetClient]
    problems: tuple[ClientProblem, ...]


def load(points: list[metadata.EntryPoint] | None = None) -> Clients:
    """Load the client plug-ins of ``points`` (default: every installed one); a plug-in that
    fails to import or repeats an id is named in ``problems`` and left out."""
    from importlib import metadata  # here: its import alone costs a start-up tens of ms

    found_points = (
        list(metadata.entry_points(group=ENTRY_POINT_GROUP)) if points is None else points
    )
    found: dict[str, RulesetClient] = {}
    problems: list[ClientProblem] = []
    for point in sorted(found_points, key=lambda p: (p.name, p.value)):
        try:
            client = point.load()
        except Exception as exc:  # a broken package must not stop the others
            problems.append(ClientProblem(point.name, point.value, f"does not import: {exc}"))
            continue
        ruleset_id = getattr(client, "id", None)
        if not isinstance(ruleset_id, str) or not ruleset_id:
            problems.append(ClientProblem(point.name, point.value, "names no ruleset id"))
        elif ruleset_id in found:
            text = f"declares client id {ruleset_id!r}, which another plug-in already took"
            problems.append(ClientProblem(point.name, point.value, text))
        else:
            found[ruleset_id] = client
    return Clients(found, tuple(problems))


@functools.cache
def installed() -> Clients:
    return load()


def client_for(ruleset_id: str) -> RulesetClient:
    """The client code of ``ruleset_id``'s games (`GenericClient` when it ships none).

    Until the full scan has been made, the entry points named like the ruleset are looked
    up first without it (as `saves.registry.plugin_for` does): opening a game pays neither
    for `importlib.metadata` nor for reading every distribution. Whatever that cannot settle
    goes to the scan, which names the problems."""
    if installed.cache_info().currsize == 0:
        quick = _quick(ruleset_id)
        if quick is not None:
            return quick
    return installed().found.get(ruleset_id) or GenericClient(ruleset_id)


_QUICK: dict[str, RulesetClient] = {}


def _quick(ruleset_id: str) -> RulesetClient | None:
    if ruleset_id not in _QUICK:
        values = sorted(named_entry_points(ENTRY_POINT_GROUP, ruleset_id))
        client: Any = load_entry_point(values[0]) if values else None
        if getattr(client, "id", None) != ruleset_id:
            return None
        _QUICK[ruleset_id] = client
    return _QUICK[ruleset_id]


def demo() -> Demo:
    """The demo of the first installed ruleset (by id) that ships one."""
    for _, client in sorted(installed().found.items()):
        if client.demo is not None:
            return client.demo
    raise HexpostError("no installed ruleset ships a demo game")
