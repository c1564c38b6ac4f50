"""``hexpost games`` as a table: each column as wide as its widest cell, two spaces between,
so a long turn tag ("T2 Spring Y169") or step id never runs into the next column."""

from __future__ import annotations

from typing import Any

from tui.render import games_text


def row(turn: str, step: str, **more: Any) -> dict[str, Any]:
    return {
        "game": "285468f6" + "0" * 56,
        "name": "w",
        "turn": {"tag": turn},
        "step": step,
        "waiting_for": ["coalition"],
        "my_seat": "alliance",
        "waits": {"who": "Alice", "what": f"{step} Survey points", "mine": False},
        "since": "",
        "unread": 0,
        "frozen": "",
        "status": "active",
        **more,
    }


def test_columns_are_as_wide_as_their_widest_cell() -> None:
    lines = games_text([row("T1 Fall Y168", "2B7"), row("T10 Spring Y173", "5-4A7G")]).split("\n")
    head = lines[0]
    for line in lines[1:]:
        cells = line.split("  ")
        assert [c for c in cells if c][:2] == ["285468f6", "w"], line
    turn_at, step_at = head.index("TURN"), head.index("STEP")
    assert lines[2][turn_at:].startswith("T10 Spring Y173  5-4A7G")
    assert lines[1][step_at:].startswith("2B7 ")
    assert lines[1][turn_at:step_at].rstrip() == "T1 Fall Y168"
