"""What supply does (410.22, 410.31): the checks' records, half speed, combat supply.

The tutorial board (see `tests.engine.fe.steps.tutorial_states`): the Klingon D6 KLI-0005 is
put in 0702, Kzinti space far from every Klingon supply point, where the coalition's checks
find it out of supply; the straight line 0702, 0802, 0903, 1003, 1104 is empty and open to it.
"""

from __future__ import annotations

import msgspec

from engine.core.ruleset import Event
from engine.fe.model import FeState
from engine.fe.sequence import load_sequence
from engine.fe.steps import supply
from tests.engine.fe.steps.tutorial_states import after_setup, orders, placed, refusals, run_to

CUT_OFF = 702
LINE = ["0702", "0802", "0903", "1003", "1104"]


def _cut_off_at_3b2() -> FeState:
    return run_to(placed(after_setup(), {"KLI-0005": CUT_OFF}), "3B2")


def test_the_checks_record_who_is_out_of_supply() -> None:
    state = _cut_off_at_3b2()
    assert supply.out_of_supply_at(state, "1A2") == ("KLI-0005",)
    assert supply.out_of_supply_at(state, "3B1") == ("KLI-0005",)
    assert supply.out_of_supply_at(state, "5-3A") is None
    assert supply.AREA.on_phase(state, "1", []).supply_checks == ()
    assert supply.AREA.on_phase(state, "2", []) is state


def test_out_of_supply_a_unit_moves_at_half_speed() -> None:
    state = _cut_off_at_3b2()
    far = {"type": "move", "units": ["KLI-0005"], "path": LINE}
    assert refusals(state, "coalition", far) == [
        "KLI-0005 (D6) is out of supply and moves at half speed: 0702->1104 needs 4 hexes, "
        "allowance 6 halved to 3 (410.31)"
    ]
    state, events = orders(state, "coalition", {**far, "path": LINE[:4]})
    assert events[-1].data["hexes"] == 3
    on = {"type": "move", "units": ["KLI-0005"], "path": LINE[3:]}
    assert refusals(state, "coalition", on) == [
        "KLI-0005 (D6) is out of supply and moves at half speed: 1003->1104 needs 1 hexes, "
        "allowance 6 halved to 3 (3 already moved this phase) (410.31)"
    ]


def test_the_3b1_check_decides_not_the_board_of_the_moment() -> None:
    """The F5 KLI-0006 was in supply at 3B1: put where the D6 stands, it keeps full speed."""
    state = _cut_off_at_3b2()
    moved = placed(state, {"KLI-0006": CUT_OFF})
    state, events = orders(
        moved, "coalition", {"type": "move", "units": ["KLI-0006"], "path": LINE}
    )
    assert events[-1].data["hexes"] == 4


def _with_checks(state: FeState, *checks: tuple[str, tuple[str, ...]]) -> FeState:
    return msgspec.structs.replace(state, supply_checks=checks)


def test_in_supply_for_combat_at_either_combat_check() -> None:
    state = placed(after_setup(), {"KLI-0005": CUT_OFF})
    d6, d7 = state.board.unit("KLI-0005"), state.board.unit("KLI-0002")
    assert not supply.combat_supply(state, d6)  # no check made: the board decides
    assert supply.combat_supply(state, d7)
    first = _with_checks(state, ("1A2", ("KLI-0005",)))
    assert not supply.combat_supply(first, d6)
    assert supply.combat_supply(first, d7)
    reconnected = _with_checks(state, ("1A2", ("KLI-0005",)), ("5-3A", ()))
    assert supply.combat_supply(reconnected, d6)
    cut_later = _with_checks(state, ("1A2", ()), ("5-3A", ("KLI-0005",)))
    assert supply.combat_supply(cut_later, d6)
    both = _with_checks(state, ("1A2", ("KLI-0005",)), ("5-3A", ("KLI-0005",)))
    assert not supply.combat_supply(both, d6)


def test_a_second_pass_of_a_check_replaces_its_record() -> None:
    state = _cut_off_at_3b2()
    back = placed(state, {"KLI-0005": 1307})
    step = load_sequence().steps["3B1"]
    events: list[Event] = []
    after = supply.AREA.automatic(back, step, events)
    assert supply.out_of_supply_at(after, "3B1") == ()
    assert supply.out_of_supply_at(after, "1A2") == ("KLI-0005",)
