"""The state hash leaves out fields at their defaults, and only those.

Why it matters: a later version may add a field with a default to `FeState` without changing
the hash of any state that does not use it, so old games keep replaying to the same hashes.
"""

from __future__ import annotations

import msgspec

from engine.fe.model import FeState
from tests.engine.fe.helpers import fresh


def test_fields_at_their_defaults_are_left_out_of_the_hash_form() -> None:
    state = fresh()
    form = state.hash_form()
    assert "policies" not in form and state.policies == ()
    assert "scenario" in form and "forces" in form


def test_a_field_off_its_default_changes_the_hash_form() -> None:
    state = fresh()
    changed = msgspec.structs.replace(state, backs=state.backs + 1)
    assert changed.hash_form()["backs"] == state.backs + 1
    assert msgspec.msgpack.encode(changed.hash_form()) != msgspec.msgpack.encode(state.hash_form())


def test_every_field_is_in_the_form_when_no_field_is_at_its_default() -> None:
    """A field whose value equals its default is the only one missing: nothing else drops."""
    state = fresh()
    form = state.hash_form()
    for field in msgspec.structs.fields(FeState):
        default = (
            field.default_factory()
            if field.default_factory is not msgspec.NODEFAULT
            else field.default
        )
        at_default = default is not msgspec.NODEFAULT and getattr(state, field.name) == default
        assert (field.name in form) != at_default or field.name == "forces", field.name


def test_snapshots_omit_defaults_and_decode_to_the_same_state() -> None:
    state = fresh()
    data = msgspec.msgpack.encode(state)
    assert b"policies" not in data
    assert msgspec.msgpack.decode(data, type=FeState) == state
