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
  encoding of `hash_form`, byte for byte;
- those bytes are encoded from a struct made for the purpose (`_FormLayout`): the state's
  fields in the order of their names (the order a deterministic encoding gives the form's
  keys), each with the state's default, left out by msgspec (``omit_defaults``) when it is
  the default object. That costs one encoder call instead of a Python loop over the forty
  fields; the few fields whose value may equal their default without being it (``False``
  for ``0``) are set to the default object first, so the same fields are left out as
  `hash_form` leaves out.
"""

from __future__ import annotations

import hashlib
import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

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
    in as encoded once per object (`_encoded`), encoded as a `_FormLayout` struct."""
    layout = _form_layout(type(state))
    values = list(layout.in_name_order(msgspec.structs.astuple(state)))
    for index, default in layout.loose:  # equal to the default (or it): left out
        if values[index] == default:
            values[index] = default
    for index, default in layout.large:
        value = values[index]
        if value is not default:
            values[index] = _encoded(value)
    values[layout.forces] = _forces_digests(state.forces)
    return _fix_map_header(_ENCODER.encode(layout.form(*values)))


def _fix_map_header(data: bytes) -> bytes:
    """``data`` (an encoded map) with the shortest header for its size, as a dict's encoding
    has: msgspec gives a struct of more than 15 fields, some left out, a 16-bit header."""
    if data.startswith(_MAP16_SHORT) and data[2] < 16:
        return _FIXMAP[data[2]] + data[3:]
    return data


_MAP16_SHORT = b"\xde\x00"
"""How a MessagePack map with a 16-bit length under 256 starts."""
_FIXMAP = tuple(bytes((0x80 | size,)) for size in range(16))
"""The one-byte header of a map of each size under 16."""

_ALWAYS = msgspec.Raw(b"")
"""The default of a form field the state has no default for, and of the forces: an object no
value of a state is, so the field is always encoded (as `hash_form` always keeps it)."""


class _FormLayout(NamedTuple):
    """How a state type's form is encoded as a struct (`hash_form_bytes`)."""

    form: type[msgspec.Struct]
    """A struct of every field, in the order of their names, with the state's defaults,
    leaving out a field whose value is its default object (``omit_defaults``)."""
    in_name_order: Callable[[tuple[Any, ...]], tuple[Any, ...]]
    """The state's values (``astuple``) in the order of the form's fields."""
    loose: tuple[tuple[int, object], ...]
    """Form fields (index, default) whose value may equal the default without being it
    (an int or bool default: ``False == 0``)."""
    large: tuple[tuple[int, object], ...]
    """`_LARGE_FIELDS` (index, default): spliced in as encoded bytes when not the default."""
    forces: int
    """The index of the forces, which stand in as their digests."""


@caches.derived(maxsize=4, shipped=True)
def _form_layout(state_type: type[FeState]) -> _FormLayout:
    defaults = dict(_field_defaults(state_type))
    names = list(defaults)
    order = sorted(range(len(names)), key=names.__getitem__)
    named = [names[index] for index in order]
    always = {name for name, default in defaults.items() if default is msgspec.NODEFAULT}
    always.add("forces")  # its digests are always in the form, even for no forces
    specs = [(name, Any, _ALWAYS if name in always else defaults[name]) for name in named]
    form = msgspec.defstruct(f"{state_type.__name__}Form", specs, omit_defaults=True)
    loose = tuple(
        (index, defaults[name])
        for index, name in enumerate(named)
        if name not in always and not _exact_default(defaults[name])
    )
    large = tuple((named.index(name), defaults[name]) for name in _LARGE_FIELDS)
    return _FormLayout(form, operator.itemgetter(*order), loose, large, named.index("forces"))


def _exact_default(default: object) -> bool:
    """Whether only the default object itself equals ``default``: the empty tuple and the
    empty string are single objects in CPython, and no state value of another type equals
    them."""
    return default in ((), "")


_LARGE_FIELDS = ("moved", "options", "released")
"""Large fields that keep their objects for a game's life, or nearly (the options and the
fleets released: about 0.8 of a form's 1.8 KB along the golden campaign), or for the rest
of a player turn once its movement is over (what each unit moved: 2 KB of the turn bench's
3.1 KB form after its moves, read again by each of the turn's last seven packets: 0.7%
fewer instructions for the warm turn, `bench/turn_instructions.py`). The battle records
and the forces' digests are large too, but change from packet to packet within a player
turn, and remembering them cost more than it saved (measured on the turn bench: a miss for
each move, and old records kept alive for the garbage collector to walk)."""


@caches.by_identity(maxsize=6)
def _encoded(value: object) -> msgspec.Raw:
    """The canonical bytes of one immutable value of the form (a tuple of plain values),
    remembered for the object: a field unchanged from state to state (two states' worth of
    the three `_LARGE_FIELDS`)."""
    return msgspec.Raw(_ENCODER.encode(value))


@caches.derived(maxsize=4, shipped=True)
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
