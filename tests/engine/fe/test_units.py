"""The unit tables: exact factors and costs, checked by hand against the printed tables.

Each golden value below was read off the Ship Information Tables (the reference CSVs) by a
person, not computed by the converter: "7-8(6)/3-4(3)" is attack 7, defense 8, six fighter
factors; crippled 3-4 with three.
"""

from __future__ import annotations

import json
from fractions import Fraction
from importlib import resources
from typing import Any

import msgspec
import pytest

from engine.fe.units import (
    TUG_MISSIONS,
    Conversion,
    Date,
    Substitution,
    UnitTables,
    decode_units,
    load_units,
    unit_class,
)

EMPIRES = ("FED", "GOR", "HYD", "ISC", "KLI", "KZI", "LDR", "LYR", "NZ", "ORI", "ROM", "THO")


def _raw() -> bytes:
    return resources.files("engine.fe.data").joinpath("units.json").read_bytes()


def test_every_empire_and_class_is_there() -> None:
    tables = load_units()
    assert tables.empires == EMPIRES
    assert len(tables.classes) == 354
    assert len(tables.empire_classes("KLI")) == 42
    assert len({c.key for c in tables.classes}) == 354


def test_federation_heavy_cruiser() -> None:
    ca = unit_class("FED", "CA")  # CA  8/4  cmd 8  Y129  Schedule: 8  salvage 2.4
    assert (ca.attack, ca.defense) == (Fraction(8), Fraction(8))
    assert ca.crippled is not None
    assert (ca.crippled.attack, ca.crippled.defense) == (Fraction(4), Fraction(4))
    assert ca.command == 8
    assert ca.available == Date(129)
    assert ca.construction is not None and ca.construction.cost == 8
    assert ca.salvage == Fraction("2.4")
    assert ca.move == 6
    assert ca.base_hull


def test_klingon_d7() -> None:
    d7 = unit_class("KLI", "D7")  # D7  8/4  cmd 8  Y134  Schedule: 8
    assert (d7.full.att2, d7.full.def2) == (16, 16)
    assert d7.crippled is not None and (d7.crippled.att2, d7.crippled.def2) == (8, 8)
    assert d7.command == 8 and d7.available.year == 134
    assert d7.construction is not None and d7.construction.cost2 == 16


def test_carrier_with_fighters() -> None:
    cvs = unit_class("FED", "CVS")  # CVS  7-8(6)/3-4(3)  For CA: 10+12  From CA: 2+12
    assert (cvs.attack, cvs.defense, cvs.full.fighters) == (Fraction(7), Fraction(8), Fraction(6))
    assert cvs.crippled is not None
    assert (cvs.crippled.attack, cvs.crippled.defense, cvs.crippled.fighters) == (
        Fraction(3),
        Fraction(4),
        Fraction(3),
    )
    assert cvs.carrier == "medium"
    assert cvs.substitutions == (
        Substitution(("CA",), cost2=20, fighter_cost2=24),
        Substitution(("CVA",), cost2=20, fighter_cost2=24, listed=True),  # 450.4 "CVS for CVA"
    )
    assert cvs.conversions == (Conversion(("CA",), cost2=4, fighter_cost2=24),)


def test_heavy_fighters_count_on_top() -> None:
    cva = unit_class("FED", "CVA")  # CVA  10-12(15H)/5-6(7▲H): 12 fighters + 3 heavy bonus
    assert (cva.full.fighters2, cva.full.heavy2) == (24, 6)
    assert cva.crippled is not None and (cva.crippled.fighters2, cva.crippled.heavy2) == (12, 3)
    assert cva.carrier == "heavy"


def test_half_factors_stay_exact() -> None:
    wh = unit_class("ROM", "WH")  # WH  2.5-5(2.5)/1-3(1)
    assert (wh.attack, wh.defense, wh.full.fighters) == (
        Fraction(5, 2),
        Fraction(5),
        Fraction(5, 2),
    )
    vp = unit_class("KLI", "VP")  # VP  0(2.5)/None, a pod with no crippled side
    assert vp.full.fighters2 == 5 and vp.crippled is None and vp.pod and vp.max_in_service == 6
    lc = unit_class("HYD", "LC")  # LC  7-9(3)/5(1▲)
    assert lc.crippled is not None and lc.crippled.fighters == Fraction(3, 2)


def test_half_costs_the_json_had_truncated() -> None:
    hn = unit_class("HYD", "HN")  # HN  Schedule: 2.5, salvage 0.625
    assert hn.construction is not None and hn.construction.cost == Fraction(5, 2)
    assert hn.salvage1000 == 625
    sc = unit_class("HYD", "SC")  # SC  For FF: 3.5
    assert sc.substitutions == (Substitution(("FF",), cost2=7),)
    pft = unit_class("THO", "PFT")  # PFT  For PC: 7.5
    assert pft.substitutions[0].cost2 == 15
    ske = unit_class("ROM", "SKE")  # SKE  From SK?: 1.5
    assert {c.source: c.cost2 for c in ske.conversions} == {
        ("SKB",): 3,
        ("SKE",): 3,
        ("SKF",): 3,
    }


def test_scouts_drones_maulers_tugs() -> None:
    d6d = unit_class("KLI", "D6D")  # drone bombardment scout, EW = 2
    assert d6d.full.scout and d6d.full.drones == 4 and d6d.ew == 2
    assert unit_class("KLI", "D6M").full.mauler
    cvl = unit_class("FED", "CVL")  # Scout; (4EW:2AF)(1EW:6AF)
    assert [(m.ew, m.att2) for m in cvl.ew_modes] == [(4, 4), (1, 12)]
    pfp = unit_class("LYR", "PFP+")  # (2EW:2AF)(1EW:TugAF): the tug's own attack
    assert [(m.ew, m.att2) for m in pfp.ew_modes] == [(2, 4), (1, None)]
    tug = unit_class("FED", "TG")
    assert tug.full.tug_missions[:3] == ("A", "B", "C")
    assert set(tug.full.tug_missions) == set(TUG_MISSIONS)


def test_conversion_shapes() -> None:
    assert Conversion(("PC",), count=2, cost2=8) in unit_class("THO", "CA").conversions
    dn = unit_class("LYR", "DN")  # From CA + DND: 2
    assert Conversion(("CA",), plus=("DND",), cost2=4) in dn.conversions
    kc9 = unit_class("ROM", "KC9")  # a Romulan rebuild of a Klingon C8 (431.6)
    assert kc9.conversions == (Conversion(("C8",), empire="KLI", cost2=10),)
    krm = unit_class("ROM", "KRM")  # From KR or K7R: 5
    assert krm.conversions[0].source == ("KR", "K7R")
    pdu = unit_class("FED", "PDUv.2")  # from a ground base, priced by rule 441.3
    assert pdu.conversions == (Conversion(("PGB",)),) and "441.3" in pdu.rules
    cc = unit_class("FED", "CC")  # For CA (Y177): 9
    assert Substitution(("CA",), cost2=18, from_year=177) in cc.substitutions


def test_facts_from_the_notes() -> None:
    assert unit_class("FED", "CONVOY").cargo == 20
    assert unit_class("ORI", "BR").lease4 == 7  # Lease = 1.75
    assert unit_class("FED", "BATS").rules == ("433.41", "510.3")
    assert unit_class("FED", "NAC").no_early_variant
    assert unit_class("ROM", "FRD").no_cloak
    assert unit_class("FED", "FF").sit_mark
    frd = unit_class("FED", "FRD")
    assert frd.towable is not None and (frd.towable.move_cost, frd.towable.strategic_limit) == (
        2,
        12,
    )


def test_other_names_are_listed_with_a_kind() -> None:
    tables = load_units()
    hull = tables.other("HYD", "CC")
    assert hull is not None and hull.kind == "hull"
    ground = tables.other("FED", "PGB")
    assert ground is not None and ground.kind == "unlisted"
    assert tables.other("FED", "CA") is None


def test_unknown_class_is_a_key_error() -> None:
    with pytest.raises(KeyError, match="KLI has no unit class 'CA'"):
        unit_class("KLI", "CA")


def _floats(value: Any) -> list[Any]:
    if isinstance(value, float):
        return [value]
    if isinstance(value, dict):
        return [f for v in value.values() for f in _floats(v)]
    if isinstance(value, list):
        return [f for v in value for f in _floats(v)]
    return []


def test_no_float_anywhere_in_the_file() -> None:
    assert _floats(json.loads(_raw())) == []


def test_file_rejects_unknown_fields() -> None:
    data = json.loads(_raw())
    data["classes"][0]["surprise"] = 1
    with pytest.raises(msgspec.ValidationError):
        decode_units(json.dumps(data).encode())


def test_round_trip_is_exact() -> None:
    tables = load_units()
    again = msgspec.json.decode(msgspec.json.encode(tables), type=UnitTables)
    assert again == tables


def test_the_450_4_list_and_its_daggers_are_carried() -> None:
    """450.4: the list's substitutions are on their classes, ``listed``; the dagger is
    ``unlimited``. Names the tables lack (the Klingon D5W) are left out by the converter."""
    tables = load_units()
    dd = tables.find("FED", "DD")
    assert dd is not None
    by_slot = {slot: s for s in dd.substitutions for slot in s.instead_of}
    assert by_slot["DN"].listed and by_slot["DN"].unlimited and by_slot["CC"].unlimited
    assert by_slot["NCL"].unlimited and not by_slot["NCL"].listed  # its own row, daggered
    cl = tables.find("FED", "CL")
    assert cl is not None
    assert any(s.listed and not s.unlimited and "DN" in s.instead_of for s in cl.substitutions)
    d5 = tables.find("KLI", "D5")
    assert d5 is not None
    assert all("D5W" not in s.instead_of for s in d5.substitutions)
    assert tables.find("KLI", "D5W") is None
