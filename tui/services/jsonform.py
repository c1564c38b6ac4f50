"""A record's JSON form as Python values: exactly what a ``--json`` command prints, parsed.

`msgspec.to_builtins` keeps a tuple a tuple; JSON has only lists, and what the screens and
the tests read from a record is what the JSON says (``["coalition"]``), so a record goes
through msgspec's JSON encoder and back instead. The structs stay frozen and use tuples.
"""

from __future__ import annotations

from typing import Any

import msgspec


def json_form(record: Any) -> Any:
    """``record`` (a struct, or lists and dicts of them) as JSON would give it back."""
    return msgspec.json.decode(msgspec.json.encode(record))
