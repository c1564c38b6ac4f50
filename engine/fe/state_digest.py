"""What an F&E state's hash encodes (`engine.fe.model.FeState.hash_form`), apart from the
state module so that each stays readable.

Two choices keep the hash cheap and stable:

- each empire's units stand in the hash as the SHA-256 of their canonical bytes, remembered
  per tuple object: an empire whose units did not change keeps its tuple from state to state
  (`FeState.with_board`), so it costs a dictionary lookup instead of encoding and hashing a
  thousand counters again after every packet;
- fields at their defaults are left out, by name, so that a later version may add a field
  with a default without changing the hash of any state that does not use it;
- the form's bytes (`hash_form_bytes`, what the state hash encodes) splice in the canonical
  bytes of the large fields that keep their objects for the game's life (the options, the
  fleets released) as remembered per value object, so those are not encoded again. MessagePack is
  context-free, so a value's bytes inside the form are its bytes alone: the result is the
  encoding of `hash_form`, byte for byte.
"""

from __future__ import annotations

import hashlib
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
    values = msgspec.structs.astuple(state)  # in field order, as `_field_defaults` lists them
    # A value that is its default object (``()``, ``0``, ``False``, ``""``: most fields) is
    # passed over before any comparison; the forces always stand in as their digests.
    form: dict[str, object] = {
        name: value
        for (name, default), value in zip(_field_defaults(type(state)), values, strict=True)
        if value is not default and (default is msgspec.NODEFAULT or value != default)
    }
    form["forces"] = _forces_digests(state.forces)
    return form


def hash_form_bytes(state: FeState) -> bytes:
    """The canonical bytes of `hash_form` (deterministic order), its largest values spliced
    in as encoded once per object (`_encoded`)."""
    form = hash_form(state)
    for name in _LARGE_FIELDS:
        value = form.get(name)
        if value is not None:
            form[name] = _encoded(value)
    return _ENCODER.encode(form)


_LARGE_FIELDS = ("options", "released")
"""Large fields (about 0.8 of a form's 1.8 KB along the golden campaign) that keep their
objects for a game's life, or nearly: the battle records and the forces' digests are
large too, but change from packet to packet within a player turn, and remembering them
cost more than it saved (measured on the turn bench: a miss for each move, and old records
kept alive for the garbage collector to walk)."""


@caches.by_identity(maxsize=4)
def _encoded(value: object) -> msgspec.Raw:
    """The canonical bytes of one immutable value of the form (a tuple of plain values),
    remembered for the object: a field unchanged from state to state (two states' worth)."""
    return msgspec.Raw(_ENCODER.encode(value))


@caches.derived(maxsize=4)
def _field_defaults(state_type: type[FeState]) -> tuple[tuple[str, object], ...]:
    """Each field of the state type with its default value (``NODEFAULT`` when it has none)."""
    pairs: list[tuple[str, object]] = []
    for field in msgspec.structs.fields(state_type):
        default = field.default
        if field.default_factory is not msgspec.NODEFAULT:
            default = field.default_factory()
        pairs.append((field.name, default))
    return tuple(pairs)


@caches.by_identity(maxsize=1)
def _forces_digests(forces: tuple[Forces, ...]) -> tuple[tuple[str, bytes], ...]:
    """Each empire with the digest of its units; the last answer is kept for the same tuple
    (most packets change no unit, so the states before and after share it)."""
    return tuple((f.empire, _forces_digest(f.units)) for f in forces)


@caches.by_identity(maxsize=48)
def _forces_digest(units: tuple[Unit, ...]) -> bytes:
    """SHA-256 of the units' canonical bytes, cached by the identity of the tuple."""
    return hashlib.sha256(_ENCODER.encode(units)).digest()
