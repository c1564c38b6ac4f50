"""The golden campaign's books against figures worked out by hand from the sources.

The campaign is `tests.engine.fe_campaign` (The Wind, set-up to the end of turn 6, both sides
building every player turn). Its books come from the events the engine raised
(`tests.golden.ledger`); the numbers they are checked against are written out here from the
rules summary (../shared/seeds/003_*.txt), the order of battle (default_oob.json, converted to
engine/fe/data/setups/the-wind.json), the Ship Information Tables (units.json, sit/*.csv) and
the map (engine/fe/data/map.json), each with where it comes from. The engine's own functions
(`economics.income`, `production.scheduled`, `reinforcements.due`) are not called: a mistake
in one of them must show up as a difference here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.fe.forces import OFF_MAP
from tests.engine.fe_campaign import play_campaign
from tests.engine.fe_wind import rules
from tests.engine.table import Table
from tests.golden.ledger import Books, PlayerTurn, ledger

TURNS = range(1, 7)
DATA = Path(__file__).parents[3] / "engine" / "fe" / "data"

CHART_EP = {"FED": 221, "KLI": 142, "KZI": 93, "HYD": 74, "LYR": 115}
"""The economics chart (753.0), "Empire (economic points)": Federation (221), Klingons (142),
Kzintis (93), Hydrans (74), Lyrans (115). These are the starting incomes: the map's provinces
(2 EP), minor planets (3), major planets (5), capital systems and off-map areas."""

PROVINCE_EP = 2
"""753.0: each province pays 2 EP; a province with an enemy ship in it pays nothing that turn
(disruption, 430.22)."""

SEAT_EMPIRES = {"coalition": ("LYR", "KLI"), "alliance": ("KZI", "HYD", "FED")}
"""The Wind (601): the Coalition plays the Lyrans and Klingons, the Alliance the Kzintis,
Hydrans and Federation (the_wind.json's teams)."""


def permille(empire: str, turn: int) -> int:
    """The share of its income the empire collects on ``turn``, in thousandths.

    - FED: the scenario puts the Federation on a peace economy (50%, the C default of
      ``peace-income-permille``) with a limited-war entry when a Klingon, Lyran or Romulan unit
      stands in Kzinti space (601.0). The campaign's opening move puts the Lyran Red Claw Fleet
      in 0701 (Kzinti space) in the coalition player turn of turn 1, so the entry holds at the
      Federation's first economic phase (alliance, turn 1): 75% (``limited-war-income-permille``,
      C) on every turn. No one declares war on the Federation before turn 7.
    - HYD: peace economy (50%) until at war; the script has the Hydrans declare war on the
      Klingons and Lyrans on turn 3 (Fall Y169), so 100% from turn 3.
    - LYR, KZI: at war from the start (LYR-KZI); KLI: the scenario gives it a war economy
      (100%) from the start, at war with the Kzintis from turn 2.
    """
    if empire == "FED":
        return 750
    if empire == "HYD" and turn < 3:
        return 500
    return 1000


DISRUPTING = {"LYR": (701, 1)}
"""Enemy ships standing in Kzinti provinces at the Kzinti economic phases, with the turn they
arrive: the Lyran Red Claw Fleet in 0701 from turn 1 (the opening move). In its battle there
the Kzinti ships retreat after round 1 and the battle station fights on (302.741); the
scripts' Lyrans retreat after round 2, by the engine's pick, to 0702, in the same province
KZI-01, and stay there. The Klingons that march each player turn from 1411 to the Kzinti
battle station in 1405 (province KZI-10) retreat from it to 1306, in the neutral zone, in the
same combat phase (the scripts' attacker retreats when the defender has only a base left),
so none of them stands in Kzinti space when the Kzintis count their income."""


def disrupted(turn: int) -> int:
    """Kzinti provinces disrupted on ``turn``: one per hex of `DISRUPTING` occupied by then,
    each in its own Kzinti province (checked from the map below)."""
    return sum(1 for _, first in DISRUPTING.values() if first <= turn)


def expected_income2(empire: str, turn: int) -> int:
    """Income in halves of an EP: the chart's figure less 2 EP per disrupted province, times
    the economy's share, rounded down to the half EP (engine/fe/economics.py's reading: the
    project keeps money in halves). FED: 442 halves x 750 / 1000 = 331.5 -> 331 = 165.5 EP."""
    gross2 = 2 * CHART_EP[empire]
    if empire == "KZI":
        gross2 -= 2 * PROVINCE_EP * disrupted(turn)
    return gross2 * permille(empire, turn) // 1000


SCHEDULE_SLOTS = {
    # 431.0 and the production schedules of default_oob.json, as `hexpost scenario info
    # the-wind --turn N` shows them: the latest batch of the turn's season dated at or before it.
    # Lyrans: Fall Y168 (BC, CA, 3 CW, 3 DW, 3 FF) on turns 1, 3, 5; Spring Y169 (DN, CA, 3 CW,
    # 3 DW, 3 FF) on turns 2, 4, 6.
    "LYR": {1: 11, 2: 11, 3: 11, 4: 11, 5: 11, 6: 11},
    # Klingons: Fall Y168 (D7C, D7, D6, 9 D5, 4 F5, 2 F5L, 3 E4); Spring Y169 (C8, 2 D7, 9 D5,
    # 4 F5, 2 F5L, 3 E4): 21 each.
    "KLI": {1: 21, 2: 21, 3: 21, 4: 21, 5: 21, 6: 21},
    # Kzintis: Fall Y168 (BC, CL, DD, 2 FF) = 5; Spring Y169 (BC, 2 CM, 2 DD, 3 FF) = 8; Fall
    # Y169 (CV, MEC, EFF, BC, CL, 2 CM, 5 FF) = 12 on turns 3 and 5; Spring Y170 (DN, BC,
    # 4 CM, 6 FF) = 12 on turns 4 and 6.
    "KZI": {1: 5, 2: 8, 3: 12, 4: 12, 5: 12, 6: 12},
    # Hydrans: no schedule before Fall Y169 (pre-war construction instead); Fall Y169 (CC, DG,
    # 3 HR, LN, 3 HN, 3 CU; the CC slot is a hull, filled by a class the tables let fill it)
    # = 12 on turns 3 and 5; Spring Y170 (PAL, RN, 3 HR, KN, 3 HN, 3 CU) = 12 on 4 and 6.
    "HYD": {3: 12, 4: 12, 5: 12, 6: 12},
    # Federation: its schedule begins in Fall Y171 (turn 7): nothing to build in turns 1-6.
    "FED": {},
}
"""Units each empire builds: every slot of the schedule in force, as the treasury pays for all
of them on every turn here (e.g. the Kzinti Fall Y169 schedule costs CV 24 + MEC 6 + EFF 3.5 +
BC 8 + CL 6 + 2 CM 10 + 5 FF 12.5 = 70 EP of an 89 EP income)."""

DELIVERED = {
    # Pre-war construction of default_oob.json (431.0), delivered while the empire is at war
    # with nobody. Federation: Third Fleet DN (Fall Y168); Third Fleet CVB, DE, FFE (Y169);
    # Sixth Fleet DN (Fall Y169); Sixth Fleet CVB, DE, FFE and Third Fleet 3 NCL, 3 FF (Y170);
    # Fourth Fleet DN, 3 NCL, 3 FF (Fall Y170); First Fleet CVA, ECL, 2 DE, 3 NCL, 3 FF (Y171).
    "FED": {1: 1, 2: 3, 3: 1, 4: 3 + 6, 5: 7, 6: 10},
    # Hydran Home Fleet: RN, HR, 3 HN (Fall Y168) and PAL, RN, HR, 3 HN (Y169): 11 ships by
    # turn 3. From turn 3 the Hydrans are at war and their schedule replaces the batches.
    "HYD": {1: 5, 2: 6},
}

ARRIVED = {
    # 204.0 and the order of battle: the Lyran Far Stars Fleet (CC, 4 CA, 5 CL, 4 DD, 4 FF,
    # CW, DW, SC, TGP, FRD = 23) and the Kzinti Baron's Fleet (15 units) arrive by strategic
    # movement from Spring Y169 (turn 2); the Baron's MB comes carried by the fleet's TGT on
    # the mobile-base mission (509.1-C), so all 15 come in one order.
    ("LYR", 2): 23,
    ("KZI", 2): 15,
}

FIRST_TREASURY = {
    # Turn 1, from the Ship Information Tables' build costs (FF 2.5 per the SIT's "Schedule:
    # 2.5"; the KLI D7C 9 and E4 2.5 likewise): income less the whole schedule.
    # LYR: 115 - (BC 10 + CA 8 + 3 CW 15 + 3 DW 12 + 3 FF 7.5 = 52.5) = 62.5
    "LYR": 125,
    # KLI: 142 - (D7C 9 + D7 8 + D6 8 + 9 D5 45 + 4 F5 12 + 2 F5L 8 + 3 E4 7.5 = 97.5) = 44.5
    "KLI": 89,
    # KZI: 91 - (BC 8 + CL 6 + DD 6 + 2 FF 5 = 25) = 66
    "KZI": 132,
    # HYD and FED build nothing on turn 1: their treasuries are their incomes, 37 and 165.5.
    "HYD": 74,
    "FED": 331,
}


@pytest.fixture(scope="module")
def campaign() -> Table:
    return play_campaign()


@pytest.fixture(scope="module")
def books(campaign: Table) -> dict[tuple[int, str], Books]:
    parts: list[PlayerTurn] = ledger(campaign.events)
    assert [(p.turn, p.seat) for p in parts] == [
        (t, s) for t in TURNS for s in ("coalition", "alliance")
    ]
    found: dict[tuple[int, str], Books] = {}
    for part in parts:
        for empire in SEAT_EMPIRES[part.seat]:
            found[(part.turn, empire)] = part.of(empire)
    return found


EMPIRES = sorted(CHART_EP)


@pytest.mark.parametrize("empire", EMPIRES)
def test_income_and_economy_share_per_turn(
    books: dict[tuple[int, str], Books], empire: str
) -> None:
    got = [(t, books[(t, empire)].income2, books[(t, empire)].permille) for t in TURNS]
    want = [(t, expected_income2(empire, t), permille(empire, t)) for t in TURNS]
    assert got == want


def test_the_federation_collects_165_5_ep_a_turn_not_221() -> None:
    assert [expected_income2("FED", t) for t in TURNS] == [331] * 6


def test_the_federation_economy_changes_once_when_the_lyrans_enter_kzinti_space(
    books: dict[tuple[int, str], Books],
) -> None:
    changes = [(t, b.economy) for (t, e), b in sorted(books.items()) if b.economy]
    assert len(changes) == 1
    turn, text = changes[0]
    # the Lyrans stand in 0702 when the Federation counts (they retreated there from 0701)
    assert turn == 1 and text.startswith("limited-war (LYR entered KZI space at 0702")


def test_the_lyran_hexes_are_in_one_kzinti_province_and_1306_in_none() -> None:
    provinces = json.loads((DATA / "map.json").read_text(encoding="utf-8"))["provinces"]
    holding = {h: p["id"] for p in provinces for h in p["hexes"] if h in (701, 702, 1306)}
    assert holding == {701: "KZI-01", 702: "KZI-01"}


def test_the_lyrans_leave_0701_only_by_damage_or_their_retreat(campaign: Table) -> None:
    """Every Lyran ship that moved into 0701 was destroyed there by an allocation of combat
    damage (302.6) or left with the engine's retreat (302.72) and stands where it went:
    nobody moved or adjusted them away."""
    board = rules(campaign).board
    destroyed = {
        loss.split()[0]
        for e in campaign.events
        if e.kind == "allocation" and e.data["hex"] == "0701"
        for loss in e.data["losses"]
        if loss.endswith(" destroyed")
    }
    retreated = {
        unit: int(e.data["to"])
        for e in campaign.events
        if e.kind == "retreat" and e.data["hex"] == "0701" and e.seat == "coalition"
        for unit in e.data.get("units", [])
    }
    lyrans = {
        unit
        for e in campaign.events
        if e.kind == "move" and e.data["path"][-1] == "0701" and e.data["empire"] == "LYR"
        for unit in e.data["units"]
    }
    gone = lyrans - {x.id for x in board.units}
    assert lyrans and retreated and gone <= destroyed
    assert {u: board.unit(u).hex for u in lyrans - gone} == {u: retreated[u] for u in lyrans - gone}


@pytest.mark.parametrize("empire", EMPIRES)
def test_disrupted_provinces_per_turn(books: dict[tuple[int, str], Books], empire: str) -> None:
    want = [disrupted(t) if empire == "KZI" else 0 for t in TURNS]
    assert [books[(t, empire)].disrupted for t in TURNS] == want


def _slots_from_the_data(empire: str, turn: int) -> int:
    """The slots of the schedule in force, read straight from the converted order of battle:
    turn 1 is Fall Y168 and each turn a half year later; of the batches of the turn's season
    (no season: spring) dated at or before it, the latest year's (431.0, issue 13 item 1)."""
    setup = json.loads((DATA / "setups" / "the-wind.json").read_text(encoding="utf-8"))
    (found,) = [e for e in setup["empires"] if e["empire"] == empire]
    year, season = 168 + turn // 2, "fall" if turn % 2 else "spring"
    batches = [
        b
        for b in found.get("production", [])
        if b.get("season", "spring") == season and b["year"] <= year
    ]
    if not batches:
        return 0
    latest = max(b["year"] for b in batches)
    return sum(u.get("count", 1) for b in batches if b["year"] == latest for u in b["units"])


@pytest.mark.parametrize("empire", EMPIRES)
def test_the_hand_listed_schedules_are_the_data_files(empire: str) -> None:
    assert [_slots_from_the_data(empire, t) for t in TURNS] == [
        SCHEDULE_SLOTS[empire].get(t, 0) for t in TURNS
    ]


@pytest.mark.parametrize("empire", EMPIRES)
def test_builds_per_turn_fill_the_schedule_in_force(
    books: dict[tuple[int, str], Books], empire: str
) -> None:
    got = [len(books[(t, empire)].builds) for t in TURNS]
    assert got == [SCHEDULE_SLOTS[empire].get(t, 0) for t in TURNS]


def test_every_empire_with_a_schedule_builds_every_turn(
    books: dict[tuple[int, str], Books],
) -> None:
    idle = [
        (t, e)
        for e, slots in SCHEDULE_SLOTS.items()
        for t in slots
        if slots[t] and not books[(t, e)].builds
    ]
    assert idle == []


def test_the_hydran_cc_slot_is_filled_by_a_class_not_the_hull(
    books: dict[tuple[int, str], Books],
) -> None:
    cc = [b for t in (3, 5) for b in books[(t, "HYD")].builds if b.instead_of == "CC"]
    assert len(cc) == 2 and all(b.cls != "CC" for b in cc)


@pytest.mark.parametrize("empire", EMPIRES)
def test_pre_war_deliveries_per_turn(books: dict[tuple[int, str], Books], empire: str) -> None:
    got = [books[(t, empire)].delivered for t in TURNS]
    assert got == [DELIVERED.get(empire, {}).get(t, 0) for t in TURNS]


def test_the_third_fleet_dn_comes_in_fall_y168_and_the_hydrans_have_11_by_turn_3(
    books: dict[tuple[int, str], Books],
) -> None:
    (third,) = books[(1, "FED")].deliveries
    assert third.startswith("Third Fleet: DN in ") and "Fall Y168" in third
    hydrans = [d.split(" in ")[0] for t in (1, 2) for d in books[(t, "HYD")].deliveries]
    assert hydrans == ["Home Fleet: RN, HR, 3x HN", "Home Fleet: PAL, RN, HR, 3x HN"]
    assert sum(books[(t, "HYD")].delivered for t in (1, 2)) == 11
    assert all("withheld" in d for t in (3, 4, 5, 6) for d in books[(t, "HYD")].deliveries)


@pytest.mark.parametrize("empire", EMPIRES)
def test_off_map_arrivals(books: dict[tuple[int, str], Books], empire: str) -> None:
    got = [books[(t, empire)].arrived for t in TURNS]
    assert got == [ARRIVED.get((empire, t), 0) for t in TURNS]


def test_no_unit_of_the_arriving_fleets_stays_off_the_map(campaign: Table) -> None:
    arriving = ("Far Stars Fleet", "Baron's Fleet")
    board = rules(campaign).board
    assert [u.id for u in board.units if u.hex == OFF_MAP and u.fleet in arriving] == []
    assert sum(1 for u in board.units if u.fleet in arriving) == 23 + 15


@pytest.mark.parametrize("empire", EMPIRES)
def test_turn_1_treasuries(books: dict[tuple[int, str], Books], empire: str) -> None:
    assert books[(1, empire)].treasury2 == FIRST_TREASURY[empire]


@pytest.mark.parametrize("empire", EMPIRES)
def test_the_books_balance(books: dict[tuple[int, str], Books], empire: str) -> None:
    """Each player turn's treasury is the last one plus income, less builds and strategic
    moves beyond the free ones (204.0: 10 free for the Lyrans and Kzintis, 1 EP each after)."""
    treasury2 = 0
    for t in TURNS:
        b = books[(t, empire)]
        treasury2 += (b.income2 or 0) - sum(x.cost2 for x in b.builds) - b.strategic2
        assert b.treasury2 == treasury2, (t, empire)


def test_arrivals_pay_for_moves_past_the_free_ten(books: dict[tuple[int, str], Books]) -> None:
    # free strategic moves per turn (nations.json, converted into map.json): 10 each
    assert books[(2, "LYR")].strategic2 == 2 * (23 - 10)
    assert books[(2, "KZI")].strategic2 == 2 * (15 - 10)
