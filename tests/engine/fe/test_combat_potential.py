"""A side's combat potential (302.4): attack, fighters, PFs, drones, EW trades, cripples."""

from __future__ import annotations

from engine.core.ruleset import Violation
from engine.fe.combat.ew import PLAY_AID
from engine.fe.combat.potential import SidePotential, damage, side_potential
from engine.fe.forces import Unit


def unit(uid: str, empire: str, cls: str, *, crippled: bool = False) -> Unit:
    return Unit(uid, empire, cls, 1401, crippled)


def potential(units: list[Unit], **kwargs: object) -> SidePotential:
    got = side_potential(units, **kwargs)  # type: ignore[arg-type]
    assert isinstance(got, SidePotential), got
    return got


def test_attack_factors_with_the_crippled_side_for_cripples() -> None:
    force = [unit("a", "KLI", "D7"), unit("b", "KLI", "D7", crippled=True), unit("c", "KLI", "F5")]
    got = potential(force)
    assert got.attack2 == 16 + 8 + 10 and got.total2 == 34  # 8 + 4 + 5 = 17
    assert got.fighters2 == got.pfs2 == got.drones2 == 0


def test_fighters_heavy_fighters_and_their_losses() -> None:
    cva = unit("v", "FED", "CVA")  # 10 attack, 12 fighters + 3 extra F-111 factors
    got = potential([cva])
    assert (got.attack2, got.fighters2, got.total2) == (20, 30, 50)
    hurt = potential([cva], lost_fighters2={"v": 8})
    assert hurt.fighters2 == 22
    cripple = potential([unit("v", "FED", "CVA", crippled=True)])  # 5 + 6 + 1.5
    assert (cripple.attack2, cripple.fighters2, cripple.total2) == (10, 15, 25)
    refused = side_potential([cva], lost_fighters2={"v": 31})
    assert isinstance(refused, Violation)
    assert "carries 15 fighter factors; 15.5 lost" in refused.message


def test_lone_half_fighter_factors_count_only_in_pairs() -> None:
    one = potential([unit("w", "ROM", "WH")])  # 2.5 attack, 2.5 fighters
    assert (one.attack2, one.fighters2) == (5, 4)
    two = potential([unit("w", "ROM", "WH"), unit("x", "ROM", "WH")])
    assert (two.attack2, two.fighters2, two.total2) == (10, 10, 20)


def test_pfs_count_two_factors_each() -> None:
    d6p = unit("p", "KLI", "D6P")  # 4 attack (no EW choice: default mode), 6 PFs
    got = potential([d6p])
    assert (got.attack2, got.pfs2, got.total2, got.ew) == (8, 24, 32, 1)
    assert potential([d6p], lost_pfs={"p": 2}).pfs2 == 16
    assert isinstance(side_potential([d6p], lost_pfs={"p": 7}), Violation)


def test_drone_bombardment_only_when_used() -> None:
    df = unit("d", "KZI", "DF")  # 4 attack, 4 drone factors
    assert potential([df]).total2 == 8
    used = potential([df], drones=["d"])
    assert (used.drones2, used.drones, used.total2) == (8, 4, 16)
    refused = side_potential([unit("c", "KLI", "D7")], drones=["c"])
    assert isinstance(refused, Violation) and refused.rule == "309.0"


def test_ew_choices_change_the_attack_kept() -> None:
    sb = unit("s", "KZI", "SB")  # 36 attack, 12 fighters, scout chart
    base = potential([sb])
    assert (base.attack2, base.fighters2, base.ew, base.total2) == (72, 24, 1, 96)
    traded = potential([sb], ew_choices={"s": 4}, enemies=["LYR"])
    assert (traded.attack2, traded.ew, traded.total2) == (36, 4, 60)
    flipped = potential([sb], ew_choices={"s": 4}, enemies=["LYR"], order=PLAY_AID)
    assert (flipped.attack2, flipped.ew) == (48, 4)
    refused = side_potential([sb], ew_choices={"s": 7})
    assert isinstance(refused, Violation) and "(1 to 6)" in refused.message


def test_names_outside_the_force_are_refused() -> None:
    force = [unit("a", "KLI", "D7")]
    for kwargs in (
        {"ew_choices": {"z": 1}},
        {"drones": ["z"]},
        {"lost_fighters2": {"z": 2}},
        {"lost_pfs": {"z": 1}},
    ):
        refused = side_potential(force, **kwargs)
        assert isinstance(refused, Violation) and "z, not in the battle force" in refused.message


def test_a_whole_round_from_units_to_damage() -> None:
    """Five D7s (40) on BIR 2 + 2 with a variable 4 and a 3: the issue's 10 points."""
    force = [unit(f"k{i}", "KLI", "D7") for i in range(5)]
    got = potential(force)
    assert got.total2 == 80
    assert damage(got.total2, 4, 3).damage == 10


def test_empty_force_has_no_potential() -> None:
    assert potential([]).total2 == 0
    assert damage(0, 10, 6).damage == 0
