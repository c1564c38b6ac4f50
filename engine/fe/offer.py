"""What game creation offers of a scenario: its seats, its options and its data hash.

Apart from `engine.fe.scenario` (which only reads the shipped scenario files) because the
offer gathers the rule options of the rules modules (`engine.fe.rule_options`), and those
modules read scenario data: keeping the two apart is what keeps the imports one-way.
"""

from __future__ import annotations

from engine.core.ruleset import OptionSpec, ScenarioInfo, SeatSpec
from engine.fe.rule_options import RULE_OPTIONS
from engine.fe.scenario import Scenario, ScenarioSeat, data_hash, turn_label


def info(scenario: Scenario) -> ScenarioInfo:
    """What game creation shows and checks (P8) about a scenario."""
    return ScenarioInfo(
        id=scenario.id,
        title=scenario.title,
        seats=tuple(SeatSpec(s.seat, s.side, s.empires) for s in _in_turn_order(scenario)),
        options=all_options(scenario),
        data_hash=data_hash(scenario),
        start=turn_label(scenario.first_turn),
    )


def all_options(scenario: Scenario) -> tuple[OptionSpec, ...]:
    """The scenario's own options, then the rule options every F&E game offers
    (`engine.fe.rule_options`), each with its default."""
    own = tuple(OptionSpec(o.id, o.default, o.help, o.rule) for o in scenario.options)
    return own + tuple(spec for spec in RULE_OPTIONS if spec.id not in {o.id for o in own})


def _in_turn_order(scenario: Scenario) -> list[ScenarioSeat]:
    by_name = {s.seat: s for s in scenario.seats}
    return [by_name[name] for name in scenario.turn_order]
