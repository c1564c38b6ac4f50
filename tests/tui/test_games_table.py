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


def test_a_table_wider_than_80_columns_puts_each_note_under_its_row() -> None:
    """Over SSH at 80 columns a long note wrapped to the line's start and broke the
    columns: when a line would pass 80, every note goes on its own lines under its row,
    indented past the game's id, and the header names no NOTE column."""
    title = "1A1 Bases and PDUs begun last player turn become active"
    waits = {"who": "Alice", "what": title, "mine": False}
    lines = games_text(
        [row("T1 Fall Y168", "1A1", waits=waits, unread=2), row("T2 Spring Y169", "2B7")]
    ).split("\n")
    assert max(len(line) for line in lines) <= 80, lines
    assert lines[0].split() == ["GAME", "NAME", "TURN", "STEP", "WAITING", "FOR"]
    assert lines[1].split()[:4] == ["285468f6", "w", "T1", "Fall"]
    assert lines[1].endswith("Alice")
    assert lines[2] == " " * 10 + f"{title}; 2 new"
    assert lines[4] == " " * 10 + "2B7 Survey points"
    assert len(lines) == 5

    very_long = {"who": "Alice", "what": " ".join(["word"] * 40), "mine": False}
    lines = games_text([row("T1 Fall Y168", "1A1", waits=very_long)]).split("\n")
    assert max(len(line) for line in lines) <= 80, lines
    assert [line[:10] for line in lines[2:]] == [" " * 10] * (len(lines) - 2)
    assert " ".join(" ".join(lines[2:]).split()) == very_long["what"]


def test_a_table_within_80_columns_keeps_its_notes_in_the_note_column() -> None:
    lines = games_text([row("T1 Fall Y168", "2B7")]).split("\n")
    assert lines[0].split()[-1] == "NOTE"
    assert lines[1].endswith("2B7 Survey points")
    assert lines[1].index("2B7 Survey") == lines[0].index("NOTE")


def cells(text: str) -> int:
    """Terminal columns, as `rich` counts them (two for a wide character)."""
    from rich.cells import cell_len

    return cell_len(text)


def test_wide_characters_in_a_name_keep_the_columns_lined_up_on_the_terminal() -> None:
    """A name in Japanese (two columns a character) or with an emoji was padded and cut by
    its characters: its row's TURN began 11 columns right of the header's."""
    rows = [row("T1 Fall Y168", "2B7", name="戦争ゲーム長い名前です"), row("T1 Fall Y168", "1A1")]
    rows.append(row("T1 Fall Y168", "1A1", name="café 🚀 war"))
    lines = games_text(rows).split("\n")
    turn_at = cells(lines[0][: lines[0].index("TURN")])
    for line in lines[1:]:
        at = line.index("T1 Fall")
        assert cells(line[:at]) == turn_at, line
    assert "戦争ゲーム長" in lines[1] and "戦争ゲーム長い名" not in lines[1]  # cut at 15 columns
    assert max(cells(line) for line in lines) <= 80
