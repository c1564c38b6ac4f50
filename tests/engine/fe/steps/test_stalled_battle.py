"""A battle the policies would fight for ever: the homes would mail each other without end.

Found by the random campaigns with policies (`tests.engine.fe_random_campaign`): Kzinti
ships sat in the hex of a Klingon minor planet without defence units. A planet fights for
its owner, with or without PDUs (508.0), and the battle goes on until one side retreats
(302.9, 302.741); the planet cannot retreat and takes no damage, so the battle never ends
unless the ships leave. With both sides' policies answering every step (the ships' policy
never retreating), each round's dice are read from the values of the last and every packet
is the other home's automatic reply: the two homes mailed each other round after round with
no one asked, until a seat's entropy chain ran out (4,096 packets) and the game could not go
on at all. Two ships that cannot hurt each other, both policies never retreating, do the same.

From F&E 5.6 (`combat_policy.STALLED_ROUNDS`) a policy does not answer "stay" at a retreat
option after that many rounds in a row in which neither side lost anything: its seat is
asked, and decides whether the battle goes on (each round then costs that seat's packet).
"""

from __future__ import annotations

import msgspec

from engine.core.ruleset import DecisionKind
from engine.core.turn_orders import Done, Standing
from engine.fe import FE
from engine.fe.face import FACE
from engine.fe.forces import Unit
from engine.fe.model import FeState
from engine.fe.orders import Adjust, PolicyOrder
from engine.fe.policy_cover import policy_cover
from engine.fe.steps import base, combat, combat_policy
from tests.engine.fe.steps.tutorial_states import after_setup, placed
from tests.engine.fe_battle import PlacedFe, rules, small_board
from tests.engine.table import Table

PLANET_HEX = 1407
"""A Klingon minor planet of the tutorial's map, with no unit in it at set-up."""
EVERY_STEP = PolicyOrder(
    flagship="auto", force="auto", bir=1, ew="default", allocate="suggested", retreat=0,
    pursue="never", offer="never", approach="refuse", capture="never",
)  # fmt: skip
"""A policy answering every step of a round, never retreating."""


def at_the_planet() -> FeState:
    """The Kzinti Border Guard moved into the Klingon planet's hex."""
    return placed(after_setup(), {f"KZI-000{n}": PLANET_HEX for n in range(1, 6)})


def fought(version: str, packets: int, rounds: int = 0, policy: PolicyOrder = EVERY_STEP) -> Table:
    """Both seats sign ``policy`` (`EVERY_STEP` unless told) and a standing order for the
    combat phase, then answer whatever is owed (runs of ``done``, or an entropy value) for up
    to ``packets`` packets, stopping where a seat is asked at a retreat option (or the battle
    has fought ``rounds`` rounds). (In the coalition's player turn the planet's side
    attacks, has nothing that fights, and the battle ends after its first round; in the
    alliance's the ships attack the planet.)"""
    table = Table(PlacedFe(at_the_planet, version=version), "tutorial", ["coalition", "alliance"])
    signed: set[str] = set()
    for _ in range(packets):
        seat, kind, step = table.owed()
        record = combat.current(rules(table))
        if rounds and record is not None and record.rounds >= rounds:
            break
        if kind == DecisionKind.ENTROPY:
            table.entropy_only(seat)
            continue
        if record is not None and step in combat_policy.RETREAT_STEPS:
            break  # a seat is asked whether it retreats
        run = [Done() for _ in FE.own_run(rules(table), seat)] or [Done()]
        table.orders(seat, *([] if seat in signed else [Standing(["5"]), policy]), *run)
        signed.add(seat)
    return table


def test_before_5_6_the_policies_fight_the_planet_for_ever() -> None:
    """What a game begun before 5.6 keeps (it replays as recorded): every packet after the
    policies are signed is an automatic reply, and the rounds pile up."""
    table = fought("5.5", 120, rounds=300)
    record = combat.current(rules(table))
    assert record is not None and record.hex == PLANET_HEX
    assert record.rounds >= 300  # in a few dozen packets, each an automatic reply
    assert table.owed()[1] == DecisionKind.ENTROPY


def test_from_5_6_the_ships_are_asked_once_only_the_planet_is_left() -> None:
    table = fought("5.6", 120)
    record = combat.current(rules(table))
    assert record is not None and record.hex == PLANET_HEX and record.rounds == 0
    assert rules(table).turn == 1 and base.phasing(rules(table)) == "alliance"
    # The ships' seat (the planet has nothing that can retreat), told why and what it can do.
    assert table.owed() == ("alliance", DecisionKind.ORDERS, "5-7A2")
    (said,) = [e.text for e in table.events if e.data.get("stalled")]
    assert said.startswith("5-7A2 is left to alliance: coalition has nothing left in 1407 but")
    assert "capture or devastate it with an adjustment (508.2)" in said
    # Staying is the player's own choice, round by round: it is asked again after each.
    table.orders("alliance", Done())
    for _ in range(10):
        if table.owed()[1] != DecisionKind.ENTROPY:
            break
        table.entropy_only(table.owed()[0])
    assert table.owed() == ("alliance", DecisionKind.ORDERS, "5-7A2")
    again = combat.current(rules(table))
    assert again is not None and again.rounds == 1


def test_rounds_with_losses_are_answered_by_the_policies_to_the_end() -> None:
    """The tutorial's battle in 1105 (the Strike Force against the Border Guard, in the hex
    of a Kzinti minor planet): every round costs a side something, and the policies answer
    every retreat option; once the last Kzinti ship is gone only the planet is left, and the
    Klingons are asked."""
    table = Table(PlacedFe(small_board, version="5.6"), "tutorial", ["coalition", "alliance"])
    signed: set[str] = set()
    for _ in range(100):
        seat, kind, step = table.owed()
        if kind == DecisionKind.ENTROPY:
            table.entropy_only(seat)
            continue
        if combat.current(rules(table)) is not None and step in combat_policy.RETREAT_STEPS:
            break
        table.orders(seat, *([] if seat in signed else [Standing(["5"]), EVERY_STEP]), Done())
        signed.add(seat)
    assert table.owed() == ("coalition", DecisionKind.ORDERS, "5-7A2")
    record = combat.current(rules(table))
    assert record is not None and record.hex == 1105
    assert all(log.attacker.losses or log.defender.losses for log in record.log)
    assert not [u for u in rules(table).board.at(1105) if u.empire == "KZI"]


def with_rounds(state: FeState, *losses: tuple[str, ...]) -> FeState:
    """``state``'s battle with one round logged per item of ``losses`` (the attacker's), each
    a copy of its first round, and a Klingon D7 defending beside the planet."""
    record = combat.current(state)
    assert record is not None
    first = record.log[0]
    log = tuple(
        msgspec.structs.replace(
            first, round=n, attacker=msgspec.structs.replace(first.attacker, losses=lost)
        )
        for n, lost in enumerate(losses, start=1)
    )
    state = combat.replace_current(state, msgspec.structs.replace(record, log=log))
    return placed(state, {}, Unit("KLI-9001", "KLI", "D7", PLANET_HEX))


def test_three_rounds_in_a_row_without_a_loss_leave_the_retreat_options_to_the_seats() -> None:
    """Two sides that cannot hurt each other (here a D7 beside the planet, the rounds
    logged by hand): three rounds without a loss stall the battle, a loss in one does not."""
    state = rules(fought("5.6", 120))
    nothing: tuple[str, ...] = ()
    quiet = with_rounds(state, nothing, nothing, nothing)
    assert combat_policy.stalled(quiet).startswith("3 rounds in a row in 1407 without a loss")
    assert combat_policy.stalled(with_rounds(state, nothing, nothing)) == ""
    assert combat_policy.stalled(with_rounds(state, nothing, ("KZI-0001 crippled",), nothing)) == ""
    old = msgspec.structs.replace(quiet, version="5.5")
    assert combat_policy.stalled(old) == ""


def test_capturing_the_planet_where_the_seat_is_asked_ends_the_battle() -> None:
    """The way the event names: the ships' seat captures the planet with an adjustment at
    its retreat option (508.2), and nothing of the defender's is left to fight."""
    table = fought("5.6", 120)
    assert table.owed() == ("alliance", DecisionKind.ORDERS, "5-7A2")
    taken = Adjust(change="capture", hex=f"{PLANET_HEX:04d}", empire="KZI", reason="undefended")
    table.orders("alliance", taken, Done())
    record = rules(table).battles[0]
    assert record.resolved == "the defender has nothing left in 1407", record.resolved
    assert rules(table).board.owner(base.galaxy(), PLANET_HEX) == "KZI"


def test_the_checklist_does_not_mark_the_retreat_options_as_the_policy_s() -> None:
    """The checklist marks the steps a signed policy answers; in a stalled battle the
    retreat options are the seat's again, so they are not marked."""
    state = rules(fought("5.6", 120))
    assert combat_policy.stalled(state)
    cover = policy_cover(state)
    assert not set(combat_policy.RETREAT_STEPS) & set(cover), cover
    assert "5-6A" in cover  # the rest of the round stays the policies'


def test_the_adjust_order_offers_the_planet_s_capture_and_devastation_ready() -> None:
    """The event says to capture or devastate the planet with an adjustment; the order's
    menu has both ready for the seat asked, each one the engine accepts as it stands."""
    table = fought("5.6", 120)
    state = rules(table)
    assert table.owed() == ("alliance", DecisionKind.ORDERS, "5-7A2")
    (adjust,) = [c for c in FACE.choices(state, "alliance") if c.order == "adjust"]
    offered = {p.label: dict(p.values) for p in adjust.presets}
    assert offered == {
        f"capture the planet in {PLANET_HEX} (nothing defends it, 508.2)": {
            "change": "capture", "hex": str(PLANET_HEX), "empire": "KZI",
            "reason": "nothing defends it (508.2)",
        },
        f"devastate the planet in {PLANET_HEX} (508.2)": {
            "change": "devastate", "hex": str(PLANET_HEX), "reason": "nothing defends it (508.2)",
        },
    }  # fmt: skip
    for values in offered.values():
        assert not FE.validate(state, "alliance", Adjust(**values))
    for seat in ("coalition", "alliance"):  # before the battle: nothing ready
        before = FACE.choices(rules(fought("5.6", 1)), seat)
        assert all(c.presets == () for c in before if c.order == "adjust")
