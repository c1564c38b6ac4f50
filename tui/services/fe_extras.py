"""What the client still knows about Federation & Empire alone, gathered in one place.

Each function here answers for the F&E ruleset (``fe``) and gives a neutral answer for any
other; they move to F&E's client plug-in (``tui/rulesets/fe/``) once rulesets register
themselves and describe their sequence of play through the ruleset face. Until then nothing
else in the service layer names ``fe``.
"""

from __future__ import annotations

from typing import Any

import msgspec

from engine.core.errors import HexpostError
from saves.replica import GameRow
from tui.services.start import known_scenarios

FE = "fe"


def has_strategic_map(ruleset_id: str) -> bool:
    """Whether ``hexpost show --map`` can draw this ruleset's games (F&E's printed map)."""
    return ruleset_id == FE


def preload_board(rows: list[GameRow]) -> None:
    """Read F&E's printed map now if a game needs it: the app's map widget reads it when a
    game screen is built, on the event loop, where a quarter of a second is a visible hitch."""
    if any(row.ruleset == FE for row in rows):
        from engine.fe.galaxy import load_galaxy

        load_galaxy()


def phase_titles(ruleset_id: str) -> tuple[dict[str, str], dict[str, str]]:
    """Phase id -> title, and phase id -> rule, for the checklist's phase lines (F&E's
    sequence of play; a ruleset without one gets none and the checklist says "Phase N")."""
    if ruleset_id != FE:
        return {}, {}
    from engine.fe.sequence import load_sequence

    phases = load_sequence().phases.values()
    return {p.id: p.title for p in phases}, {p.id: p.rule for p in phases}


def step_orders(ruleset_id: str, step_id: str | None) -> tuple[str, ...]:
    """The order types step ``step_id`` takes besides done, note and adjust (F&E's decision
    steps: ``move`` and ``batch`` at 3B2...); none for a manual step or another ruleset."""
    if ruleset_id != FE or not step_id:
        return ()
    from engine.fe.sequence import load_sequence

    step = load_sequence().steps.get(step_id)
    return step.orders if step is not None else ()


class HoldingsRecord(msgspec.Struct, frozen=True):
    """``hexpost scenario info``: each empire's starting provinces, planets, bases, income."""

    scenario: str
    empires: list[Any]
    # face: F&E's `EmpireHoldings`, carried as it is until scenario facts join the face.


def scenario_holdings(scenario_id: str) -> HoldingsRecord:
    from engine.fe.holdings import scenario_holdings as holdings_of

    try:
        holdings = holdings_of(scenario_id)
    except KeyError:
        raise HexpostError(f"no scenario {scenario_id!r} (known: {known_scenarios()})") from None
    return HoldingsRecord(scenario_id, list(holdings))


def data_problems() -> list[Any]:
    """Every broken reference in F&E's shipped data (`engine.fe.datacheck`)."""
    from engine.fe.datacheck import check_data

    return list(check_data())
