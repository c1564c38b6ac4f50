"""A msgspec refusal of hand-written input, completed with what the place it names takes.

msgspec says where a table went wrong and what it expected there, except in two cases a
player who writes an orders file meets often: a word the field does not take ("Invalid enum
value 'weird' - at `$.allocate`") and a misspelt field ("Object contains unknown field
`react`"). Both leave the player to look the schema up. `explained` reads the place from the
message, walks the schema (`msgspec.inspect`) to it and adds the words the field takes or the
fields the table takes, so the refusal alone says how to mend the input. Any other message,
or a place the walk cannot follow, is returned as it came, but for a value of the wrong
kind (a hex written as a bare number): there it adds how to write the value (`_HOW_TO_WRITE`).
"""

from __future__ import annotations

import json
import re

import msgspec.inspect as mi

_ENUM = re.compile(r"^Invalid enum value .+? - at `(?P<path>\$[^`]*)`$")
_UNKNOWN = re.compile(r"^Object contains unknown field `[^`]*`(?: - at `(?P<path>\$[^`]*)`)?$")
_KIND = re.compile(r"^Expected `(?P<wanted>[^`]+)`, got `(?P<got>[^`]+)`(?: - at `\$[^`]*`)?$")
_HOW_TO_WRITE = {
    ("str", "int"): "write it in quotes (it is text)",
    ("str", "float"): "write it in quotes (it is text)",
    ("int", "str"): "write it without quotes (it is a number)",
    ("array", "str"): "write a list, in square brackets",
    ("array", "int"): "write a list, in square brackets",
    ("array", "object"): "write a list, in square brackets",
}
"""The slips of kind a hand-written file makes most (a hex as a bare number, a count in
quotes, one item where a list is taken), by (kind wanted, kind given): how to write it."""
_STEP = re.compile(r"\.([^.\[]+)|\[[^\]]*\]")
"""One step of a msgspec path: ``.field``, or an item of a list or dict (``[0]``, ``[...]``)."""
_PATH = re.compile(rf"(?:{_STEP.pattern})*")
"""A whole path after its ``$``: steps only."""


def explained(message: str, root: type) -> str:
    """``message``, a msgspec validation error of a value converted to ``root``, with the
    values an enum field takes or the fields its table takes added when the message is one
    of those refusals."""
    enum = _ENUM.match(message)
    if enum is not None:
        values = _values_at(root, enum.group("path"))
        if values:
            return f"{message}: it takes {_either(values)}"
        return message
    kind = _KIND.match(message)
    if kind is not None:
        how = _HOW_TO_WRITE.get((kind.group("wanted"), kind.group("got")))
        return f"{message}: {how}" if how else message
    unknown = _UNKNOWN.match(message)
    if unknown is not None:
        fields = _fields_at(root, unknown.group("path") or "$")
        if fields:
            return f"{message}; the fields there are {', '.join(fields)}"
        if fields is not None:
            return f"{message}; no field is taken there"
    return message


def _either(values: tuple[object, ...]) -> str:
    shown = [json.dumps(v) for v in values]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"


def _values_at(root: type, path: str) -> tuple[object, ...]:
    found = _walk(_info(root), path)
    if isinstance(found, mi.LiteralType):
        return tuple(found.values)
    if isinstance(found, mi.EnumType):
        return tuple(member.value for member in found.cls)
    return ()


def _fields_at(root: type, path: str) -> tuple[str, ...] | None:
    """The fields of the table at ``path`` (its tag apart), or None if it is not known."""
    found = _walk(_info(root), path)
    if isinstance(found, mi.StructType):
        return tuple(field.encode_name for field in found.fields)
    return None


def _info(root: type) -> mi.Type:
    # Not kept: it is read only when input was refused, and the engine keeps no cache
    # outside `engine.core.caches`.
    return mi.type_info(root)


def _walk(node: mi.Type | None, path: str) -> mi.Type | None:
    """The schema node a msgspec path (``$.a[0].b``) names, or None where it cannot tell
    (a union of two tables, a step the schema has no place for)."""
    if not path.startswith("$") or _PATH.fullmatch(path, 1) is None:
        return None  # (a path this reader does not follow whole)
    for step in _STEP.finditer(path, 1):
        node = _plain(node)
        field = step.group(1)
        if field is not None:
            if not isinstance(node, mi.StructType):
                return None
            node = next((f.type for f in node.fields if f.encode_name == field), None)
        elif isinstance(node, mi.ListType | mi.VarTupleType | mi.SetType | mi.FrozenSetType):
            node = node.item_type
        elif isinstance(node, mi.DictType):
            node = node.value_type
        else:
            return None
    return _plain(node)


def _plain(node: mi.Type | None) -> mi.Type | None:
    """``node`` without its constraints, and the one member of an optional that is not None
    (a union of several others is ambiguous: None)."""
    while isinstance(node, mi.Metadata):
        node = node.type
    if isinstance(node, mi.UnionType):
        members = [t for t in node.types if not isinstance(t, mi.NoneType)]
        return _plain(members[0]) if len(members) == 1 else None
    return node
