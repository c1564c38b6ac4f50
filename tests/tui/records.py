"""Hand-made service records for tests of the screens' formatters: every field filled with a
plain value, so a test changes only the ones it is about."""

from __future__ import annotations

from typing import Any

import msgspec

from tui.services.games import GameSummary
from tui.services.show import ShowRecord


def a_summary(**changes: Any) -> GameSummary:
    """A game in a line: an active game of the tutorial, nobody owing anything."""
    base = GameSummary(
        game="00" * 32,
        name="game",
        scenario="tutorial",
        my_seat="alliance",
        status="active",
        seq=1,
        turn=None,
        step=None,
        waiting_for=(),
        since="",
        unread=0,
        frozen=None,
        unsent=0,
        claim=None,
        notes=(),
    )
    return msgspec.structs.replace(base, **changes)


def a_show_record(**changes: Any) -> ShowRecord:
    """A game at one position with nothing in it but its name and seats."""
    base = ShowRecord(
        game="00" * 32,
        name="game",
        ruleset="fe/1.0",
        scenario="tutorial",
        options={},
        my_seat="alliance",
        status="active",
        seq=1,
        state_hash="00" * 32,
        seats=(),
        turn=None,
        part="",
        phasing=None,
        step=None,
        step_title=None,
        waiting_for=(),
        pending=(),
        frozen=None,
        over=False,
        ended="",
        resign_asked="",
        rolls=(),
        unsent=(),
        claim=None,
        notes=(),
        summary=None,
        board=None,
        choices=(),
        extras={},
    )
    return msgspec.structs.replace(base, **changes)
