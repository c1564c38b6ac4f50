"""A combat policy's ``planet``, from F&E 5.11 (`engine.fe.steps.planet_policy`).

From 5.6 a battle in which the defender has nothing left but its planet stalls: the planet
takes no damage and cannot retreat, so the attacker's seat is asked at its retreat option,
and the event tells it to capture or devastate the planet with an adjustment (508.2). With
policies and standing orders for phase 5 that is the one hand-off of the whole battle, and
its answer is nearly always the same. From 5.11 a policy may say ``planet`` "capture" or
"devastate": the engine then makes that adjustment itself at the attacker's retreat option,
checked as the typed order is, and the battle ends there. A game before 5.11 refuses the
field by name and still asks.

The board is `test_stalled_battle`'s: the Kzinti Border Guard in the hex of a Klingon minor
planet without defence units (1407), fought in the alliance's player turn.
"""

from __future__ import annotations

import msgspec

from engine.core.ruleset import DecisionKind, Event
from engine.core.turn_orders import Done, Standing
from engine.fe import FE, flow
from engine.fe.battle_model import BattleRecord, CombatPolicy
from engine.fe.face import FACE
from engine.fe.forces import Unit
from engine.fe.model import FeState
from engine.fe.orders import PolicyOrder
from engine.fe.policy_cover import policy_cover
from engine.fe.steps import base, combat, combat_policy
from tests.engine.fe.steps.test_stalled_battle import EVERY_STEP, PLANET_HEX, at_the_planet, fought
from tests.engine.fe.steps.tutorial_states import placed, refusals
from tests.engine.fe_battle import PlacedFe, rules
from tests.engine.table import Table
from tests.golden.regen import HERE as GOLDEN_DIR

CAPTURING = msgspec.structs.replace(EVERY_STEP, planet="capture")
DEVASTATING = msgspec.structs.replace(EVERY_STEP, planet="devastate")


def _ships_battles(state: FeState) -> list[BattleRecord]:
    """The battles in the planet's hex that the Kzinti ships fight as the attacker (in the
    coalition's player turn before it, the planet's side attacks and has nothing that
    fights: that battle ends after its first round)."""
    return [
        b for b in state.battles
        if b.hex == PLANET_HEX and b.log and b.log[0].attacker.seat == "alliance"
    ]  # fmt: skip


def _fought_out(state: FeState) -> bool:
    return any(b.resolved for b in _ships_battles(state))


def battle_over(version: str, policy: PolicyOrder) -> tuple[Table, int]:
    """Both seats sign ``policy`` and a standing order for the combat phase and answer
    what is owed, until the battle in the planet's hex is over or a seat is asked at a
    retreat option; with the orders packets the seats sent, once signed, while the battle
    in the planet's hex was being fought."""
    table = Table(PlacedFe(at_the_planet, version=version), "tutorial", ["coalition", "alliance"])
    signed: set[str] = set()
    asked = 0
    for _ in range(200):
        state = rules(table)
        if _fought_out(state):
            break
        seat, kind, step = table.owed()
        if kind == DecisionKind.ENTROPY:
            table.entropy_only(seat)
            continue
        if combat.current(state) is not None and step in combat_policy.RETREAT_STEPS:
            break
        current = combat.current(state)
        fighting = current is not None and current.hex == PLANET_HEX and not current.resolved
        if seat in signed and fighting and step.startswith("5-"):
            asked += 1
        run = [Done() for _ in FE.own_run(state, seat)] or [Done()]
        table.orders(seat, *([] if seat in signed else [Standing(["5"]), policy]), *run)
        signed.add(seat)
    return table, asked


def test_a_policy_that_captures_ends_the_battle_without_asking() -> None:
    table, _ = battle_over("5.11", CAPTURING)
    state = rules(table)
    (record,) = _ships_battles(state)
    assert record.resolved == f"the defender has nothing left in {PLANET_HEX}", record.resolved
    assert state.board.owner(base.galaxy(), PLANET_HEX) == "KZI"
    said = [e.text for e in table.events if e.kind == "adjust"]
    assert said == [
        f"KZI adjusts: {PLANET_HEX} captured from KLI (nothing defends it, 508.2; "
        "as signed in alliance's combat policy)"
    ], said
    assert not [e for e in table.events if e.data.get("stalled")]


def test_a_policy_that_devastates_ends_the_battle_too() -> None:
    table, _ = battle_over("5.11", DEVASTATING)
    state = rules(table)
    (record,) = _ships_battles(state)
    assert record.resolved, "the battle goes on"
    assert PLANET_HEX in state.devastated
    assert state.board.owner(base.galaxy(), PLANET_HEX) == "KLI"


def test_the_policy_spares_the_seat_its_only_decision_of_the_battle() -> None:
    """The same battle without the field: every step of it is the policies' but the ships'
    retreat option, where the seat is asked (one orders packet, one hand-off); with the
    field, no seat sends an orders packet while the battle is fought."""
    by_hand, asked = battle_over("5.11", EVERY_STEP)
    assert asked == 0 and by_hand.owed() == ("alliance", DecisionKind.ORDERS, "5-7A2")
    signed, asked = battle_over("5.11", CAPTURING)
    assert _fought_out(rules(signed)) and asked == 0


def test_a_5_10_game_refuses_the_field_and_still_asks() -> None:
    table = fought("5.10", 120)
    state = rules(table)
    assert table.owed() == ("alliance", DecisionKind.ORDERS, "5-7A2")
    (said,) = [e.text for e in table.events if e.data.get("stalled")]
    assert said.endswith("stay for another round (302.9)"), said
    assert refusals(state, "alliance", {"type": "policy", "planet": "capture"}) == [
        "a policy's planet answer takes F&E 5.11; this game plays 5.10 (508.2)"
    ]


def test_signed_at_the_retreat_option_it_captures_at_once() -> None:
    """A seat asked at 5-7A2 of a stalled battle may sign the field there: the engine then
    answers the step it is at."""
    table = fought("5.11", 120)
    assert table.owed() == ("alliance", DecisionKind.ORDERS, "5-7A2")
    (said,) = [e.text for e in table.events if e.data.get("stalled")]
    assert said.endswith("(a combat policy's planet does it by itself) (302.9)"), said
    table.orders("alliance", CAPTURING)
    state = rules(table)
    assert state.board.owner(base.galaxy(), PLANET_HEX) == "KZI"
    assert _fought_out(state)


def test_the_field_is_described_covered_and_offered_from_5_11() -> None:
    assert combat_policy.describe(CombatPolicy(planet="capture")) == "capture planets left alone"
    for version, offered in (("5.10", False), ("5.11", True)):
        state: FeState = rules(fought(version, 120))
        policies = (("alliance", CombatPolicy(planet="capture")),)
        signed = msgspec.structs.replace(state, policies=policies)
        assert ("5-7A2" in policy_cover(signed)) is offered
        (policy,) = [c for c in FACE.choices(state, "alliance") if c.order == "policy"]
        assert ("planet" in [p.name for p in policy.params]) is offered


def test_a_capture_the_rules_refuse_leaves_the_seat_asked_and_says_why() -> None:
    """Signed, but refused (here the Kzinti have no ship left in the hex, only a PDU the
    test puts there): the seat is asked as before, and the event says why its policy did
    not take the planet, so a player who signed it is not left wondering."""
    state = rules(fought("5.11", 120))
    ships = [u.id for u in state.board.at(PLANET_HEX) if u.empire == "KZI"]
    state = placed(
        state, dict.fromkeys(ships, PLANET_HEX + 1), Unit("KZI-9001", "KZI", "PDU", PLANET_HEX)
    )
    state = msgspec.structs.replace(state, policies=(("alliance", CombatPolicy(planet="capture")),))
    step = flow.current(state)
    assert step is not None and step.id == "5-7A2"
    events: list[Event] = []
    assert combat_policy.by_policy(state, step, events) is None
    (said,) = [e.text for e in events if e.data.get("stalled")]
    assert said.endswith(
        "(alliance's combat policy would capture the planet, but: adjust capture: KZI has no "
        f"ship in {PLANET_HEX}) (302.9)"
    ), said


def test_the_planets_golden_game_takes_a_planet_by_policy() -> None:
    """The golden game of this rules area (`tests.golden.regen.fe_planets`) still shows a
    planet taken by a policy: a regenerated golden that lost it would pin nothing here."""
    text = (GOLDEN_DIR / "fe_planets.txt").read_text(encoding="utf-8")
    assert (
        "KZI adjusts: 1407 captured from KLI (nothing defends it, 508.2; as signed in alliance's"
        in text
    )
