"""Standing combat policies (`engine.fe.steps.combat_policy`), played through the protocol core.

The board is the tutorial's after set-up with the Klingon Strike Force (D7C, two D7, F5S)
and the D6 moved into the Kzinti Border Guard's hex 1105 (`tests.engine.fe_battle`), a
battle both sides survive for several rounds at low intensity. The real F&E ruleset is
used; only its starting position is that board (`PlacedFe`), so every packet below is
signed, chained and checked by the core as in a real game.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec
import pytest

from engine.core.errors import IllegalOrder, OutOfTurn, PacketError
from engine.core.ruleset import DecisionKind
from engine.core.turn_orders import Back, Done, Standing
from engine.fe.orders import PolicyOrder
from engine.fe.steps import combat
from tests.engine.fe_battle import PlacedFe, large_board, play_battle, policy, rules
from tests.engine.table import Table

SEATS = ["coalition", "alliance"]

EVERYTHING = PolicyOrder(
    flagship="auto", force="auto", bir=1, ew="default", allocate="suggested", retreat=0
)


def play_round_trip(table: Table, policies: Mapping[str, PolicyOrder], rounds: int) -> list[Any]:
    """Walk the game with ``done`` until the first battle has fought ``rounds`` rounds; each
    seat signs its policy (and a standing order for phase 5) in its first packet. Returns,
    per packet written during the battle, (round being fought, seat, decision kind)."""
    signed: set[str] = set()
    during: list[Any] = []
    for _ in range(2000):
        record = combat.current(rules(table))
        if record is not None and record.hex == 1105 and record.rounds >= rounds:
            return during
        seat, kind, _step = table.owed()
        if record is not None and record.hex == 1105:
            during.append((record.rounds + 1, seat, kind))
        if kind == DecisionKind.ENTROPY:
            table.entropy_only(seat)
            continue
        assert kind in (DecisionKind.ORDERS, DecisionKind.ACCEPT), (seat, kind, _step)
        extra: list[Any] = []
        if seat not in signed:
            signed.add(seat)
            extra = [Standing(["5"])]
            if seat in policies:
                extra.append(policies[seat])
        table.orders(seat, *extra, Done())
    raise AssertionError("the battle did not reach the rounds asked for")


@pytest.mark.parametrize(("version", "per_round"), [("5.0", 1), ("5.1", 0)])
def test_with_both_policies_later_rounds_cost_no_packet_from_5_1(
    version: str, per_round: int
) -> None:
    """Fought by policies on both sides, each round of a game begun under 5.0 costs one
    packet, the other seat's entropy (so that game replays as recorded); from 5.1 the rounds
    after the first cost none: their dice are read from the values that rolled the round
    before (`engine.core.rolls.follows_on`)."""
    ruleset = PlacedFe(version=version)
    table = Table(ruleset, "tutorial", ["coalition", "alliance"], label="policy")
    during = play_round_trip(table, {"coalition": EVERYTHING, "alliance": EVERYTHING}, 3)
    assert [kind for r, _seat, kind in during if r == 1][-1:] == [DecisionKind.ENTROPY]
    for number in (2, 3):
        packets = [(seat, kind) for r, seat, kind in during if r == number]
        assert len(packets) == per_round, packets
        assert all(kind == DecisionKind.ENTROPY for _seat, kind in packets)
    record = rules(table).battles[0]
    assert [log.round for log in record.log[:2]] == [1, 2]
    first = record.log[0]
    assert first.attacker.flagship == "KLI-0001" and first.attacker.bir == 1
    assert first.defender.flagship == "KZI-0001"
    assert first.defender.force[0] == "KZI-0001" and len(first.defender.force) == 5
    assert first.bir >= 0 and first.attacker.damage >= 0 and first.defender.damage >= 0
    assert first.attacker.resolved2 >= 0 and first.defender.resolved2 >= 0
    texts = [e.text for e in table.events if e.kind == "step-policy"]
    assert any(t.startswith("5-3X2") for t in texts)


def test_dice_of_a_policy_round_wait_for_the_other_seat_s_next_value() -> None:
    """Nobody is asked at the secret steps, so no reveal carries entropy: the round's dice are
    armed in the packet whose answer ran the sequence into them and rolled by the other
    seat's next packet; allocation waits for them."""
    table = Table(PlacedFe(), "tutorial", ["coalition", "alliance"], label="policy-dice")
    play_round_trip(table, {"coalition": EVERYTHING, "alliance": EVERYTHING}, 1)
    rolls = [e for e in table.events if e.kind == "roll"]
    armed = [e for e in table.events if e.kind == "roll-armed"]
    purposes = [e.data["purpose"] for e in rolls]
    assert purposes[:3] == [
        "variable BIR, 1105 round 1",
        "combat die, 1105 round 1, coalition",
        "combat die, 1105 round 1, alliance",
    ]
    assert len(armed) >= 3
    assert all(e.seat for e in armed[:3])  # armed by a seat's packet, not read at a reveal


def to_first_secret(table: Table) -> tuple[str, DecisionKind, str]:
    """Walk with ``done`` to the first secret step; only the alliance signs a policy (and
    both a standing order for phase 5) in its first packet. Returns what is owed there."""
    signed: set[str] = set()
    for _ in range(500):
        seat, kind, step = table.owed()
        if kind == DecisionKind.SECRET:
            return seat, kind, step
        extra: list[Any] = []
        if seat not in signed:
            signed.add(seat)
            extra = [Standing(["5"])] + ([EVERYTHING] if seat == "alliance" else [])
        table.orders(seat, *extra, Done())
    raise AssertionError("no secret step reached")


def test_one_side_with_a_policy_the_other_is_asked_alone_and_the_dice_still_wait() -> None:
    table = Table(PlacedFe(), "tutorial", ["coalition", "alliance"], label="policy-half")
    seat, kind, step = to_first_secret(table)
    # (from fe 5.10 the flagship is chosen with the force at 5-3E: `force_together`)
    assert (seat, kind, step) == ("coalition", DecisionKind.SECRET, "5-3E")
    table.commit("coalition", {"flagship": "KLI-0005", "units": ["KLI-0005"]}, reveal_now=True)
    assert rules(table).battles[0].log[0].defender.flagship == "KZI-0001"
    assert rules(table).battles[0].log[0].attacker.force == ("KLI-0005",)
    table.commit("coalition", 2, reveal_now=True)
    log = rules(table).battles[0].log[0]
    assert log.attacker.bir == 2 and log.defender.bir == 1
    assert log.bir == -1  # the variable die waits: the alliance revealed nothing
    assert table.owed()[:2] == ("alliance", DecisionKind.ENTROPY)
    table.entropy_only("alliance")
    assert rules(table).battles[0].log[0].bir >= 0


def test_a_policy_is_checked_and_cancelled_by_defaults() -> None:
    table = Table(PlacedFe(), "tutorial", ["coalition", "alliance"], label="policy-check")
    with pytest.raises(IllegalOrder, match=r"BIR is a pick from 1 to 4 .*not 0 \(304"):
        table.orders("coalition", PolicyOrder(bir=0))
    table.orders("coalition", EVERYTHING)
    assert rules(table).policies[0][0] == "coalition"
    table.orders("coalition", PolicyOrder())
    assert rules(table).policies == ()
    said = [e.text for e in table.events if e.kind == "policy"]
    assert said[0].startswith("coalition signs its combat policy: flagship auto, battle force")
    assert said[1] == "coalition cancels its combat policy: it will be asked every time"


def test_a_retreat_policy_announces_after_its_round() -> None:
    table = Table(PlacedFe(), "tutorial", ["coalition", "alliance"], label="policy-retreat")
    leaving = PolicyOrder(
        flagship="auto", force="auto", bir=1, ew="default", allocate="suggested", retreat=1
    )
    play_round_trip(table, {"coalition": leaving, "alliance": EVERYTHING}, 1)
    record = rules(table).battles[0]
    assert record.retreats == ("coalition",)
    assert record.resolved.startswith("coalition retreated after round 1")


@pytest.mark.parametrize(("version", "packets"), [("5.0", [1, 1, 1]), ("5.1", [1, 0, 0])])
def test_two_full_forces_fight_round_after_round_for_one_packet(
    version: str, packets: list[int]
) -> None:
    """The large board (carriers and fighters on both sides, each force over its command
    limit): with policies every round is one packet in a game begun under 5.0, and the
    whole battle one packet from 5.1; sent by hand the same choices cost 8 hand-offs a
    round after the first (the figures bench/combat.py prints; 10 before fe 5.10, where the
    flagship was committed and revealed at 5-3D before the force at 5-3E:
    `engine.fe.steps.force_together`; 12 before fe 5.8, where each side still committed to
    the carrier groups the first round had fixed: `engine.fe.steps.forced_choices`)."""
    both = {"coalition": policy(2), "alliance": policy(2)}
    ruleset = PlacedFe(large_board, version=version)
    table = Table(ruleset, "tutorial", ["coalition", "alliance"], label="large")
    played = play_battle(table, both, rounds=3)
    assert [len(played.rounds.get(n, [])) for n in (1, 2, 3)] == packets
    assert len(rules(table).battles[0].log) >= 3
    by_hand = Table(PlacedFe(large_board), "tutorial", ["coalition", "alliance"], label="hand")
    manual = play_battle(by_hand, both, rounds=3, by_hand=True)
    assert [manual.handoffs(n) for n in (2, 3)] == [8, 8]
    # Revealed by hand with standing orders in force, the round's damage is still allocated:
    # the steps after the reveal wait for the dice read from it.
    hand = rules(by_hand).battles[0].log[0]
    assert hand.attacker.damage > 0 and hand.defender.resolved2 == 2 * hand.attacker.damage
    first = rules(table).battles[0].log[0]
    assert len(first.attacker.force) == 11 and first.attacker.flagship == "KLI-9000"
    assert len(first.defender.force) == 10 and first.defender.flagship == "KZI-9000"


def test_a_seat_its_policy_answers_cannot_commit_a_choice_of_its_own() -> None:
    """A modified client whose seat's policy covers the step tries to commit anyway (to
    change its mind after reading the other side's reveal): the core refuses the packet whole,
    since only the seat asked owes the step."""
    table = Table(PlacedFe(), "tutorial", ["coalition", "alliance"], label="policy-forge")
    assert to_first_secret(table) == ("coalition", DecisionKind.SECRET, "5-3E")
    table.commit("coalition", {"flagship": "KLI-0005", "units": ["KLI-0005"]})  # not revealed
    assert table.owed()[:2] == ("coalition", DecisionKind.REVEAL)  # nobody else commits
    before = table.state
    with pytest.raises(OutOfTurn, match="coalition owes the next move"):
        table.commit("alliance", "KZI-0002", reveal_now=True)
    assert table.state is before
    table.reveal("coalition")
    assert table.owed() == ("coalition", DecisionKind.SECRET, "5-3X2")


def _at_an_orders_step_after_the_bir(table: Table) -> tuple[str, str]:
    """Walk, both sides signing `EVERYTHING` in their first packet, to the first step after
    the BIR step (5-3X2) that a seat owes orders at; returns (seat, step)."""
    signed: set[str] = set()
    for _ in range(400):
        seat, kind, step = table.owed()
        if kind == DecisionKind.ORDERS and step.startswith("5-3X") and step > "5-3X2":
            return seat, step
        if kind == DecisionKind.ENTROPY:
            table.entropy_only(seat)
            continue
        first = [EVERYTHING] if seat not in signed else []
        signed.add(seat)
        table.orders(seat, *first, Done())
    raise AssertionError("no orders step after the BIR step was reached")


def test_back_to_a_secret_step_every_policy_answers_is_refused_in_a_5_1_game() -> None:
    """``back 5-3X2`` once both sides' policies choose the BIR, in a game of fe 5.1, where
    ``back`` stops at the step it names: nobody would owe that step. The packet was signed
    and accepted, and every reading of the game failed after it (found by a hostile-orders
    run at seed 105). It is refused now, saying why, and going back to an earlier step of the
    round still works: the policies answer 5-3X2 on the way."""
    table = Table(PlacedFe(version="5.1"), "tutorial", SEATS, label="policy-back-5.1")
    seat, step = _at_an_orders_step_after_the_bir(table)
    before = table.state
    with pytest.raises(IllegalOrder, match=r"back 5-3X2: step 5-3X2 .* would wait for no seat"):
        table.orders(seat, Back("5-3X2"))
    assert table.state is before
    assert table.owed() == (seat, DecisionKind.ORDERS, step)
    table.orders(seat, Back("5-3"))
    assert table.owed()[2] != "5-3X2"
    assert any(e.kind == "back" for e in table.events)


def test_back_to_a_secret_step_every_policy_answers_goes_on_from_5_2() -> None:
    """From fe 5.2 ``back`` goes on from the step it names as the sequence does: the
    policies answer 5-3X2 and the round's dice are rolled (or armed), as in any round."""
    table = Table(PlacedFe(), "tutorial", SEATS, label="policy-back")
    seat, _step = _at_an_orders_step_after_the_bir(table)
    seen = len(table.events)
    table.orders(seat, Back("5-3X2"))
    texts = [e.text for e in table.events[seen:]]
    assert texts[0].startswith(f"{seat} went back from 5-3X")
    assert any(t.startswith("5-3X2") and "answered for the seats" in t for t in texts), texts
    assert table.owed()[1] == DecisionKind.ENTROPY  # the round's dice, as after any 5-3X2


def test_a_policy_outside_its_bounds_is_refused_when_decoded() -> None:
    """BIR 9 or a retreat after round 100 cannot even be decoded: the packet is refused whole."""
    table = Table(PlacedFe(), "tutorial", ["coalition", "alliance"], label="policy-bounds")
    before = table.state
    for wild in (PolicyOrder(bir=9), PolicyOrder(retreat=100)):
        with pytest.raises(PacketError):
            table.orders("coalition", wild)
        assert table.state is before


@pytest.mark.parametrize("version", ["5.0", "5.1"])
def test_a_pursuit_policy_pursues_with_every_ship_and_the_die_is_fair(version: str) -> None:
    """The coalition's policy retreats after round 1; the alliance's pursues always: at 5-8A
    the engine sends every Kzinti ship in 1105 after them and rolls the pursuit die (307.0).
    In a game begun under 5.0 the die is armed and rolled by the coalition's next packet,
    never by the seat that pursues; from 5.1 it is read from the values that rolled round 1,
    in the packet that completed them: both policies were signed before either value was
    sent (with the pursuit battle's dice, both policies making its set-up:
    `test_combat_pursuit`)."""
    leaving = policy(1, retreat=1)
    chasing = PolicyOrder(**{**msgspec.structs.asdict(policy(1)), "pursue": "always"})
    ruleset = PlacedFe(version=version)
    table = Table(ruleset, "tutorial", ["coalition", "alliance"], label="policy-pursue")
    play_battle(table, {"coalition": leaving, "alliance": chasing}, rounds=1)
    for _ in range(20):
        record = rules(table).battles[0]
        if record.pursuit in ("succeeded", "failed"):
            break
        seat, kind, _step = table.owed()
        if kind == DecisionKind.ENTROPY:
            table.entropy_only(seat)
        else:
            table.orders(seat, Done())
    record = rules(table).battles[0]
    assert record.retreated and record.retreated[0][0] == "coalition"
    assert record.pursuers == ("KZI-0001", "KZI-0002", "KZI-0003", "KZI-0004", "KZI-0005")
    assert 1 <= record.pursuit_die <= 6

    def packet_of(kind: str) -> int:
        (found,) = [
            i
            for i, result in enumerate(table.results)
            for e in result.events
            if e.kind == kind and "for pursuit," in e.text
        ]
        return found

    rolled = packet_of("roll")
    if version == "5.0":
        armed = packet_of("roll-armed")
        assert armed < rolled  # armed in one packet, rolled by a later one of the other seat
        assert table.packets[armed].body.seat != table.packets[rolled].body.seat
    else:
        round_dice = {
            i for i, result in enumerate(table.results) for e in result.events
            if e.kind == "roll" and e.text.startswith("alliance rolled 1d6 for combat die, 1105")
        }  # fmt: skip
        assert round_dice == {rolled}  # with the round's dice, which the alliance armed
        assert table.packets[rolled].body.seat == "coalition"
        assert not any("for pursuit," in e.text for e in table.events if e.kind == "roll-armed")
    assert next(e.text for e in table.events if e.kind == "pursuit").startswith(
        "alliance pursues coalition's retreat from 1105 with 5 ships"
    )
