"""What every packet pays, made cheaper, gives what a fresh computation gives (issue 16).

Four shortcuts of the per-packet path are compared here with the computation they stand in
for:

- `engine.core.game` hands the decision owed, read before the packet's entropy value, to
  the packet's first order instead of asking `owed_first` again, where nothing it depends on
  changed: along golden games (joins and their acceptance, rolls fed, secret steps), every
  decision handed on equals a fresh `owed_first` of the state the order is checked against;
- a `by_identity` cache of one entry keeps it in a slot compared by identity
  (`engine.core.caches._single_memo`): calls, `peek`, `prime`, `newest`, clearing and threads
  behave as the general cache's;
- `engine.core.turns.Turns.position` remembers the current step and who owes it for the
  last state asked about (asked by `pending`, then by `turn_problems`, of the same state):
  along a golden game, with states asked about in turn and again, it equals a fresh
  computation;
- `engine.fe.state_digest.hash_form_bytes` encodes the form as a struct leaving out default
  objects: its bytes equal the dict form's encoding, with values equal to a default without
  being it (``False`` for ``0``) and with the large fields at and off their defaults.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import msgspec
import pytest

from engine.core import caches, game
from engine.core.game import apply_packet
from engine.core.owed import owed_first
from engine.core.packets import key_id, open_packet
from engine.core.ruleset import Decision, Event
from engine.core.state import GameState
from engine.fe import state_digest
from engine.fe.model import FeState
from saves.registry import ruleset_for
from tests.golden.companion import read_golden
from tests.golden.first_battle import first_round
from tests.golden.regen import HERE

_ENCODER = msgspec.msgpack.Encoder(order="deterministic")


def _replay(path: Path, limit: int) -> int:
    """Replay up to ``limit`` packets of a golden game, every state hash checked."""
    golden = read_golden(path)
    ruleset = ruleset_for(golden.ruleset.split("/")[0])
    keys: dict[bytes, bytes] = {}
    state = None
    for data in golden.packets[:limit]:
        packet = open_packet(data, lambda kid: [keys[kid]] if kid in keys else [])
        if packet.envelope.public_key:
            keys[key_id(packet.envelope.public_key)] = packet.envelope.public_key
        state = apply_packet(ruleset, state, packet).state
    return len(golden.packets[:limit])


@pytest.mark.parametrize(
    ("name", "limit"),
    [("fe_campaign.msgpack", 400), ("fe_battle.msgpack", 10_000), ("fe_checklist.msgpack", 10_000)],
)
def test_the_decision_handed_to_a_first_order_is_owed_first_of_its_state(
    monkeypatch: pytest.MonkeyPatch, name: str, limit: int
) -> None:
    original = game._order
    handed: list[bool] = []

    def checked(
        ruleset: Any,
        state: GameState[Any],
        seat: str,
        index: int,
        order: Any,
        events: list[Event],
        owed: Decision | None = None,
    ) -> GameState[Any]:
        if owed is not None:
            assert owed == owed_first(ruleset, state)
        handed.append(owed is not None)
        return original(ruleset, state, seat, index, order, events, owed)

    monkeypatch.setattr(game, "_order", checked)
    assert _replay(HERE / name, limit) > 0
    assert any(handed) and not all(handed)  # handed on to first orders only


def test_the_remembered_position_is_the_current_step_and_who_owes_it() -> None:
    from engine.fe.flow import TURNS

    states = [r.state.rules for r in first_round().results if r.state.rules is not None]
    assert len(states) > 50
    asked = [*states, *states[::-3], *states[::7]]  # each asked after others, and again
    for state in asked:
        step = TURNS.current(state)
        fresh = (step, () if step is None else TURNS.owing(state, step))
        assert TURNS.position(state) == fresh
        assert TURNS.position(state) is TURNS.position(state)  # the second answer held
        for seat in state.seats:
            in_turn = step is not None and seat in fresh[1]
            assert (TURNS.turn_problems(state, seat)[1] == []) == in_turn


class Box:
    def __init__(self, value: int) -> None:
        self.value = value


def test_a_cache_of_one_entry_by_identity_calls_peeks_primes_and_clears() -> None:
    computed: list[int] = []

    @caches.by_identity(maxsize=1, name="tests.fixed.one")
    def one(box: Box) -> int:
        computed.append(box.value)
        return box.value * 10

    @caches.by_identity(maxsize=1, name="tests.fixed.pair")
    def pair(first: Box, second: Box) -> int:
        computed.append(first.value + second.value)
        return first.value - second.value

    a, b, c = Box(1), Box(2), Box(3)
    assert caches.newest(one) is None and caches.peek(one, a) is None
    assert one(a) == 10 and one(a) == 10 and computed == [1]
    assert caches.peek(one, a) == 10 and caches.peek(one, Box(1)) is None
    assert one(b) == 20 and caches.peek(one, a) is None and computed == [1, 2]
    caches.prime(one, 99, c)
    assert one(c) == 99 and caches.newest(one) == ((c,), 99) and computed == [1, 2]
    assert pair(a, b) == -1 and pair(a, b) == -1 and computed == [1, 2, 3]
    assert pair(a, c) == -2 and pair(a, b) == -1 and computed == [1, 2, 3, 4, 3]
    assert pair(b, a) == 1 and caches.peek(pair, a, b) is None and caches.peek(pair, b, a) == 1
    assert caches.peek(pair, b) is None  # type: ignore[call-arg]  # not its number of arguments
    caches.prime(pair, 7, a, c)
    assert pair(a, c) == 7 and caches.newest(pair) == ((a, c), 7)
    sizes = {i.name: i.size for i in caches.describe()}
    assert sizes["tests.fixed.one"] == 1 and sizes["tests.fixed.pair"] == 1
    caches.clear_all()
    assert caches.newest(one) is None and caches.peek(pair, a, c) is None
    sizes = {i.name: i.size for i in caches.describe()}
    assert sizes["tests.fixed.one"] == 0 and sizes["tests.fixed.pair"] == 0
    # A fresh object per call, freed at once, is often given the last one's id: never a hit.
    assert [one(Box(i)) for i in range(300)] == [i * 10 for i in range(300)]


def test_a_cache_of_one_entry_of_more_arguments_compares_each_by_identity() -> None:
    computed: list[tuple[int, ...]] = []

    @caches.by_identity(maxsize=1, name="tests.fixed.three")
    def three(first: Box, second: Box, third: Box) -> int:
        computed.append((first.value, second.value, third.value))
        return first.value + 10 * second.value + 100 * third.value

    a, b, c = Box(1), Box(2), Box(3)
    assert three(a, b, c) == 321 and three(a, b, c) == 321 and len(computed) == 1
    assert three(a, b, Box(3)) == 321 and len(computed) == 2  # an equal object: a miss
    assert three(a, b, c) == 321 and three(a, c, c) == 331 and len(computed) == 4
    assert caches.peek(three, a, c, c) == 331 and caches.peek(three, a, b, c) is None
    caches.prime(three, 5, c, b, a)
    assert three(c, b, a) == 5 and caches.newest(three) == ((c, b, a), 5) and len(computed) == 4
    with pytest.raises(TypeError):
        three(c, b)  # type: ignore[call-arg]  # fewer arguments: never a hit


def test_a_cache_of_one_entry_answers_threads_correctly() -> None:
    @caches.by_identity(maxsize=1, name="tests.fixed.threads")
    def value_of(first: Box, second: Box) -> tuple[int, int]:
        return first.value, second.value

    wrong: list[int] = []
    shared = Box(-1)

    def work(offset: int) -> None:
        for i in range(3000):
            if value_of(Box(offset + i), shared) != (offset + i, -1):
                wrong.append(offset + i)

    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(work, [n * 10_000 for n in range(4)]))
    assert wrong == []


def _dict_form_bytes(state: FeState) -> bytes:
    """The form's bytes as the plain encoding of `hash_form`, a dict."""
    return _ENCODER.encode(state_digest.hash_form(state))


def test_the_form_bytes_are_the_dict_forms_encoding() -> None:
    states = [r.state.rules for r in first_round().results if r.state.rules is not None]
    assert any(s.battles for s in states) and any(s.setup for s in states)
    for state in states:
        assert state_digest.hash_form_bytes(state) == _dict_form_bytes(state)
    last, first = states[-1], states[0]
    odd = [
        msgspec.structs.replace(last, player_turn=False, over=0, backs=True),
        msgspec.structs.replace(first, battle_at=False, setup=0, step=True),
        msgspec.structs.replace(last, step=1, orion=1),
        msgspec.structs.replace(last, released=(), options=(), forces=()),
        msgspec.structs.replace(last, released=tuple(last.released), options=tuple(last.options)),
        msgspec.structs.replace(last, seats=(), scenario="", last_turn=0, turn=0),
    ]
    for state in odd:
        assert state_digest.hash_form_bytes(state) == _dict_form_bytes(state)
    # Fifteen fields (a one-byte map header), then sixteen and more (a 16-bit length).
    extra: dict[str, Any] = {
        "player_turn": 1,
        "step": 3,
        "backs": 2,
        "moved": (("a", 1),),
        "reacted": ("b",),
        "moved_once": ("c",),
        "reserves": ("d",),
        "battle_at": 1,
        "over": True,
        "orion": True,
        "supply_tugs": ("e",),
        "sids": (("f", 1),),
        "economies": (("g", "h"),),
    }
    base = msgspec.structs.replace(first, setup=False)
    sizes = set()
    for count in range(len(extra) + 1):
        grown = msgspec.structs.replace(base, **dict(list(extra.items())[:count]))
        sizes.add(len(state_digest.hash_form(grown)))
        assert state_digest.hash_form_bytes(grown) == _dict_form_bytes(grown)
    assert {15, 16, 17} <= sizes
