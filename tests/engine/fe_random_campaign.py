"""The Wind played on from its set-up with random choices, through the real protocol core.

The golden games follow one script; the engine's caches carry views from board to board
along whatever a player does, so the tests that check those views against a fresh reading
(`tests/engine/fe/test_random_campaign.py`) need games that go elsewhere. Each player turn
of a seed's game:

- 2B3: the phasing empires build a random number of the golden campaign's builds
  (`tests.engine.fe_campaign.builds`: the schedule's slots at the capitals), or none;
- 3B2: one to three movement batches, each of up to a dozen stacks: a random part of the
  seat's movable units in a random hex, sent toward a random hex of the map along the
  shortest path, cut back until the engine accepts it (stacks it refuses are left);
- 3B3: the other side reacts, four times in five, with up to three of the units the engine
  says may react, each toward a hex the batch entered (as far as the engine accepts);
- battles: each side retreats at its option or fights on at random, with a random
  intensity (BIR 1 to 4); the damage is allocated as the engine suggests;
- 8A: the off-map fleets due come on (`tests.engine.fe_campaign.arrive`);
- the rest is walked with ``done``, as the scripted games walk it; or, in a wandering
  game (``wander``), step by step, with orders of each step's own types drawn from the board
  half the time (`tests.engine.fe_random_orders`: repairs, conversions, supply missions,
  withdrawals, approach battles, captures, pursuits...), and a pursuit battle's damage
  allocated as the engine suggests;
- in a game with ``policies``, now and then a seat signs a combat policy of random fields
  (`random_policy`: each one set or left to ask), and sometimes a standing order for the
  combat phase, with its run of ``done``: rounds where the policies answer for one side and
  the other is asked, as players mix them.

Everything is drawn from `random.Random(seed)`, so a seed's game is the same packets each
time it is played.
"""

from __future__ import annotations

import random
from typing import Any

from engine.core import author, hexgrid
from engine.core.errors import HexpostError
from engine.core.owed import pending
from engine.core.packets import Turn
from engine.core.ruleset import Decision, DecisionKind
from engine.core.turn_orders import Done, Standing
from engine.fe import FE, RULESET
from engine.fe.forces import OFF_MAP
from engine.fe.galaxy import Galaxy, HexId, load_galaxy
from engine.fe.model import FeState
from engine.fe.orders import Batch, MoveOrder, PolicyOrder, React
from engine.fe.steps import (
    base,
    combat,
    combat_damage,
    combat_policy,
    combat_round,
    planet_policy,
    pursuit_round,
)
from engine.fe.steps.reactors import reactors
from tests.engine.fe_campaign import arrive, builds
from tests.engine.fe_play import (
    ATTACKER_RETREAT_STEP,
    RETREAT_STEP,
    battle_step,
    plain_run,
    secret_choice,
    set_up,
    then_done,
)
from tests.engine.fe_random_orders import WANDER_STEPS, accepted, plausible_orders
from tests.engine.fe_wind import SEATS, hexes, owed_step, rules
from tests.engine.table import Table

MOVE_STEP = "3B2"
REACTION_STEP = "3B3"
MOST_STACKS = 12
"""Stacks tried per movement batch, at most."""
WANDER = 0.5
"""How often a wandering campaign tries orders of a step's own types at a step it owes."""
PURSUIT_STEPS = (pursuit_round.PURSUER_STEP, pursuit_round.PURSUED_STEP)
"""Where the sides allocate a pursuit battle's damage (a random campaign's pursuits only)."""
LONGEST_PATH = 8
"""Hexes of a tried path, at most (the start included): longer paths are cut back anyway."""
COMBAT_PHASE = "5"
SIGNING = 0.15
"""How often a seat of a game with ``policies`` signs a new combat policy with a run of
``done`` (a policy with every field left to ask cancels the one in force)."""


def random_policy(rng: random.Random) -> PolicyOrder:
    """A combat policy whose fields are each set, at random, or left to ask (half the time)."""

    def pick(default: Any, *values: Any) -> Any:
        return rng.choice(values) if rng.random() < 0.5 else default

    return PolicyOrder(
        flagship=pick("", "auto"),
        force=pick("", "auto"),
        bir=pick(-1, 1, 2, 3, 4),
        ew=pick("", "default"),
        allocate=pick("", "suggested"),
        retreat=pick(-1, 0, 1, 2, 3),
        pursue=pick("", "always", "never"),
        offer=pick("", "always", "never"),
        approach=pick("", "accept", "refuse"),
        capture=pick("", "never"),
        direct=pick("", "never"),
        planet=pick("", "capture", "devastate"),
    )


def random_moves(rng: random.Random, state: FeState, seat: str) -> list[MoveOrder]:
    """A batch of move orders the engine accepts one after the other from ``state``."""
    galaxy = load_galaxy()
    empires = set(base.empires_of(state, seat))
    orders: list[MoveOrder] = []
    for _ in range(rng.randint(0, MOST_STACKS)):
        movable = [
            u
            for u in state.board.units
            if u.hex != OFF_MAP and u.empire in empires and u.info().move > 0
        ]
        if not movable:
            break
        first = rng.choice(movable)
        here = [u for u in state.board.at(first.hex) if u.empire in empires and u.info().move > 0]
        stack = [u.id for u in rng.sample(here, rng.randint(1, len(here)))]
        target = rng.choice(galaxy.hexes).hex
        route = hexgrid.path(first.hex, target, galaxy.width, galaxy.height)
        if route is None:
            continue
        for end in range(min(len(route), LONGEST_PATH), 1, -1):
            order = MoveOrder(stack, hexes(route[:end]))
            after = accepted(state, seat, order)
            if after is not None:
                orders.append(order)
                state = after
                break
    return orders


def random_reactions(rng: random.Random, state: FeState, seat: str) -> list[React]:
    """Up to three reactions the engine accepts one after the other from ``state``: each a
    random unit of those that may react, toward the nearest hexes the batch entered."""
    galaxy = load_galaxy()
    orders: list[React] = []
    for _ in range(rng.randint(1, 3)):
        able = reactors(state)
        if not able or not state.batch:
            break
        unit = state.board.unit(rng.choice(able))
        entered = sorted({to for _, to in state.batch}, key=lambda h: hexgrid.distance(unit.hex, h))
        order = _first_reaction(state, seat, unit.id, unit.hex, entered[:3], galaxy)
        if order is not None:
            orders.append(order)
            after = accepted(state, seat, order)
            assert after is not None
            state = after
    return orders


def _first_reaction(
    state: FeState, seat: str, unit_id: str, start: HexId, triggers: list[HexId], galaxy: Galaxy
) -> React | None:
    """The first reaction the engine accepts of ``unit_id`` toward one of ``triggers``, as
    far along the shortest path as it lets the unit go."""
    for trigger in triggers:
        route = hexgrid.path(start, trigger, galaxy.width, galaxy.height)
        if route is None:
            continue
        for end in range(len(route), 1, -1):
            order = React([unit_id], hexes(route[:end]), f"{trigger:04d}")
            if not RULESET.validate(state, seat, order):
                return order
    return None


def _allocation_owed(state: FeState, seat: str, step: str) -> bool:
    """Whether ``seat`` owes the allocation of a battle round's damage now (the campaign
    allocates as the engine suggests, `battle_step`)."""
    return step in combat_damage.ALLOCATION_STEPS and bool(combat_damage.finish(state, seat))


def _wander(table: Table, seat: str, rng: random.Random) -> bool:
    """Half the time, send orders of the current step's own types drawn from the board
    (`plausible_orders`) and ``done``; or, where one of them asks for a roll first (a
    capture, a pursuit: the packet ends there), those up to it. Whether a packet was sent."""
    assert table.state is not None and table.state.rules is not None
    if rng.random() >= WANDER:
        return False
    drawn = plausible_orders(rng, table.state.rules, seat)
    if not drawn:
        return False
    for orders in ([*drawn, Done()], *(drawn[:end] for end in range(len(drawn), 0, -1))):
        if _takes(table, seat, orders):
            table.orders(seat, *orders)
            return True
    return False


def _wandering(table: Table, seat: str, rng: random.Random, orders: list[Any]) -> list[Any]:
    """``orders`` after orders of the current step's own types drawn from the board, half
    the time, if the engine takes them all in one packet; else ``orders`` alone."""
    assert table.state is not None and table.state.rules is not None
    if rng.random() >= WANDER:
        return orders
    drawn = plausible_orders(rng, table.state.rules, seat)
    return [*drawn, *orders] if drawn and _takes(table, seat, [*drawn, *orders]) else orders


def _takes(table: Table, seat: str, orders: list[Any]) -> bool:
    """Whether the engine takes ``orders`` from ``seat`` as its next packet."""
    body = table.body(seat, Turn(RULESET.encode_orders(orders)))
    try:
        author.draft(RULESET, table.state, body, table.players[seat].public)
    except HexpostError:
        return False
    return True


def _signing(table: Table, seat: str, rng: random.Random, orders: list[Any]) -> list[Any]:
    """Now and then (`SIGNING`) a new random combat policy, half the time with a standing
    order for the combat phase's routine steps (or one cancelling it), in a packet of its
    own instead of ``orders`` (the ``done`` run was counted without it: a policy answering
    steps on the way would carry the run past where it was meant to stop); else ``orders``."""
    if rng.random() >= SIGNING:
        return orders
    signed: list[Any] = [random_policy(rng)]
    if rng.random() < 0.5:  # the combat phase's routine steps too, or none of them
        signed.append(Standing([COMBAT_PHASE] if rng.random() < 0.7 else []))
    return signed if _takes(table, seat, signed) else orders


def _allocate(table: Table, seat: str, state: FeState) -> None:
    """The engine's suggested allocation, with ``done`` only if the seat still owes the same
    step after it. With standing orders the allocation's packet plays on until the rules want
    the seat again, and a ``done`` then answers that step: a retreat option left to the seat
    by a stalled battle (`combat_policy.stalled`) was so answered "stay" round after round
    without the walker ever seeing it."""
    order = combat_damage.suggested(state, seat)
    assert order is not None
    body = table.body(seat, Turn(RULESET.encode_orders([order])))
    after = author.draft(RULESET, table.state, body, table.players[seat].public).state
    owed = pending(RULESET, after) if after is not None else []
    if owed and (owed[0].seats[0], owed[0].step) == (seat, _decision(table).step):
        then_done(table, seat, order)
    else:
        table.orders(seat, order)


def _takes_planet(table: Table, seat: str) -> bool:
    """Where a battle is left to ``seat`` because the enemy has nothing left but its planet
    (`combat_policy.stalled`), the seat captures it with an adjustment (508.2), as the
    event suggests, and ends its step: a player does not stay there round after round. (Before,
    a walker that could not retreat stayed until a seat's entropy chain ran out.)"""
    state = rules(table)
    if not combat_policy.stalled(state):
        return False
    taken = planet_policy.planet_adjustment(state, seat, "capture", "undefended")
    if taken is None or not _takes(table, seat, [taken, Done()]):
        return False
    table.orders(seat, taken, Done())
    return True


def _decision(table: Table) -> Decision:
    """The decision the game waits for."""
    assert table.state is not None
    return pending(RULESET, table.state)[0]


def _wander_run(state: FeState, seat: str, target: str) -> int:
    """The ``done`` orders ``seat`` can give before the next step of its run that takes
    orders `plausible_orders` draws (at least one: the current step)."""
    run = FE.own_run(state, seat, target)
    later = [i for i, step in enumerate(run) if i and step in WANDER_STEPS]
    return later[0] if later else len(run)


def walk_to(
    table: Table, target: str, rng: random.Random, wander: bool = False, policies: bool = False
) -> None:
    """Every seat completes its steps until ``target`` is owed, with random choices where
    the scripts always do the same: reactions at a reaction window, a retreat taken or the
    battle fought on, and the intensity of each battle round; ``wander``: step by step, with
    orders of each step's own types drawn from the board (`_wander`); ``policies``: now and
    then a random combat policy signed with a run of ``done`` (`_signing`)."""
    for _ in range(20_000):
        seat, step, kind = owed_step(table)
        if step == target and kind in (DecisionKind.ORDERS, DecisionKind.SECRET):
            return
        state = rules(table)
        in_battle = combat.current(state) is not None
        if kind == DecisionKind.SECRET:
            choice = secret_choice(table, seat, step, f"{seat}: plan {rng.randrange(100)}")
            if in_battle and step == combat_round.BIR_STEP:
                choice = rng.randint(1, 4)
            elif RULESET.validate_secret(state, _decision(table), seat, choice):
                choice = rng.randint(1, 4)  # a BIR the step asks for (a pursuit's, 5-8D)
            table.commit(seat, choice)
        elif kind == DecisionKind.REVEAL:
            table.reveal(seat)
        elif kind == DecisionKind.ENTROPY:
            table.entropy_only(seat)
        elif (
            in_battle
            and step in (RETREAT_STEP, ATTACKER_RETREAT_STEP)
            and _takes_planet(table, seat)
        ):
            pass  # a stalled battle at a planet: taken (508.2), as the engine's event says
        elif in_battle and step in (RETREAT_STEP, ATTACKER_RETREAT_STEP) and rng.random() < 0.6:
            table.orders(seat, Done())  # no retreat: the battle goes on
        elif step == REACTION_STEP and rng.random() < 0.8:
            table.orders(seat, *random_reactions(rng, state, seat), Done())
        elif wander and not _allocation_owed(state, seat, step) and _wander(table, seat, rng):
            pass  # orders of the step's own types, drawn from the board
        elif step in PURSUIT_STEPS and (allocation := combat_damage.suggested(state, seat)):
            then_done(table, seat, allocation)  # a pursuit battle's damage (307.4)
        elif policies and _allocation_owed(state, seat, step):
            _allocate(table, seat, state)
        elif not battle_step(table, seat, step):
            count = plain_run(state, seat, target)
            if wander:  # each step that takes orders drawn from the board is reached alone
                count = min(count, _wander_run(state, seat, target))
            assert count, f"{seat} is stuck at {step} on the way to {target}"
            dones: list[Any] = [Done() for _ in range(count)]
            table.orders(seat, *(_signing(table, seat, rng, dones) if policies else dones))
    raise AssertionError(f"never reached {target}")


def player_turn(
    table: Table, seat: str, rng: random.Random, wander: bool = False, policies: bool = False
) -> None:
    """One player turn of ``seat``: random builds, batches of random moves, the arrivals."""
    walk_to(table, "2B3", rng, wander, policies)
    scheduled = builds(table, seat)
    chosen = scheduled[: rng.randint(1, len(scheduled))] if scheduled and rng.random() < 0.8 else []
    if wander:  # conversions and command points at 2B3 too
        table.orders(seat, *_wandering(table, seat, rng, [*chosen, Done()]))
    else:
        table.orders(seat, *chosen, Done())
    walk_to(table, MOVE_STEP, rng, wander, policies)
    for batch in range(rng.randint(1, 3)):
        if batch:
            # past the other side's reaction window
            walk_to(table, MOVE_STEP, rng, wander, policies)
            owed_seat, step, _ = owed_step(table)
            if (owed_seat, step) != (seat, MOVE_STEP):
                break
        moves = random_moves(rng, rules(table), seat)
        last = not moves or batch == 2 or rng.random() < 0.25
        table.orders(seat, *moves, Done() if last else Batch())
        if last:
            break
    walk_to(table, "8A", rng, wander, policies)
    if wander:  # strategic movement of the units on the map too
        table.orders(seat, *_wandering(table, seat, rng, [*arrive(table, seat), Done()]))
    else:
        table.orders(seat, *arrive(table, seat), Done())


def play_random_campaign(
    seed: int, turns: int, *, wander: bool = False, policies: bool = False
) -> Table:
    """The Wind set up and played for ``turns`` turns (both player turns) with ``seed``;
    ``wander``: at many steps, orders of the step's own types drawn from the board
    (`tests.engine.fe_random_orders`) as well; ``policies``: random combat policies signed
    now and then (`random_policy`)."""
    rng = random.Random(seed)
    table = Table(RULESET, "the-wind", SEATS, label=f"random-campaign-{seed}")
    set_up(table)
    for _ in range(turns):
        for seat in SEATS:
            player_turn(table, seat, rng, wander, policies)
    return table
