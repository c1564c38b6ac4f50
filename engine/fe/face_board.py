"""F&E's board for the client face (`engine.core.face.Board`), whole or without its supply.

The board is built from the views' record (`engine.fe.views`): empires become sides (their
treasury, income and units as facts), units pieces (crippled, out of supply, reserve as
marks), the hexes worth showing places (owner, planets and bases as features, battle and
capture as marks).

Working out every unit's supply (five supply grids) is most of what a board costs, and a
game screen's first paint need not wait for it (issue 16, item 5): `quick_board` is the same
board without it (no ``supply-*`` piece mark, no "out of supply" fact), which the app shows
first and replaces with `board` once that has been worked out in the background. It leaves
out every side's income too (no "income" fact): nothing a first paint draws reads a side's
facts (the map, the hex panel and the orders panel read sides' ids and seats), and working
out five incomes is some 4M of the 440M instructions of that paint's read of The Wind (issue
16). The screens that show a side's figures (``show``, the review's changes) read the whole
board.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from engine.core.face import Board, Fact, HexGrid, Piece, Place, Side
from engine.fe.forces import class_allowance
from engine.fe.model import FeState
from engine.fe.steps import base


def board(state: FeState) -> Board:
    """The board now, with every unit's supply, from the views' record of ``state`` that
    ``show --json`` prints beside it (`engine.fe.views.shared_views`: worked out once)."""
    from engine.fe.views import shared_views

    return _board(shared_views(state))


def quick_board(state: FeState) -> Board:
    """`board` without the supply and the sides' income: what it says of everything else is
    the same."""
    from engine.fe.steps.battles import battle_list
    from engine.fe.views import hex_views, unit_view

    record = {
        "empires": _empires_quick(state),
        "units": [unit_view(state, unit, None) for unit in state.board.units],
        "hexes": hex_views(state, base.galaxy()),
        "battles": battle_list(state),
    }
    return _board(record)


def _empires_quick(state: FeState) -> list[dict[str, Any]]:
    """`engine.fe.views.empire_views`' entries as far as the board reads them, the supply
    and the income left out."""
    from engine.fe.economics import fmt_ep
    from engine.fe.forces import OFF_MAP

    on_map = Counter(u.empire for u in state.board.units if u.hex != OFF_MAP)
    return [
        {
            "empire": empire,
            "seat": base.seat_of(state, empire),
            "treasury": fmt_ep(state.ep2(empire)),
            "units_on_map": on_map[empire],
            "supply": None,
        }
        for empire in base.all_empires(state)
    ]


def _board(record: Mapping[str, Any]) -> Board:
    galaxy = base.galaxy()
    names = {e.id: e.name for e in galaxy.empires}
    sides = tuple(
        Side(e["empire"], names.get(e["empire"], e["empire"]), e["seat"], _side_facts(e))
        for e in record["empires"]
    )
    bases = {b["id"] for h in record["hexes"] for b in h["bases"]}
    pieces = tuple(
        Piece(
            u["id"],
            u["class"],
            u["empire"],
            u["hex"],
            _unit_marks(u) + (("base",) if u["id"] in bases else _no_movement(u)),
            u["fleet"] or "",
        )
        for u in record["units"]
    )
    listed = [b for b in record["battles"] if isinstance(b, dict)]
    battles = {str(b.get("hex", "")) for b in listed}
    places = tuple(_place(h, battles) for h in record["hexes"])
    grid = HexGrid(galaxy.width, galaxy.height, low_columns="even")
    fighting = next((str(b.get("hex", "")) for b in listed if b.get("fighting")), "")
    return Board(grid, sides, pieces, places, focus=fighting)


def _side_facts(empire: dict[str, Any]) -> tuple[Fact, ...]:
    facts = [Fact("treasury", f"{empire['treasury']} EP")]
    if "income" in empire:  # not on the quick board
        facts.append(Fact("income", f"{empire['income']} EP"))
    facts.append(Fact("units on the map", str(empire["units_on_map"])))
    supply = empire.get("supply")
    units = supply.get("units") if isinstance(supply, dict) else None
    cut_off = units.get("none", 0) if isinstance(units, dict) else 0
    if cut_off:
        facts.append(Fact("out of supply", str(cut_off)))
    return tuple(facts)


def _no_movement(unit: dict[str, Any]) -> tuple[str, ...]:
    """``immobile`` for a unit that is no base and has no movement of its own (a PDU,
    203.1): it goes only where something carries it (`engine.core.face.Piece`)."""
    return ("immobile",) if class_allowance(unit["empire"], unit["class"]) == 0 else ()


def _unit_marks(unit: dict[str, Any]) -> tuple[str, ...]:
    marks = []
    if unit["crippled"]:
        marks.append("crippled")
    if unit["supply"] not in (None, "in"):
        marks.append(f"supply-{unit['supply']}")
    if unit["reserve"]:
        marks.append("reserve")
    if unit["fleet"] and not unit["released"]:
        marks.append("not-released")
    return tuple(marks)


def _place(record: dict[str, Any], battles: set[str]) -> Place:
    features = [
        f"{p['kind']} {p['name']}" if p["name"] else str(p["kind"]) for p in record["planets"]
    ]
    features += [f"{b['class']} {b['id']}" for b in record["bases"]]
    marks = [
        mark
        for mark, on in (
            ("battle", record["hex"] in battles),
            ("base", bool(record["bases"])),
            ("captured", record["captured"]),
            ("devastated", record["devastated"]),
            ("capital", record["capital"]),
        )
        if on
    ]
    return Place(
        record["hex"],
        record["owner"] or "",
        tuple(features),
        tuple(record["units"]),
        tuple(marks),
    )
