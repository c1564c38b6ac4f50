"""`hexpost show`'s roll lines: who asked, why, and the dice.

A roll the rules make by themselves (a battle's variable BIR) has no seat that asked for it:
its line read "roll #28 : variable BIR, 1304 round 2: [5]", a name missing before the colon."""

from __future__ import annotations

from tests.tui.records import a_show_record
from tui import render
from tui.services.show import RollRecord


def _roll(seq: int, seat: str, purpose: str, dice: tuple[int, ...]) -> RollRecord:
    return RollRecord(seq, seat, "5-3X2", "", purpose, len(dice), 6, dice, sum(dice))


def test_a_roll_no_seat_asked_for_is_said_to_be_the_rules() -> None:
    rolls = (
        _roll(28, "", "variable BIR, 1304 round 2", (5,)),
        _roll(30, "alliance", "combat die, 1304 round 2, alliance", (4,)),
    )
    text = render.show_text(render.builtins(a_show_record(rolls=rolls)))
    lines = [line.strip() for line in text.splitlines() if line.strip().startswith("roll #")]
    assert lines == [
        "roll #28 (the rules): variable BIR, 1304 round 2: [5]",
        "roll #30 alliance: combat die, 1304 round 2, alliance: [4]",
    ]
