"""Retreat order (302.71), retreat priorities (302.72), pursuit and capture rolls."""

from __future__ import annotations

import pytest

from engine.fe.combat.retreat import (
    Announcements,
    RetreatHex,
    announce,
    announce_problems,
    capture_succeeds,
    fighting_retreat,
    legal_retreat_hexes,
    next_to_announce,
    pursuit_succeeds,
    retreat_problems,
    retreating,
)

# --- D/A/D -----------------------------------------------------------------------------------


def test_defender_attacker_defender() -> None:
    made = Announcements()
    assert next_to_announce(made) == "defender"
    made = announce(made, "defender", False)
    assert next_to_announce(made) == "attacker"
    made = announce(made, "attacker", True)
    assert next_to_announce(made) == "defender"
    made = announce(made, "defender", True)
    assert next_to_announce(made) == ""
    assert retreating(made) == ("defender", "attacker")  # the defender retreats first


def test_a_defender_who_retreats_first_has_no_last_option() -> None:
    made = announce(announce(Announcements(), "defender", True), "attacker", False)
    assert next_to_announce(made) == ""
    assert retreating(made) == ("defender",)


def test_nobody_retreats_and_pending_announcements_retreat_nobody() -> None:
    made = announce(Announcements(), "defender", False)
    assert retreating(made) == ()
    made = announce(announce(made, "attacker", False), "defender", False)
    assert retreating(made) == ()


def test_announcing_out_of_turn_is_refused() -> None:
    problems = announce_problems(Announcements(), "attacker")
    assert [(p.message, p.rule) for p in problems] == [
        (
            "the defender announces now, not the attacker: defender first, attacker, defender last",
            "302.71",
        )
    ]
    done = Announcements(True, False)
    assert announce_problems(done, "defender")[0].message.startswith(
        "the retreat announcements of this round are over"
    )
    with pytest.raises(ValueError, match="the defender announces now"):
        announce(Announcements(), "attacker", True)


# --- priorities ------------------------------------------------------------------------------


def test_outnumbered_hexes_are_avoided_when_possible() -> None:
    hexes = [
        RetreatHex(1001, enemy_units=3, friendly_ships=1),
        RetreatHex(1002, grid="none"),
    ]
    assert legal_retreat_hexes(hexes) == (1002,)
    problems = retreat_problems(1001, hexes)
    assert [(p.message, p.rule) for p in problems] == [
        (
            "a retreat into 1001 breaks the retreat priorities: 1001 holds 3 enemy units "
            "against 1 friendly ships (priority 2); it may enter 1002",
            "302.72",
        )
    ]


def test_when_every_hex_is_outnumbered_the_rule_does_not_apply() -> None:
    hexes = [
        RetreatHex(1001, enemy_units=3, friendly_ships=1),
        RetreatHex(1002, enemy_units=2),
    ]
    assert legal_retreat_hexes(hexes) == (1001, 1002)
    assert all(fighting_retreat(h) for h in hexes)


def test_a_hex_in_supply_and_the_shortest_supply_path_come_next() -> None:
    hexes = [
        RetreatHex(1001, grid="none"),
        RetreatHex(1002, supply_distance=4),
        RetreatHex(1003, supply_distance=2),
    ]
    assert legal_retreat_hexes(hexes) == (1003,)
    assert "1001 is out of supply while other hexes are in supply (priority 3B)" in (
        retreat_problems(1001, hexes)[0].message
    )
    assert "its supply path is 4 hexes long, the shortest is 2 (priority 3D)" in (
        retreat_problems(1002, hexes)[0].message
    )


def test_partial_grid_hexes_may_be_dropped_when_main_grid_ones_are_open() -> None:
    hexes = [
        RetreatHex(1001, grid="partial", supply_distance=1),
        RetreatHex(1002, grid="main", supply_distance=3),
        RetreatHex(1003, grid="main", supply_distance=5),
    ]
    assert legal_retreat_hexes(hexes) == (1001, 1002)


def test_a_hex_free_of_enemy_units_if_possible_else_a_fighting_retreat() -> None:
    hexes = [RetreatHex(1001, enemy_units=1, friendly_ships=2), RetreatHex(1002)]
    assert legal_retreat_hexes(hexes) == (1002,)
    problems = retreat_problems(1001, hexes)
    assert problems[0].message.endswith(
        "1001 holds 1 enemy units and a hex free of them is open (priority 4); it may enter 1002"
    )
    only = [RetreatHex(1001, enemy_units=1, friendly_ships=2)]
    assert legal_retreat_hexes(only) == (1001,)
    assert fighting_retreat(only[0])


def test_neutral_territory_is_always_open_and_closed_hexes_never() -> None:
    hexes = [
        RetreatHex(1001, neutral=True, grid="none"),
        RetreatHex(1002, supply_distance=1),
        RetreatHex(1003, enterable=False),
    ]
    assert legal_retreat_hexes(hexes) == (1001, 1002)
    problems = retreat_problems(1003, hexes)
    assert [(p.message, p.rule) for p in problems] == [
        ("1003 cannot be entered; a retreat may enter 1001, 1002", "302.72")
    ]
    far = retreat_problems(2020, hexes)
    assert (
        far[0].message == "2020 is not adjacent to the battle hex; a retreat may enter 1001, 1002"
    )


# --- pursuit and capture ---------------------------------------------------------------------


def test_pursuit_succeeds_on_a_die_less_than_the_pursuing_ships() -> None:
    assert pursuit_succeeds(2, 3)
    assert not pursuit_succeeds(3, 3)
    assert not pursuit_succeeds(2, 3, declined_approach=True)  # 3 < 3 fails
    assert pursuit_succeeds(3, 3, x_or_fast=True)  # 2 < 3
    assert pursuit_succeeds(6, 1, all_x_or_fast=True)
    assert not pursuit_succeeds(1, 0)
    with pytest.raises(ValueError, match="1 to 6, not 7"):
        pursuit_succeeds(7, 3)


def test_capture_succeeds_on_two_dice_less_than_three() -> None:
    assert capture_succeeds((1, 1))
    assert not capture_succeeds((1, 2))
    assert capture_succeeds((1, 2), pursuit=True)
    assert capture_succeeds((2, 2), pursuit=True, prime_team=True)
    assert not capture_succeeds((2, 2), prime_team=True)
    assert capture_succeeds((2, 3), pursuit=True, ground_combat_ship=True, web_caster=True)
    with pytest.raises(ValueError):
        capture_succeeds((0, 1))
