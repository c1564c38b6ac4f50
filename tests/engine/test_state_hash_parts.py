"""The state hash made from remembered parts equals the hash of the whole encoding.

`engine.fe.state_digest.hash_form_bytes` splices in the bytes of large fields remembered per
object (`engine.core.state.state_hash` once also resumed SHA-256 after the core's fixed leading
fields): that only saves time. Each state here is hashed both ways, along the golden campaign's
first battle, with two games taking turns (so nothing remembered of one may answer for the
other), with a game name holding the bytes of the core's ``seats`` key, and with
fields replaced by new objects, equal or not.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

import msgspec
import pytest

from engine.core.state import STATE_DOMAIN, GameState, state_hash
from engine.fe import state_digest
from engine.fe.model import FeState
from tests.golden.first_battle import first_round

_ENCODER = msgspec.msgpack.Encoder(order="deterministic")


def _fresh_hash(state: GameState[Any]) -> bytes:
    """The hash as one encoding of the core and the plain form, read in one go."""
    rules = state.rules.hash_form() if state.rules is not None else None
    return hashlib.sha256(STATE_DOMAIN + _ENCODER.encode((state.core, rules))).digest()


@pytest.fixture(scope="module")
def states() -> list[GameState[Any]]:
    return [result.state for result in first_round().results]


def test_the_hash_of_every_state_of_a_game_is_the_whole_encoding_s(
    states: list[GameState[Any]],
) -> None:
    assert any(s.rules is not None and s.rules.battles for s in states)
    for state in states:
        assert state_hash(state) == _fresh_hash(state)
        if state.rules is not None:
            form_bytes = state.rules.hash_form_bytes()
            assert form_bytes == _ENCODER.encode(state.rules.hash_form())


def _renamed(state: GameState[Any], name: str) -> GameState[Any]:
    return msgspec.structs.replace(state, core=msgspec.structs.replace(state.core, name=name))


def test_games_taking_turns_each_hash_as_a_whole(states: list[GameState[Any]]) -> None:
    """Another game's fixed fields differ (its name here, one holding the bytes of the key
    where the cut is made, too): each state still hashes as its whole encoding."""
    others = [_renamed(s, "Other game") for s in states[:40]]
    tricky = [_renamed(s, "\xa5seats \u00a5seats") for s in states[:40]]
    for mine, other, odd in zip(states, others, tricky, strict=False):
        for state in (mine, other, odd, mine):
            assert state_hash(state) == _fresh_hash(state)
    assert state_hash(others[5]) != state_hash(states[5])


def _shuffled(value: tuple[Any, ...], rng: random.Random) -> tuple[Any, ...]:
    items = list(value)
    rng.shuffle(items)
    return tuple(items)


def test_large_fields_replaced_by_new_objects_hash_as_a_whole(
    states: list[GameState[Any]],
) -> None:
    """A field replaced by a new object, equal to the old or not, is encoded afresh: the
    remembered bytes answer only for the object they were made from."""
    rng = random.Random(16)
    ruled = [s for s in states if s.rules is not None and s.rules.battles]
    for state in ruled[:: max(1, len(ruled) // 12)]:
        rules = state.rules
        assert isinstance(rules, FeState)
        variants = [
            msgspec.structs.replace(rules, battles=tuple(rules.battles)),
            msgspec.structs.replace(rules, battles=rules.battles[:-1]),
            msgspec.structs.replace(rules, released=(*rules.released, ("KLI", "FED"))),
            msgspec.structs.replace(rules, options=_shuffled(rules.options, rng)),
            msgspec.structs.replace(rules, forces=_shuffled(rules.forces, rng)),
            msgspec.structs.replace(rules, options=()),
        ]
        for changed in variants:
            variant = msgspec.structs.replace(state, rules=changed)
            assert state_hash(variant) == _fresh_hash(variant)
            assert state_digest.hash_form_bytes(changed) == _ENCODER.encode(changed.hash_form())
        assert state_hash(state) == _fresh_hash(state)
