"""A two-round battle of The Wind with a retreat and a pursuit, through the real protocol core.

Golden game `tests/golden/fe_battle.msgpack` (`tests.golden.regen`) is built from it, and
`tests/engine/fe/test_battle_golden.py` reads the battle back from the replayed packets. It
is the measure of issue 14: what one round costs in packets and hand-offs when the secret
choices are sent by hand, and what it costs with both sides' signed combat policies.

From The Wind's opening positions (the default set-up), turn 1:

- coalition: six ships of the Lyran Red Claw Fleet move from 0303 toward the Kzinti
  Count's Fleet and stop short of its base, in `TARGET` (0601); the Kzinti do not react.
- alliance: `RAIDERS` ships of the Count's Fleet leave 0701 (its BATS stays) and attack
  them, so the battle is fought without a base: the defender may retreat, and when it does,
  nothing it leaves behind keeps the battle going (302.741).

Phase 5, round 1 by hand: every step is answered by a packet of plain ``done``s as far as
the seat may go, each secret choice (5-3C groups, 5-3D flagship, 5-3E battle force, 5-3X2
BIR, 5-4A2 EW) is committed and revealed (the seat asked last commits and reveals in one
packet; the dice roll at the reveals), and each side types the allocation of the damage it
took (the engine's suggestion, 302.6); at 5-5B and 5-5C each side directs damage at one
enemy unit where its points buy it (the cheapest such order, 302.5) in a packet of that
order alone: from F&E 5.5 the step ends with it (the side has nothing left to direct), and
the frozen 5.4 game shows the ``done`` that cost before (`DIRECTED`). In its next packet
each seat signs its combat policy
(`POLICIES`) and standing orders for the combat steps (`STANDING`; the pursuer keeps 5-8
for itself). Round 2 is then the engine's: the policies choose, the dice are armed for the
next packet, the policies allocate; the defender's policy announces its retreat at 5-7A1
once two rounds are fought, and its ships move at 5-7A4 to the engine's pick of hex
(302.72). The attacker pursues at 5-8A with every ship it has in the hex, the core rolls the
pursuit die with the defender's next packet (307.0); both policies make the pursuit battle's
set-up (5-8D), so its dice are rolled with the pursuit die, and used only if the pursuit
succeeds: then the engine fights the pursuit round (307.4), the policies allocating and the
pursuer's ``done`` at 5-8E directing nothing (`engine.fe.steps.combat_pursuit`). The
recording stops when the combat phase is over.

Why the standing orders wait for round 1's allocation: with standing orders in force, the
packet that reveals 5-4A2 runs on through the rest of the round before the core applies the
dice read at that reveal, so the round passes with no damage (the allocation steps see
none). A round with every choice sent by hand therefore walks its steps with ``done``.

The script asserts the battle it means to play: two rounds fought, the defender's retreat,
the pursuit die.
"""

from __future__ import annotations

from typing import Any

from engine.core import author
from engine.core.owed import last_to_commit, pending
from engine.core.packets import Turn
from engine.core.ruleset import DecisionKind
from engine.core.turn_orders import Done, Standing
from engine.fe import RULESET
from engine.fe.galaxy import HexId
from engine.fe.model import FeState
from engine.fe.orders import DirectOrder, PolicyOrder, PursueOrder
from engine.fe.steps import combat, combat_damage, combat_directed, combat_policy, combat_retreat
from engine.fe.unit_kinds import is_ship
from tests.engine.fe_play import plain_run, set_up
from tests.engine.fe_wind import SEATS, march, owed_step, rules, units_at, walk_to
from tests.engine.table import Table

ATTACKER, DEFENDER = "alliance", "coalition"
TARGET: HexId = 601
"""Where the Lyrans stop, next to the Kzinti Count's Fleet in 0701 (no base in 0601)."""
LYRANS = 6
RAIDERS = 6
"""How many ships of each side move into the battle hex."""
ROUNDS = 2
POLICIES = {
    "alliance": PolicyOrder(
        flagship="auto", force="auto", bir=1, ew="default", allocate="suggested", retreat=0
    ),
    "coalition": PolicyOrder(
        flagship="auto", force="auto", bir=1, ew="default", allocate="suggested", retreat=ROUNDS
    ),
}
"""The policies signed after the round-1 allocations: the lowest BIR (304.1) so both forces
outlive the first rounds; the Lyrans retreat once two rounds are fought, the Kzinti never."""
STANDING = {
    DEFENDER: ["5"],
    ATTACKER: ["5-1", "5-2", "5-3", "5-3X", "5-4", "5-5", "5-6", "5-6X", "5-7"],
}
"""Each seat's standing order for the combat phase: the pursuer keeps 5-8 (pursuit) for
itself, since a standing ``done`` there would let the enemy go."""
COMBAT_PHASE = "5"
LABEL = "fe-battle-4"
"""The table's label: it derives every key and entropy chain, so it decides the dice (this
one makes the pursuit succeed, so the golden game shows the pursuit battle, 307.4; from fe
5.10, whose joined battle-force choice changed the packets, "fe-battle-3"'s pursuit fails)."""
ALLOCATED, SIGNED = 1, 2
"""How far a seat is: it typed its round-1 allocation; it signed its policy."""


def play_battle_golden(label: str = LABEL, *, check: bool = True) -> Table:
    """The battle of the module notes; ``check`` asserts it was that battle (`check_battle`),
    which only the current version's dice make (the frozen 5.4 game's differ: no pursuit)."""
    table = Table(RULESET, "the-wind", SEATS, label=label)
    set_up(table)
    walk_to(table, "3B2")  # turn 1, coalition
    lyrans = units_at(table, "LYR", "Red Claw Fleet")[:LYRANS]
    move = march(table, DEFENDER, lyrans, TARGET)
    assert move.path[-1] == f"{TARGET:04d}", move
    table.orders(DEFENDER, move, Done())
    walk_to(table, "3B2")  # turn 1, alliance
    assert owed_step(table)[0] == ATTACKER
    count = [u for u in units_at(table, "KZI", "Count's Fleet") if u.info().move > 0]
    raid = march(table, ATTACKER, count[:RAIDERS], TARGET)
    assert raid.path[-1] == f"{TARGET:04d}", raid
    table.orders(ATTACKER, raid, Done())
    fight(table)
    if check:
        check_battle(table, [u.id for u in lyrans])
    return table


def check_battle(table: Table, lyrans: list[str]) -> None:
    """The battle the script means to play: exactly two rounds in `TARGET`, the Lyrans gone
    from it after round 2, the pursuit die rolled."""
    state = rules(table)
    assert [b.hex for b in state.battles] == [TARGET], state.battles
    record = state.battles[0]
    fought = [log for log in record.log if not log.pursuit]
    assert record.rounds == ROUNDS == len(fought), record
    assert record.retreated and record.retreated[0][0] == DEFENDER, record.retreated
    assert record.pursuers and 1 <= record.pursuit_die <= 6, record
    where = {u.id: u.hex for u in state.board.units if u.id in lyrans}
    assert where and all(h == record.retreated[0][1] for h in where.values()), where


def fight(table: Table) -> None:
    """Play on from the alliance's movement to the end of its combat phase (see the module
    notes)."""
    signed: dict[str, int] = {}
    reached = False
    for _ in range(2000):
        state = rules(table)
        seat, step, kind = owed_step(table)
        in_combat = step.startswith(COMBAT_PHASE + "-")
        if reached and not in_combat:
            return
        reached = reached or in_combat
        if kind == DecisionKind.ENTROPY:
            table.entropy_only(seat)
        elif kind == DecisionKind.SECRET:
            assert table.state is not None
            last = last_to_commit(table.ruleset, table.state, seat)
            table.commit(seat, _secret(table, seat, step), reveal_now=last)
        elif kind == DecisionKind.REVEAL:
            table.reveal(seat)
        elif not in_combat:
            table.orders(seat, *[Done() for _ in range(max(plain_run(state, seat), 1))])
        else:
            table.orders(seat, *_combat_orders(table, seat, step, signed))
    raise AssertionError("the combat phase never ended")


def _secret(table: Table, seat: str, step: str) -> object:
    """What ``seat`` commits by hand: in the battle, the choice its policy would make (so the
    round by hand and the rounds by policy fight alike); elsewhere words."""
    state = rules(table)
    if combat.current(state) is None or step not in combat_policy.POLICY_STEPS:
        return f"{seat}: nothing at {step}"
    return combat_policy.choice(state, step, seat, POLICIES[seat])


def _combat_orders(table: Table, seat: str, step: str, signed: dict[str, int]) -> list[Any]:
    """``seat``'s orders at a combat step: round 1 walked with plain ``done``s and a typed
    allocation; in the seat's next packet after it, its policy and standing orders; at 5-8A
    the pursuer pursues with every ship it has in the hex."""
    state = rules(table)
    record = combat.current(state)
    stage = signed.get(seat, 0)
    if stage < ALLOCATED and step[:3] in ("5-6", "5-7") and step not in ALLOCATION:
        # Round 1's allocations are behind and none of its damage was the seat's to
        # allocate (the enemy directed it all): it signs now all the same.
        stage = signed[seat] = ALLOCATED
    orders: list[Any] = []
    direct = _cheapest_direct(state, seat) if step in DIRECTED and stage < ALLOCATED else None
    if direct is not None:
        return [direct]  # (alone: see the module notes)
    if step in combat_damage.ALLOCATION_STEPS and combat_damage.finish(state, seat):
        order = combat_damage.suggested(state, seat)
        assert order is not None
        orders.append(order)
        signed[seat] = max(stage, ALLOCATED)
    elif step == combat_retreat.PURSUIT_STEP and record is not None and not record.pursuit:
        stayed = [u.id for u in state.board.at(record.hex) if u.empire == "KZI" and is_ship(u)]
        return [PursueOrder(units=stayed)]
    elif stage == ALLOCATED:
        signed[seat] = SIGNED
        orders += [POLICIES[seat], Standing(STANDING[seat])]
    elif stage < ALLOCATED:
        return [Done() for _ in range(max(plain_run(state, seat), 1))]
    if not orders:
        return [Done() for _ in range(max(plain_run(state, seat), 1))]
    if _still_owed(table, seat, orders):
        orders.append(Done())
    return orders


DIRECTED = combat_directed.DIRECTED_STEPS
ALLOCATION = combat_damage.ALLOCATION_STEPS


def _cheapest_direct(state: FeState, seat: str) -> DirectOrder | None:
    """The cheapest directed attack ``seat``'s points buy now, if any (the unit first in the
    enemy's order among equals); None once it made its one attack of the round."""
    best: tuple[int, DirectOrder] | None = None
    for unit in combat_directed.target_ids(state, seat):
        for destroy in (False, True):
            order = DirectOrder(unit=unit, destroy=destroy)
            quoted = combat_directed.quote(state, seat, order)
            if quoted is not None and (best is None or quoted[0] < best[0]):
                best = (quoted[0], order)
    return None if best is None else best[1]


def _still_owed(table: Table, seat: str, orders: list[Any]) -> bool:
    """Whether ``seat`` still owes orders after ``orders`` (a standing order may have
    completed its step and more)."""
    if not orders:
        return True
    probe = table.body(seat, Turn(RULESET.encode_orders(orders)))
    after = author.draft(RULESET, table.state, probe, table.players[seat].public).state
    decision = pending(RULESET, after)[0]
    return decision.kind == DecisionKind.ORDERS and seat in decision.seats
