"""Federation & Empire's client code: what the face does not say for every ruleset.

- ``hexpost show --json`` has always printed F&E's empires, units, hexes and battles at the
  top level (`engine.fe.views`); `record_extras` keeps them there beside the face's typed
  board, so scripts reading them go on working. It reads the record the board was built from
  (`engine.fe.views.shared_views`), not a second one.
- ``hexpost scenario info`` prints each empire's starting holdings (`engine.fe.holdings`);
  with ``--turn N``, each empire's schedule and economy on that turn (`engine.fe.turn_view`).
- ``hexpost data check`` checks the shipped unit tables, scenarios and map
  (`engine.fe.datacheck`), and names what the sources leave open (the Tholians' income).
- The adjustment form asks only for the fields a ``change`` needs (`engine.fe.model`).
- ``hexpost calc combat`` works the combat table (`tui.rulesets.fe.calc`).

Each method imports what it works with when it is called: ``hexpost show`` loads this module
for `record_extras` alone, and the data check, the holdings, the turn view and the combat
tables cost it some 6 ms of imports it never used (issue 16).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import msgspec

from engine.core.errors import HexpostError
from engine.fe.orders import ADJUST_FIELDS
from tui.rulesets import Calculator, DataProblem, ScenarioDetails

if TYPE_CHECKING:
    from tui.rulesets.fe.demo import FeDemo


class FeClient:
    """`tui.rulesets.RulesetClient` for the ``fe`` ruleset."""

    id = "fe"

    @property
    def demo(self) -> FeDemo:
        """The demo game, imported when asked for: it brings asyncio and the mail modules
        (its loopback transport), which ``hexpost show`` and ``games`` never need (issue 16)."""
        from tui.rulesets.fe.demo import FeDemo

        return FeDemo()

    def record_extras(self, rules: Any) -> dict[str, Any]:
        from engine.fe.views import shared_views

        return dict(shared_views(rules)) if rules is not None else {}

    def scenario_details(self, scenario_id: str) -> ScenarioDetails | None:
        from engine.fe.holdings import scenario_holdings

        try:
            holdings = scenario_holdings(scenario_id)
        except KeyError:
            raise HexpostError(f"no F&E scenario {scenario_id!r}") from None
        record = {"scenario": scenario_id, "empires": msgspec.to_builtins(list(holdings))}
        return ScenarioDetails(record, holdings_text(record))

    def turn_details(self, scenario_id: str, turn: int) -> ScenarioDetails | None:
        from engine.fe.scenario import find_scenario
        from engine.fe.turn_view import turn_view, view_record, view_text

        scenario = find_scenario(scenario_id)
        if scenario is None:
            raise HexpostError(f"no F&E scenario {scenario_id!r}")
        try:
            view = turn_view(scenario, turn)
        except ValueError as error:
            raise HexpostError(str(error)) from None
        return ScenarioDetails(view_record(view), view_text(view))

    def data_problems(self) -> list[DataProblem]:
        from engine.fe.datacheck import check_data

        return [DataProblem(p.file, p.entry, p.message) for p in check_data()]

    def data_gaps(self) -> list[DataProblem]:
        from engine.fe.datacheck import income_gaps

        return [DataProblem(p.file, p.entry, p.message) for p in income_gaps()]

    def form_fields(self, order: str, values: Mapping[str, str]) -> tuple[str, ...] | None:
        if order != "adjust":
            return None
        needed = ADJUST_FIELDS.get(values.get("change", ""), ())
        return ("change", *needed, "empire", "reason")

    def calculate(self, name: str, values: Mapping[str, str]) -> ScenarioDetails | None:
        from tui.rulesets.fe import calc

        return calc.combat(values) if name == "combat" else None

    def calculators(self) -> tuple[Calculator, ...]:
        from tui.rulesets.fe import calc

        return calc.CALCULATORS


def holdings_text(record: dict[str, Any]) -> str:
    lines = [
        f"{'EMPIRE':<8}{'SEAT':<11}{'PROV':>5}{'HEXES':>6}{'MINOR':>6}{'MAJOR':>6}"
        f"{'BASES':>6}{'EP':>5}  CAPITAL"
    ]
    for empire in record["empires"]:
        planets = empire["planets"]
        minors = sum(1 for p in planets if p["kind"] == "minor") + empire["offmap_minor_planets"]
        majors = sum(1 for p in planets if p["kind"] == "major") + empire["offmap_major_planets"]
        provinces = len(empire["provinces"]) + empire["offmap_provinces"]
        capitals = " ".join(f"{h:04d}" for h in empire["capitals"]) or "-"
        lines.append(
            f"{empire['empire']:<8}{empire['seat']:<11}{provinces:>5}{empire['hexes']:>6}"
            f"{minors:>6}{majors:>6}{len(empire['bases']):>6}{empire['income']:>5}  {capitals}"
        )
    lines.append("(provinces and planets include off-map possessions; EP by the chart 753.0)")
    return "\n".join(lines)


CLIENT = FeClient()
"""What the ``hexpost.clients`` entry point ``fe`` names."""
