"""A battle round's typed secret choices and dice (`engine.fe.steps.combat_round`).

The tutorial board of `test_combat_loop`: the D6 KLI-0005 (attack 7, command 8) has moved in
with the Kzinti Border Guard in 1105: CC KZI-0001 (attack 9, command 9), BC KZI-0002 (8, 8),
CL KZI-0003 (6, 6), FF KZI-0004 and KZI-0005 (4 each, command 3). Figures from the unit
tables (units.json, the SIT) and the 300 combat table printed in the rulebook summary.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from engine.core.errors import IllegalOrder
from engine.core.ruleset import RollRequest
from engine.fe import RULESET
from engine.fe.face import FACE
from engine.fe.model import FeState
from engine.fe.orders import parse_orders
from engine.fe.steps import combat
from tests.engine.fe.helpers import owed
from tests.engine.fe.steps.test_combat_loop import two_battles
from tests.engine.fe.steps.tutorial_states import orders, run_to, texts


def reveal(state: FeState, choices: dict[str, object], dice: tuple[int, ...] = ()) -> FeState:
    """Both sides' choices at the secret step owed now, checked as the core checks reveals;
    the dice asked for at the reveal given in order (the core reads them from the packets)."""
    decision = owed(state)
    for seat, choice in choices.items():
        assert not RULESET.validate_secret(state, decision, seat, choice), (seat, choice)
    applied = RULESET.apply_secret(state, decision, choices)
    state = applied.state
    assert len(applied.rolls) == len(dice) and all(r.at_reveal for r in applied.rolls)
    for request, die in zip(applied.rolls, dice, strict=True):
        state = RULESET.apply_roll(state, request, (die,)).state
    return state


def refusals(state: FeState, seat: str, choice: object) -> list[str]:
    return [
        f"{v.message} ({v.rule})" for v in RULESET.validate_secret(state, owed(state), seat, choice)
    ]


def test_a_flagship_is_one_of_the_three_best_rated_units_here() -> None:
    state = run_to(two_battles(), "5-3D")
    (choice,) = FACE.choices(state, "alliance")
    assert choice.params[0].options == ("KZI-0001", "KZI-0002", "KZI-0003")
    assert refusals(state, "alliance", "KZI-0004") == [
        "KZI-0004 may not be flagship here: the eligible units are KZI-0001, KZI-0002, "
        "KZI-0003 (302.32)"
    ]
    assert refusals(state, "alliance", "Flagship CC")[0].startswith("Flagship CC may not")
    assert refusals(state, "coalition", ["KLI-0005"])[0].startswith(
        "the secret choice of 5-3D is your flagship's unit id"
    )


def test_a_battle_force_holds_its_flagship_and_only_units_here() -> None:
    state = reveal(run_to(two_battles(), "5-3D"), {"coalition": "KLI-0005", "alliance": "KZI-0003"})
    state = run_to(state, "5-3E")
    assert refusals(state, "alliance", ["KZI-0001", "KLI-0005"])[0] == (
        "KLI-0005 is not one of this side's units in the battle hex (302.31)"
    )
    assert refusals(state, "alliance", ["KZI-0001"]) == [
        "the flagship KZI-0003 is not in the battle force (302.32)"
    ]
    assert refusals(state, "alliance", "all of them")[0].startswith("the secret choice of 5-3E")
    everyone = ["KZI-0003", "KZI-0001", "KZI-0002", "KZI-0004", "KZI-0005"]
    assert refusals(state, "alliance", everyone) == []  # 5 units under the CL's rating of 6


def test_a_round_s_damage_from_its_forces_intensity_and_dice() -> None:
    """Forces D6 (7) against CC, BC, CL, FF, FF (31); BIRs 3 + 2 and variable die 4 (+0):
    total 5 (304.3). The 300 table's row 5: die 3 is 27.5%, die 6 is 35%. No scouts, so no
    EW shift. KLI scores 7 x 27.5% = 1.925 -> 2; KZI 31 x 35% = 10.85 -> 11 (nearest, halves
    up: the damage-rounding option's default)."""
    state = reveal(run_to(two_battles(), "5-3D"), {"coalition": "KLI-0005", "alliance": "KZI-0001"})
    everyone = ["KZI-0001", "KZI-0002", "KZI-0003", "KZI-0004", "KZI-0005"]
    state = reveal(run_to(state, "5-3E"), {"coalition": ["KLI-0005"], "alliance": everyone})
    state = reveal(run_to(state, "5-3X2"), {"coalition": 3, "alliance": 2}, dice=(4,))
    state = run_to(state, "5-4A2")
    assert refusals(state, "coalition", {"KLI-0005": 1}) == [
        "KLI-0005 (D6) has no EW choice: it gives 0 EW points (308.51)"
    ]
    state = reveal(state, {"coalition": "default", "alliance": {}}, dice=(3, 6))
    record = combat.current(state)
    assert record is not None
    (log,) = record.log
    assert (log.bir, log.vbir_die) == (5, 4)
    assert (log.attacker.potential2, log.attacker.die, log.attacker.permille) == (14, 3, 275)
    assert (log.defender.potential2, log.defender.die, log.defender.permille) == (62, 6, 350)
    assert (log.attacker.damage, log.defender.damage) == (2, 11)
    assert (log.attacker.shift, log.defender.shift) == (0, 0)


def test_the_damage_dice_wait_for_the_last_choices_of_the_round() -> None:
    """The combat dice are asked for at 5-4A2's reveal, the round's last secret step, one per
    side, read from the reveal packets; outside a battle the steps take words and roll none."""
    state = reveal(run_to(two_battles(), "5-3D"), {"coalition": "KLI-0005", "alliance": "KZI-0001"})
    state = reveal(run_to(state, "5-3E"), {"coalition": ["KLI-0005"], "alliance": ["KZI-0001"]})
    state = reveal(run_to(state, "5-3X2"), {"coalition": 1, "alliance": 1}, dice=(3,))
    state = run_to(state, "5-4A2")
    applied = RULESET.apply_secret(
        state, owed(state), {"coalition": "default", "alliance": "default"}
    )
    assert [r.purpose for r in applied.rolls] == [
        "combat die, 1105 round 1, coalition",
        "combat die, 1105 round 1, alliance",
    ]
    assert applied.rolls[0] == RollRequest(
        1, 6, "combat die, 1105 round 1, coalition", "5-4A2", at_reveal=True
    )


def damaged_round() -> FeState:
    """The round of `test_a_round_s_damage_from_its_forces_intensity_and_dice`, at 5-6A:
    KLI scored 2 damage points on the Kzinti force, KZI 11 on the D6."""
    state = reveal(run_to(two_battles(), "5-3D"), {"coalition": "KLI-0005", "alliance": "KZI-0001"})
    everyone = ["KZI-0001", "KZI-0002", "KZI-0003", "KZI-0004", "KZI-0005"]
    state = reveal(run_to(state, "5-3E"), {"coalition": ["KLI-0005"], "alliance": everyone})
    state = reveal(run_to(state, "5-3X2"), {"coalition": 3, "alliance": 2}, dice=(4,))
    state = reveal(run_to(state, "5-4A2"), {"coalition": "default", "alliance": {}}, dice=(3, 6))
    return run_to(state, "5-6A")


def order_refusals(state: FeState, seat: str, item: Mapping[str, object]) -> list[str]:
    (order,) = parse_orders([item])
    return [f"{v.message} ({v.rule})" for v in RULESET.validate(state, seat, order)]


def test_each_side_allocates_the_enemy_s_damage_with_the_forced_rule() -> None:
    """2 points on the Kzinti: the cheapest loss, crippling a frigate (defence 4), costs 4;
    2 is half of it, so the forced rule (302.61) makes them cripple it, 2 minus points
    carried. 11 points on the D6 (defence 8, crippled 4): crippling it leaves 3, half of the
    4 its cripple costs, so it must be destroyed outright for 12, 1 minus point carried."""
    state = damaged_round()
    assert order_refusals(state, "alliance", {"type": "done"}) == [
        "2 damage points to resolve first: send an allocate order (302.6)"
    ]
    (forced,) = order_refusals(state, "alliance", {"type": "allocate"})
    assert forced.endswith("(302.61)")
    state, events = orders(
        state, "alliance", {"type": "allocate", "losses": ["cripple KZI-0004"]}, {"type": "done"}
    )
    assert texts(events, "allocation") == [
        "alliance resolves 2 damage points in 1105 round 1: KZI-0004 crippled; 2 minus points "
        "carried (302.6)"
    ]
    assert state.board.unit("KZI-0004").crippled
    state = run_to(state, "5-6B")
    (short,) = order_refusals(
        state, "coalition", {"type": "allocate", "losses": ["cripple KLI-0005"]}
    )
    assert short.endswith("(302.61)")
    state, _ = orders(
        state, "coalition", {"type": "allocate", "losses": ["destroy KLI-0005"]}, {"type": "done"}
    )
    assert "KLI-0005" not in {u.id for u in state.board.units}
    record = combat.current(state)
    assert record is not None and dict(record.carry) == {"alliance": -4, "coalition": -2}
    assert record.log[-1].attacker.losses == ("KLI-0005 destroyed",)


def test_an_allocation_names_only_units_of_the_own_battle_force() -> None:
    state = damaged_round()
    item = {"type": "allocate", "losses": ["cripple KLI-0005"]}
    assert order_refusals(state, "alliance", item) == [
        "KLI-0005: not in your battle force in 1105 (302.6)"
    ]
    bad = {"type": "allocate", "losses": ["sink KZI-0004"]}
    with pytest.raises(IllegalOrder, match="allocate"):
        parse_orders([bad])
