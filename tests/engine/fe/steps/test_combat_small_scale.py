"""Small-scale combat played by the engine (310.0; `engine.fe.steps.combat_small_scale`).

The tutorial board with the ``small-scale-size`` option at 3 and one battle of our own making
in 1104: the Kzinti CL KZI-0003 (defence 6) against the D7C KLI-0001 (defence 9) and the D7
KLI-0002. Each side has at most 3 units there, so 5-3B of round 1 makes the battle
small-scale; the scripts pick the flagships alone as battle forces.
"""

from __future__ import annotations

from engine.core.ruleset import Event
from engine.fe import FE, RULESET, battle_report
from engine.fe.model import FeState
from engine.fe.steps import combat_damage
from tests.engine.fe.helpers import owed
from tests.engine.fe.steps.tutorial_states import (
    SEATS,
    TUTORIAL_SETUP,
    after_setup,
    orders,
    placed,
    refusals,
    run_to,
    texts,
)
from tests.engine.fe_play import battle_choice

HEXES = {"KZI-0003": 1104, "KLI-0001": 1104, "KLI-0002": 1104}


def small_battle(size: int = 3) -> tuple[FeState, list[Event]]:
    state = FE.initial_state("tutorial", SEATS, {"small-scale-size": size})
    for seat in ("alliance", "coalition"):
        state, _ = orders(state, seat, *TUTORIAL_SETUP[seat])
    events: list[Event] = []
    return run_to(placed(state, HEXES), "5-4A2", events), events


def points2(state: FeState, seat: str) -> int:
    owed = combat_damage.owed2(state, seat)
    assert owed is not None
    return owed[2]


def test_5_3b_of_round_1_decides_small_scale_by_the_size_option() -> None:
    state, events = small_battle()
    assert state.battles[0].small_scale
    assert texts(events, "battle")[-1] == (
        "1104: neither side has more than 3 units able to fight: small-scale combat in every "
        "round (310.11, 310.0)"
    )
    state, events = small_battle(size=1)  # the Klingons have 2 units
    assert not state.battles[0].small_scale
    assert texts(events, "battle")[-1] == (
        "1104: a side has more than 1 units able to fight: no small-scale combat (310.11)"
    )
    # the default (0): never, and nothing said
    state = run_to(placed(after_setup(), HEXES), "5-4A2", events := [])
    assert not state.battles[0].small_scale
    assert not [t for t in texts(events, "battle") if "small-scale" in t]


def test_two_dice_and_the_small_scale_table_replace_the_300_table() -> None:
    """Kzinti: 4 + 5 - 1 (largest defence 6, 3 less than the D7C's 9) = 8: 2 casualties.
    Klingons: 3 + 3 = 6: 1 casualty. At 5-6A the Kzinti resolve one step (crippling the CL
    costs one point); at 5-6B the Klingons two (cripple the D7C, then destroy it)."""
    state, _ = small_battle()
    decision = owed(state)
    choices = {s: battle_choice(state, s, decision.step) for s in decision.seats}
    revealed = RULESET.apply_secret(state, decision, choices)
    rolls = {r.purpose.rsplit(", ", 1)[-1]: r for r in revealed.rolls if "combat die" in r.purpose}
    assert {seat: (r.count, r.sides) for seat, r in rolls.items()} == {
        "coalition": (2, 6),
        "alliance": (2, 6),
    }
    state = revealed.state
    kzinti = RULESET.apply_roll(state, rolls["alliance"], (4, 5))
    assert texts(kzinti.events, "damage") == [
        "1104 round 1, alliance: small-scale combat, dice 4 + 5 -1 = 8: 2 casualties (-1 "
        "largest defence 3 less than the enemy's) (310.0)"
    ]
    klingons = RULESET.apply_roll(kzinti.state, rolls["coalition"], (3, 3))
    assert texts(klingons.events, "damage") == [
        "1104 round 1, coalition: small-scale combat, dice 3 + 3 = 6: 1 casualty (310.0)"
    ]
    log = klingons.state.battles[0].log[-1]
    assert (log.defender.die, log.defender.permille, log.defender.damage) == (9, 0, 2)
    assert (log.attacker.die, log.attacker.damage) == (6, 1)
    record = klingons.state.battles[0]
    assert battle_report.fire_line(record, log).endswith(
        "coalition small-scale dice total 6 -> 1 casualty; alliance small-scale dice total 9 "
        "-> 2 casualties (302.4)"
    )
    state = run_to(klingons.state, "5-6A")
    assert points2(state, "alliance") == 2  # one casualty: one step, one point
    suggested = combat_damage.suggested(state, "alliance")
    assert suggested is not None and suggested.losses == ["cripple KZI-0003"]
    state, events = orders(
        state, "alliance", {"type": "allocate", "losses": ["cripple KZI-0003"]}, {"type": "done"}
    )
    assert points2(state, "coalition") == 4
    assert refusals(state, "coalition", {"type": "allocate", "losses": ["cripple KLI-0001"]})
    state, events = orders(
        state,
        "coalition",
        {"type": "allocate", "losses": ["cripple KLI-0001", "destroy KLI-0001"]},
        {"type": "done"},
    )
    assert texts(events, "allocation") == [
        "coalition resolves 2 damage points in 1104 round 1: KLI-0001 destroyed (302.6)"
    ]
    assert state.board.unit("KZI-0003").crippled
