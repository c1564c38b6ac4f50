"""Small-scale combat (310.0): the play aid's results table and die roll modifiers, worked by
hand (`engine.fe.combat.small_scale`)."""

from __future__ import annotations

import pytest

from engine.fe.combat import small_scale
from engine.fe.combat.small_scale import SideFacts, casualties, modifiers, resolve
from engine.fe.combat.targets import Target


@pytest.mark.parametrize(
    ("total", "expected"),
    [
        (-1, 0),
        (2, 0),
        (4, 0),
        (5, 1),
        (7, 1),
        (8, 2),
        (9, 2),
        (10, 3),
        (11, 4),
        (12, 5),
        (13, 6),
        (14, 7),
        (15, 8),
        (16, 9),
        (19, 9),
    ],
)
def test_the_results_table_row_by_row(total: int, expected: int) -> None:
    """2-4: 0, 5-7: 1, 8-9: 2, 10: 3, 11: 4, 12: 5, 13: 6, 14: 7, 15: 8, 16+: 9."""
    assert casualties(total) == expected


def test_no_modifier_reads_the_dice_alone() -> None:
    result = resolve((4, 5), SideFacts(largest_def2=16, enemy_largest_def2=16))
    assert (result.modifier, result.total, result.casualties) == (0, 9, 2)
    assert small_scale.result_text(result) == "dice 4 + 5 = 9: 2 casualties"


def test_the_largest_defence_gap() -> None:
    """A CL (defence 6) against a D7C (9): 3 less, -1; an FF (4) against it: 5 less, -2; a
    gap of 1 (an 8 against a 9) gives nothing."""
    assert modifiers(SideFacts(largest_def2=12, enemy_largest_def2=18)) == (
        (-1, "largest defence 3 less than the enemy's"),
    )
    assert modifiers(SideFacts(largest_def2=8, enemy_largest_def2=18)) == (
        (-2, "largest defence 5 less than the enemy's"),
    )
    assert modifiers(SideFacts(largest_def2=16, enemy_largest_def2=18)) == ()
    assert modifiers(SideFacts(largest_def2=18, enemy_largest_def2=8)) == ()  # the bigger side


def test_every_modifier_of_the_play_aid_adds_up() -> None:
    """+1 X ship, +1 mauler with consorts, -1 slow unit, -1 enemy fast or X, -2 conducting a
    fighting retreat, -1 a defence 2 less, -2 the enemy's EW shift of 3 (at most 2): -5.
    Dice 6 + 6 = 12 - 5 = 7: one casualty (5-7)."""
    facts = SideFacts(
        x_ship=True,
        mauler_with_consorts=True,
        slow_unit=True,
        enemy_fast_or_x=True,
        fighting_retreat=True,
        largest_def2=14,
        enemy_largest_def2=18,
        enemy_ew_shift=3,
    )
    result = resolve((6, 6), facts)
    assert (result.modifier, result.total, result.casualties) == (-5, 7, 1)
    assert small_scale.result_text(result) == (
        "dice 6 + 6 -5 = 7: 1 casualty (+1 the force has an X ship; +1 the force has a mauler "
        "with consorts; -1 the force includes a slow unit; -1 the enemy has a fast or X ship; "
        "-2 conducting a fighting retreat; -1 largest defence 2 less than the enemy's; -2 the "
        "enemy's EW advantage)"
    )
    opposing = resolve((5, 5), SideFacts(opposing_fighting_retreat=True))
    assert (opposing.total, opposing.casualties) == (12, 5)


def test_two_dice_one_to_six_only() -> None:
    with pytest.raises(ValueError, match="two dice"):
        resolve((4,), SideFacts())
    with pytest.raises(ValueError, match="two dice"):
        resolve((0, 7), SideFacts())


def test_the_size_option_decides_and_defaults_to_never() -> None:
    assert small_scale.size_option({}) == 0
    assert small_scale.size_option({"small-scale-size": 3}) == 3
    assert not small_scale.applies(1, 1, 0)
    assert small_scale.applies(3, 2, 3)
    assert not small_scale.applies(4, 2, 3)
    assert not small_scale.applies(0, 2, 3)


def test_each_casualty_is_one_step_in_the_allocation() -> None:
    """A D7 (defence 8, crippled 4) and an F5 cripple: one point to cripple, one to destroy a
    cripple; a unit without a crippled side one point to destroy."""
    found = small_scale.step_targets(
        [
            Target("KLI-0002", 16, 8, fighters2=0),
            Target("KLI-0006", 10, 6, crippled=True),
            Target("KLI-P001", 4, None, fighters2=6),
        ]
    )
    assert [(t.def2, t.crippled_def2, t.fighters2) for t in found] == [
        (2, 2, 0),
        (2, 2, 0),
        (2, None, 0),
    ]
