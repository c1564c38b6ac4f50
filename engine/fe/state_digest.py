"""What an F&E state's hash encodes (`engine.fe.model.FeState.hash_form`), apart from the
state module so that each stays readable.

Two choices keep the hash cheap and stable:

- each empire's units stand in the hash as the SHA-256 of their canonical bytes, remembered
  per tuple object: an empire whose units did not change keeps its tuple from state to state
  (`FeState.with_board`), so it costs a dictionary lookup instead of encoding and hashing a
  thousand counters again after every packet;
- fields at their defaults are left out, by name, so that a later version may add a field
  with a default without changing the hash of any state that does not use it.
"""

from __future__ import annotations

import hashlib
import operator
from itertools import compress
from typing import TYPE_CHECKING

import msgspec

from engine.core import caches

if TYPE_CHECKING:
    from engine.fe.forces import Forces, Unit
    from engine.fe.model import FeState

_ENCODER = msgspec.msgpack.Encoder(order="deterministic")


def hash_form(state: FeState) -> dict[str, object]:
    """The fields of ``state`` that differ from their defaults, by name, with the forces as
    digests per empire."""
    names, defaults = _field_defaults(type(state))
    values = msgspec.structs.astuple(state)  # in field order, as `_field_defaults` lists them
    # A field is kept when its value is not its default object and differs from it (a field
    # without a default, `NODEFAULT`, always is): the fields are picked in C, without a
    # Python step per field, as the state is hashed after every packet.
    is_not, differ = map(operator.is_not, values, defaults), map(operator.ne, values, defaults)
    differs = map(operator.and_, is_not, differ)
    form: dict[str, object] = dict(compress(zip(names, values, strict=True), differs))
    form["forces"] = _forces_digests(state.forces)
    return form


@caches.derived(maxsize=4)
def _field_defaults(state_type: type[FeState]) -> tuple[tuple[str, ...], tuple[object, ...]]:
    """The names of the state type's fields, and each one's default value (``NODEFAULT``
    when it has none), in field order."""
    names: list[str] = []
    defaults: list[object] = []
    for field in msgspec.structs.fields(state_type):
        default = field.default
        if field.default_factory is not msgspec.NODEFAULT:
            default = field.default_factory()
        names.append(field.name)
        defaults.append(default)
    return tuple(names), tuple(defaults)


@caches.by_identity(maxsize=1)
def _forces_digests(forces: tuple[Forces, ...]) -> tuple[tuple[str, bytes], ...]:
    """Each empire with the digest of its units; the last answer is kept for the same tuple
    (most packets change no unit, so the states before and after share it)."""
    return tuple((f.empire, _forces_digest(f.units)) for f in forces)


@caches.by_identity(maxsize=48)
def _forces_digest(units: tuple[Unit, ...]) -> bytes:
    """SHA-256 of the units' canonical bytes, cached by the identity of the tuple."""
    return hashlib.sha256(_ENCODER.encode(units)).digest()
