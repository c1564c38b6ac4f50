"""Fighter factors lost in a battle stay lost until the end of the combat phase (530.12;
F&E 5.7).

Found by the random campaigns (seed 16, wandering): a Klingon D6V and a Federation carrier,
each alone in its battle force, lost 3 and 4 fighter factors every round for 440 rounds: the
engine counted no fighter loss past the round's allocation, so each round began with every
carrier's fighters whole, and the fighters took all the damage the other side could score.
The rules replace lost fighters for free at the end of the combat phase (530.12, 6E), not
between rounds.

From 5.7 (`combat.FIGHTERS_LOST_FROM`) the battle's record counts each unit's lost factors
(``BattleRecord.fighters_lost``): they come off its combat potential in later rounds and in
the pursuit round (`potential.lost_within`), off what it can lose again in allocation, and off
what its support echelon can send forward. The board is the tutorial's: the Klingon D6 alone
against the Kzinti battle station KZI-B001 in 1205 (6 fighter factors), the D6's policy never
retreating.
"""

from __future__ import annotations

import msgspec

from engine.fe.battle_model import BattleRecord, CombatPolicy
from engine.fe.combat import forces
from engine.fe.model import FeState
from engine.fe.steps import combat, combat_damage, combat_groups
from tests.engine.fe.helpers import run_until
from tests.engine.fe.steps.test_approach_needs_ships import the_base_alone
from tests.engine.fe.steps.tutorial_states import after_setup

STATION = "KZI-B001"
WHOLE2 = 12
"""The station's fighter factors, doubled (a battle station carries 6)."""


def two_rounds(version: str) -> tuple[FeState, BattleRecord]:
    """Round 1 fought and round 2 at its allocation (5-6A), at ``version``."""
    state = msgspec.structs.replace(
        the_base_alone(version), policies=(("coalition", CombatPolicy(retreat=0)),)
    )

    def at_round_two_allocation(state: FeState) -> bool:
        found = combat.current(state)
        return (
            found is not None
            and found.rounds == 1
            and found.log[-1].round == 2
            and (combat_damage.owed2(state, "alliance") is not None)
        )

    state = run_until(state, at_round_two_allocation)
    record = combat.current(state)
    assert record is not None
    return state, record


def fighters_lost_in_round_one(record: BattleRecord) -> int:
    (loss,) = record.log[0].defender.losses
    assert loss.startswith(f"{STATION} lost ") and loss.endswith(" fighter factors"), loss
    return 2 * int(loss.split()[2])


def test_from_5_7_the_station_fights_round_two_without_the_fighters_it_lost() -> None:
    state, record = two_rounds("5.7")
    lost2 = fighters_lost_in_round_one(record)
    assert lost2 > 0
    assert dict(record.fighters_lost) == {STATION: lost2}
    one, two = record.log
    assert two.defender.potential2 == one.defender.potential2 - lost2
    (target,) = combat_damage.targets_of(state, "alliance")
    assert not target.crippled and target.fighters2 == WHOLE2 - lost2


def test_before_5_7_every_round_began_with_the_fighters_whole() -> None:
    state, record = two_rounds("5.6")
    assert fighters_lost_in_round_one(record) > 0
    assert record.fighters_lost == ()
    one, two = record.log
    assert two.defender.potential2 == one.defender.potential2
    (target,) = combat_damage.targets_of(state, "alliance")
    assert target.fighters2 == WHOLE2


def test_a_support_echelon_cannot_send_forward_the_fighters_it_lost() -> None:
    """A carrier that lost 4 of its fighter factors sends at most what it has left."""
    state = after_setup()
    carrier = next(u for u in state.board.units if u.cls == "BATS")
    force = forces.BattleForce("X", ("X",), (forces.Forward(carrier.id, 10, 0),))
    units = [carrier]
    assert not [v for v in forces.force_problems(force, units) if v.rule == forces.SUPPORT_RULE]
    problems = forces.force_problems(force, units, lost_fighters2={carrier.id: 8})
    texts = [v.message for v in problems if v.rule == forces.SUPPORT_RULE]
    assert texts == [f"{carrier.id} sends 5 fighter factors and 0 PFs forward; it has 2 and 0"]


def test_all_sends_forward_what_a_unit_has_left() -> None:
    state = after_setup()
    carrier = next(u for u in state.board.units if u.cls == "BATS")
    choice = {"units": ["X"], "forward": {carrier.id: "all"}}
    whole = combat_groups.parse_force(choice, [carrier], 10)
    after = combat_groups.parse_force(choice, [carrier], 10, {carrier.id: 8})
    assert whole is not None and after is not None
    assert whole.forward == (forces.Forward(carrier.id, WHOLE2, 0),)
    assert after.forward == (forces.Forward(carrier.id, WHOLE2 - 8, 0),)
