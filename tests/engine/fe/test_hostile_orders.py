"""A modified client's orders: well formed, signed, and wrong in every way it can think of.

The packet decoder's own fuzzing (`tests/engine/test_fuzz.py`, `test_orders.py`) stops at
orders that parse. Here orders that parse, of every F&E order type, with fields drawn from
what a hostile client would try (unit ids of its own and of the enemy, ids that do not
exist, hexes next to its units and off the map, sizes and amounts out of range, step names
of other phases), are sent in packets at many states of a random campaign
(`tests.engine.fe_random_campaign`: set-up, builds, movement, reaction windows, battles,
the end of turn; and a wandering one's, which also waits where captures, pursuits and
withdrawals are ordered), by the seat that owes a decision and sometimes by the other one.

Each packet must either apply or be refused with one of the project's errors, whose message
is one line that says which order was wrong: never another exception (a crash for one
player is a game stopped for both), and never a packet half applied (the state is a frozen
value, and a refused packet hands none back).

And the work one packet costs is bounded by its size: packets filled with the largest
orders the engine accepts over and over (standing orders of 400 names, combat policies
where a reaction window or a battle re-reads the board after every order, notes, battle
lists, units placed by adjustment) make at most `CALLS_PER_BYTE` function calls per byte of
orders, counted (not timed), and four times the orders make about four times the calls.
Before this was checked, a 1 MiB packet of standing orders took two minutes to apply, and
one of policies at a reaction window eight seconds. (Calls do not see work done in C: a
packet of placements copied the board's units once per order, which no count here shows;
they are now placed as one run, `engine.fe.steps.adjust.apply_place_run`.)
"""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest

from engine.core import author
from engine.core.errors import HexpostError, IllegalOrder
from engine.core.owed import pending
from engine.core.packets import Turn
from engine.core.state import AnyState
from engine.core.turn_orders import Done, Note, Standing
from engine.fe import RULESET, flow
from engine.fe import orders as fe_orders
from engine.fe.forces import OFF_MAP
from engine.fe.model import FeState
from engine.fe.orders import Adjust, BattlesOrder, PolicyOrder, ReactionOrder
from engine.fe.sequence import load_sequence
from engine.fe.steps import base
from tests.call_count import counted
from tests.engine.fe_random_campaign import play_random_campaign
from tests.engine.table import Table

SEED = 11
"""The random game attacked (8 until fe 5.10, whose joined battle-force choice changed its
course: it no longer reached 5-2A2, where a packet of policies is timed)."""
PER_STEP = 2
"""States of the game tried at each step it waited at after the set-up: the first and the
last time it did (the step's own orders are checked only there)."""
PACKETS_PER_STATE = 40

ORDER_TYPES: tuple[type[Any], ...] = fe_orders.Order.__args__
STEPS = ("1A1", "2B3", "3B2", "3B3", "4A", "5-1A", "5-3X2", "5-7A1", "6B", "8A", "10D", "", "z")
COMBAT_STEPS = tuple(s.id for s in load_sequence().main if s.phase == "5")
"""Every step of the combat phase, half the steps a ``back`` names: going back to one the
policies answer once left the game waiting for no seat."""
CLASSES = ("CA", "FF", "SB", "DN", "F5", "D7", "KZI:CL", "FRD", "PDU", "", "X" * 40)
COUNTS = (0, 1, 2, -1, 20, 100, 10**6, 2**31, 2**63)
AMOUNTS = ("0", "1", "0.5", "-1", "999999", "1.25", "abc", "")
EMPIRES = ("", "FED", "KLI", "LYR", "KZI", "HYD", "ROM", "ZZZ")
FAR_HEXES = ("0000", "9999", "6119", "0101", "6120", "0120")
CHANCE = {"stack": 0.15, "fleet": 0.15, "only": 0.15, "instead_of": 0.2, "units": 0.9, "path": 0.9}
"""How often an optional field is set (others: 0.6): seldom those that change what an order
means (a move naming a stack or fleet as well as units is refused at once), mostly a move's
units and path (without them it is refused before its units are looked up)."""
ADJUSTMENTS = ("treasury", "cripple", "repair", "destroy", "move", "place", "capture", "recover")


class HostileClient:
    """Draws field values for orders at one state."""

    def __init__(self, rng: random.Random, state: FeState) -> None:
        self.rng = rng
        step = flow.current(state)
        taken = set(step.orders if step is not None else ())
        self.step_types = [t for t in ORDER_TYPES if t.__struct_config__.tag in taken]
        self.ids = [u.id for u in state.board.units]
        self.hexes = sorted({u.hex for u in state.board.units if u.hex != OFF_MAP})

    def hex(self) -> str:
        rng = self.rng
        if self.hexes and rng.random() < 0.7:
            near = rng.choice(self.hexes) + rng.choice((0, 0, 1, -1, 100, -100, 101, 99))
            return f"{near:04d}" if 0 <= near <= 9999 else "0000"
        return rng.choice(FAR_HEXES)

    def unit(self) -> str:
        if self.ids and self.rng.random() < 0.85:
            return self.rng.choice(self.ids)
        return self.rng.choice(("FED-9999", "", "KLI-0001", "x" * 40, "LYR-0000"))

    def value(self, field: str) -> object:
        rng = self.rng
        if field in ("units", "only"):
            return [self.unit() for _ in range(rng.randint(0, 5))]
        if field == "path":
            return [self.hex() for _ in range(rng.choice((0, 1, 2, 2, 2, 3, 4, 7)))]
        if field == "hexes":
            return [self.hex() for _ in range(rng.randint(0, 4))]
        if field in ("hex", "to", "trigger"):
            return self.hex()
        if field == "stack":
            return self.hex() if rng.random() < 0.5 else ""
        if field in ("unit", "by"):
            return self.unit()
        if field in ("cls", "instead_of"):
            return rng.choice(CLASSES)
        if field in ("empire", "enemy"):
            return rng.choice(EMPIRES)
        if field in ("count", "pfs"):
            return rng.choice(COUNTS)
        if field in ("fighters", "ep"):
            return rng.choice(AMOUNTS)
        if field == "step":
            return rng.choice(COMBAT_STEPS if rng.random() < 0.5 else STEPS)
        if field == "through":
            return rng.choice(STEPS)
        if field == "fleet":
            return rng.choice(("", "Red Claw Fleet", "Count's Fleet", "Home Fleet", "x"))
        if field in ("destroy", "accept"):
            return rng.random() < 0.5
        if field in ("text", "purpose", "reason"):
            return rng.choice(("x", "the Kzinti will not see this coming", "#" * 2000))
        if field == "dice":
            return rng.choice(("2d6", "1d6", "3d6", "9d6"))
        if field == "steps":
            return [rng.choice(STEPS) for _ in range(rng.randint(0, 4))]
        if field == "change":
            return rng.choice(ADJUSTMENTS)
        if field == "mode":
            return rng.choice(("ask", "never", "react"))
        if field == "mission":
            return rng.choice(("supply", "none"))
        return None  # left out: the default, or an order that does not parse

    def order(self) -> object | None:
        """One order that parses, or None: most of a type the current step takes (only
        those reach the rules of their area), the others of any type."""
        types = self.step_types if self.step_types and self.rng.random() < 0.8 else ORDER_TYPES
        kind = self.rng.choice(types)
        item: dict[str, object] = {"type": kind.__struct_config__.tag}
        for field in msgspec.structs.fields(kind):
            if field.required or self.rng.random() < CHANCE.get(field.name, 0.6):
                value = self.value(field.name)
                if value is not None:
                    item[field.name] = value
        try:
            parsed: object = RULESET.parse_orders([item])[0]
        except HexpostError:
            return None
        return parsed


def _states_by_step(game: Table) -> list[AnyState]:
    """The first and last states after the set-up at which the game waited at each step."""
    by_step: dict[str, list[AnyState]] = {}
    for result in game.results:
        state = result.state
        if state.rules is None or state.rules.setup:
            continue
        seen = by_step.setdefault(pending(RULESET, state)[0].step, [])
        if len(seen) < PER_STEP:
            seen.append(state)
        else:
            seen[-1] = state
    return [state for states in by_step.values() for state in states]


@pytest.fixture(scope="module")
def game() -> Table:
    return play_random_campaign(SEED, 2)


@pytest.fixture(scope="module")
def wandering() -> Table:
    """A game that also waits where captures, pursuits and withdrawals are ordered."""
    return play_random_campaign(SEED, 2, wander=True)


@pytest.mark.parametrize("played", ["game", "wandering"])
def test_hostile_orders_are_applied_or_refused_with_a_clear_error(
    played: str, request: pytest.FixtureRequest
) -> None:
    game: Table = request.getfixturevalue(played)
    sent, refused, kinds = _attack(game, SEED)
    assert sent >= 40 * PACKETS_PER_STATE
    assert 0 < refused < sent
    assert len(kinds) == len(ORDER_TYPES), {t.__name__ for t in ORDER_TYPES} - kinds


FULL_SEEDS = range(100, 140)
"""The campaigns attacked under ``--full`` as well (`make test-full`, for a nightly run). Such
a run over seeds 100 to 159, when a back named one of `STEPS` only, found the ``back`` that
left a game waiting for no seat (105, wandering); that case is rare in these draws (with the
fix undone, these 80 campaigns do not meet it), so it has tests of its own
(`tests/engine/fe/steps/test_combat_policy.py`). This run looks for what no one foresaw."""


@pytest.mark.slow
def test_hostile_orders_over_many_campaigns(full_run: bool) -> None:
    """The same attack on 80 more campaigns, wandering and not (about 2.5 minutes)."""
    if not full_run:
        pytest.skip("runs under --full (make test-full)")
    for seed in FULL_SEEDS:
        for wander in (False, True):
            sent, refused, _kinds = _attack(play_random_campaign(seed, 2, wander=wander), seed)
            assert 0 < refused < sent, (seed, wander)


def _attack(game: Table, seed: int) -> tuple[int, int, set[str]]:
    """Hostile packets at the states of ``game`` (`_states_by_step`): each must be applied or
    refused with one of the project's errors in one line. Returns how many were sent, how
    many refused, and the order types sent."""
    rng = random.Random(seed)
    sent = refused = 0
    kinds: set[str] = set()
    for state in _states_by_step(game):
        assert state.rules is not None
        owed = pending(RULESET, state)[0].seats[0]
        client = HostileClient(rng, state.rules)
        for _ in range(PACKETS_PER_STATE):
            seat = owed if rng.random() < 0.85 else rng.choice(sorted(game.players))
            orders = [o for o in (client.order() for _ in range(rng.randint(1, 3))) if o]
            if not orders:
                continue
            if rng.random() < 0.3:
                orders.append(Done())
            kinds.update(type(o).__name__ for o in orders)
            game.state = state  # (the body's entropy index is read from the table's state)
            body = game.body(seat, Turn(RULESET.encode_orders(orders)))
            sent += 1
            try:
                author.draft(RULESET, state, body, game.players[seat].public)
            except HexpostError as refusal:
                refused += 1
                message = str(refusal)
                assert message and "\n" not in message, message
                if isinstance(refusal, IllegalOrder):
                    assert message.startswith("order "), message
    return sent, refused, kinds


# --- the work a packet costs ------------------------------------------------------------------

CALLS_PER_BYTE = 20
"""Function calls (Python and C) per byte of a packet's orders, at most. The worst packet
here makes about 7 (reaction policies at a reaction window: the checklist's driver looks
again at what is owed after each order). Before the bound was kept, standing orders made
about 690 (each name compared with every step of the sequence), and reaction and combat
policies at a reaction window 110 and 40 (who may react worked out again after each)."""

SMALL, LARGE = 16 * 1024, 64 * 1024
"""The two packet sizes, in bytes of orders: the calls must grow with the size, no faster."""


def _first_at(game: Table, step: str) -> AnyState:
    return next(
        r.state
        for r in game.results
        if r.state.rules is not None
        and not r.state.rules.setup
        and pending(RULESET, r.state)[0].step == step
    )


def _repeatable(state: FeState, seat: str) -> dict[str, object]:
    """The largest orders the engine accepts again and again, by name: a standing order of
    400 names (of steps far from any step where these packets are sent, so that it completes
    none of them), a reaction policy that asks (which answers no window)."""
    far = [s.id for s in load_sequence().every_step() if s.phase in ("9", "10")]
    names = (far * (400 // len(far) + 1))[:400]
    hexes = sorted({f"{u.hex:04d}" for u in state.board.units if u.hex != OFF_MAP})[:64]
    mine = base.empires_of(state, seat)
    own = next(u for u in state.board.units if u.empire in mine and u.hex != OFF_MAP)
    place = Adjust(change="place", reason="x", empire=own.empire, cls=own.cls, hex=f"{own.hex:04d}")
    return {
        "standing": Standing(names),
        "policy": PolicyOrder(bir=3, retreat=2, pursue="always"),
        "reaction": ReactionOrder(mode="ask"),
        "note": Note("x" * 2000),
        "battles": BattlesOrder(hexes),
        "place": place,
    }


CASES = [
    ("standing", "1A1"),
    ("policy", "3B3"),  # the reaction window asks who may react after each order
    ("policy", "5-2A2"),
    ("reaction", "3B3"),
    ("note", "3B2"),
    ("battles", "3B2"),
    ("place", "2B3"),  # a unit more on the board at each (`forces.MOST_UNITS` bounds them)
]


@pytest.mark.parametrize(("name", "step"), CASES)
def test_a_packet_of_repeated_orders_costs_work_in_proportion_to_its_size(
    game: Table, name: str, step: str
) -> None:
    state = _first_at(game, step)
    assert state.rules is not None
    seat = pending(RULESET, state)[0].seats[0]
    order = _repeatable(state.rules, seat)[name]
    one = len(RULESET.encode_orders([order]))
    calls = []
    for size in (SMALL, LARGE):
        data = RULESET.encode_orders([order] * (size // one))
        game.state = state
        body = game.body(seat, Turn(data))
        public = game.players[seat].public
        calls.append(counted(author.draft, RULESET, state, body, public)[1])
        per_byte = calls[-1] / len(data)
        assert per_byte <= CALLS_PER_BYTE, f"{name} at {step}: {per_byte:.0f} calls a byte"
    # (each packet applied whole: a refusal at its first order would measure nothing)
    assert author.draft(RULESET, state, body, public).state is not None
    assert calls[1] <= 4.5 * calls[0], f"{name} at {step}: {calls} calls for 1x and 4x the orders"
