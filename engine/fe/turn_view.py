"""One game turn of a scenario, empire by empire, from its data alone (no game is needed).

``hexpost scenario info <id> --turn N`` prints it: for each empire of the scenario, in seat
order, what the scenario's data says about turn N. A player planning ahead asks "what can the
Klingons build in Fall Y170, and is the Federation still at peace?"; the answers are spread
over batches of schedules, scripted declarations of war and war-entry conditions, and this
module gathers them.

The view is a list of *sections* per empire, each made by one function of `SECTIONS` from a
`TurnContext`: the production schedule in force (`schedule_section`, 431.0), the economic
state (`economy_section`) and the reinforcements due (`reinforcements_section`). A further
section is added by writing one more such function and listing it in `SECTIONS`; nothing
else changes, the text and the ``--json`` record are built from the sections.

The economic state is what the data settles before play: the scenario's economy, turned to
war by the scripted declarations up to turn N (``at_war_with`` and ``declare_war`` events);
a war-entry condition depends on play, so it is shown as the condition it is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from engine.core.ruleset import OptionValue
from engine.fe import economics, production, reinforcements
from engine.fe.forces import war_pairs
from engine.fe.oob import Economy, EmpireSetup, ScenarioSetup, Target, Trigger
from engine.fe.scenario import Scenario, turn_label


class Section(msgspec.Struct, frozen=True):
    """One part of an empire's turn: its name, a line for people, the facts for scripts."""

    name: str
    text: str
    record: dict[str, Any]


class EmpireTurn(msgspec.Struct, frozen=True):
    empire: str
    seat: str
    sections: tuple[Section, ...]


class TurnView(msgspec.Struct, frozen=True):
    scenario: str
    title: str
    turn: int
    label: str
    empires: tuple[EmpireTurn, ...]


class TurnContext(msgspec.Struct, frozen=True):
    """What every section may read: the scenario, its set-up, the turn, the options."""

    scenario: Scenario
    setup: ScenarioSetup
    turn: int
    options: economics.EconomyOptions


SectionMaker = Callable[[TurnContext, EmpireSetup], Section | None]


# --- the sections ------------------------------------------------------------------------------


def schedule_section(ctx: TurnContext, empire: EmpireSetup) -> Section:
    """The production schedule in force (431.0): the batch used and its slots."""
    batch = production.schedule_batch(empire.production, ctx.turn)
    slots = production.scheduled(empire.production, ctx.turn)
    used = production.schedule_label(empire.production, ctx.turn)
    listed = ", ".join(f"{count} {cls}" if count > 1 else cls for cls, count in slots.items())
    record: dict[str, Any] = {
        "batch": f"{batch.season.capitalize()} Y{batch.year}" if batch is not None else None,
        "slots": dict(slots),
    }
    text = f"{used}: {listed}" if listed else f"{used}: nothing to build"
    return Section("schedule", text, record)


def economy_section(ctx: TurnContext, empire: EmpireSetup) -> Section:
    """The economy the data gives the empire on this turn and the share of income it collects;
    a war-entry condition still to come is named."""
    enemies = _enemies(ctx.setup, empire.empire, ctx.turn)
    economy: Economy = "war" if enemies else empire.economy
    permille = ctx.options.permille(economy)
    record: dict[str, Any] = {"economy": economy, "permille": permille}
    text = f"{economy}, collects {_percent(permille)} of its income"
    if enemies:
        text += f" (at war with {', '.join(enemies)})"
    pending = [w for w in empire.war_entry if not enemies and w.economy != economy]
    if pending:
        record["war_entry"] = [
            {"economy": w.economy, "condition": describe_trigger(empire, w.trigger)}
            for w in pending
        ]
        text += "".join(
            f"; {w.economy} ({_percent(ctx.options.permille(w.economy))}) from the first "
            f"economic phase at which {describe_trigger(empire, w.trigger)} (601.0)"
            for w in pending
        )
    return Section("economy", text, record)


def reinforcements_section(ctx: TurnContext, empire: EmpireSetup) -> Section | None:
    """What the order of battle delivers to the empire on this turn (431.0 pre-war
    construction, 204.0 off-map fleets entering by strategic movement), by the scenario's
    script of wars; None when nothing is due."""
    dues = [d for d in reinforcements.due(ctx.scenario, ctx.turn) if d.empire == empire.empire]
    if not dues:
        return None
    record: dict[str, Any] = {
        "due": [
            {
                "fleet": d.fleet,
                "kind": d.kind,
                "units": [{"unit": u.unit, "count": u.count} for u in d.units],
                "hexes": [f"{h:04d}" for h in d.hexes],
                "rule": d.rule,
                "source": d.source,
                "withheld": d.withheld,
            }
            for d in dues
        ]
    }
    prefix = f"{empire.empire} "
    texts = [reinforcements.describe(d).removeprefix(prefix) for d in dues]
    return Section("reinforcements", "; ".join(texts), record)


SECTIONS: tuple[SectionMaker, ...] = (schedule_section, economy_section, reinforcements_section)
"""The sections of each empire's turn, in the order shown."""


# --- the view ----------------------------------------------------------------------------------


def turn_view(
    scenario: Scenario, turn: int, options: Mapping[str, OptionValue] | None = None
) -> TurnView:
    """Every empire's sections for ``turn``; ValueError for a turn the scenario does not play
    or a scenario without a set-up."""
    if scenario.setup is None:
        raise ValueError(f"scenario {scenario.id} has no set-up: nothing to show per turn")
    if not scenario.first_turn <= turn <= scenario.last_turn:
        raise ValueError(
            f"scenario {scenario.id} plays turns {scenario.first_turn} to "
            f"{scenario.last_turn}, not {turn}"
        )
    ctx = TurnContext(scenario, scenario.setup, turn, economics.economy_options(options or {}))
    empires: list[EmpireTurn] = []
    for seat in scenario.seats:
        for code in seat.empires:
            setup = scenario.setup.empire(code)
            if setup is None:
                continue
            made = (maker(ctx, setup) for maker in SECTIONS)
            empires.append(EmpireTurn(code, seat.seat, tuple(s for s in made if s is not None)))
    return TurnView(scenario.id, scenario.title, turn, turn_label(turn), tuple(empires))


def view_text(view: TurnView) -> str:
    """The view for people: a heading, then per empire one line per section."""
    width = max((len(s.name) for e in view.empires for s in e.sections), default=0)
    lines = [f"{view.title}: {view.label}"]
    for empire in view.empires:
        lines.append(f"{empire.empire} ({empire.seat})")
        lines += [f"  {s.name:<{width}}  {s.text}" for s in empire.sections]
    return "\n".join(lines)


def view_record(view: TurnView) -> dict[str, Any]:
    """The view for ``--json``: each empire's sections keyed by name."""
    return {
        "scenario": view.scenario,
        "turn": view.turn,
        "label": view.label,
        "empires": [
            {"empire": e.empire, "seat": e.seat, **{s.name: s.record for s in e.sections}}
            for e in view.empires
        ],
    }


# --- helpers -----------------------------------------------------------------------------------


def _enemies(setup: ScenarioSetup, empire: str, turn: int) -> list[str]:
    """Whom ``empire`` is at war with on ``turn`` by the scenario's script, sorted."""
    pairs = [(e.empire, other) for e in setup.empires for other in e.at_war_with]
    pairs += [
        (event.empire, other)
        for event in setup.events
        if event.turn <= turn
        for other in event.declare_war
    ]
    return sorted({b if a == empire else a for a, b in war_pairs(pairs) if empire in (a, b)})


def _percent(permille: int) -> str:
    tenths = f".{permille % 10}" if permille % 10 else ""
    return f"{permille // 10}{tenths}%"


def describe_trigger(owner: EmpireSetup, trigger: Trigger) -> str:
    """A war-entry or release condition in words, e.g. "a unit of KLI, LYR or ROM stands in
    KZI space or in the set-up area of KZI Marquis' Fleet"."""
    actors = sorted(
        {*trigger.actors, *(owner.future_belligerents if trigger.future_belligerents else ())}
        - {owner.empire}
    )
    who = _either(actors) or "an enemy"
    where = _either([_target(t) for t in trigger.any_of])
    verb = "stands in" if trigger.action == "occupies" else "destroys"
    return f"a unit of {who} {verb} {where}"


def _target(target: Target) -> str:
    if target.kind == "hexes":
        return "hex " + _either([f"{h:04d}" for h in target.hexes])
    if target.kind == "fleet-area":
        names = _either([f"{ref.empire} {ref.fleet}" for ref in target.fleets])
        return f"the set-up area of {names}"
    if target.kind == "empire":
        return f"{_either(list(target.empires))} space"
    return f"a starbase of {_either(list(target.empires))}" if target.empires else "a starbase"


def _either(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} or {items[-1]}"
