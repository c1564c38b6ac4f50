"""Battle hexes: units of empires at war in one hex, listed in hex order."""

from __future__ import annotations

import random

import msgspec

from engine.fe.battles import BattleHex, battle_hexes
from engine.fe.forces import OFF_MAP, Board, Unit, war_pairs
from engine.fe.galaxy import Galaxy, load_galaxy
from engine.fe.unit_kinds import is_ship
from tests.engine.fe.helpers import start


def test_battle_hexes_need_empires_at_war_in_one_hex() -> None:
    board = Board(
        units=(
            Unit("FED-0001", "FED", "CA", 2908),
            Unit("KLI-0001", "KLI", "D7", 1411),
            Unit("KZI-0001", "KZI", "CC", 1411),
            Unit("LYR-0001", "LYR", "CA", 1411),
            Unit("LYR-0002", "LYR", "CA", 1401),
            Unit("KZI-0002", "KZI", "FF", 1401),
            Unit("HYD-0001", "HYD", "LN", 1401),
            Unit("KLI-0002", "KLI", "D7", OFF_MAP),
            Unit("KZI-0003", "KZI", "FF", OFF_MAP),
            Unit("FED-0002", "FED", "CA", 2909),
            Unit("KLI-0003", "KLI", "F5", 2909),
        ),
        at_war=war_pairs([("KZI", "KLI"), ("LYR", "KZI")]),
    )
    assert battle_hexes(board) == [
        BattleHex(1401, ("HYD", "KZI", "LYR")),
        BattleHex(1411, ("KLI", "KZI", "LYR")),
    ]  # 2909: Federation and Klingons are not at war; off-map units never fight


def _battle_hexes_unit_by_unit(board: Board, galaxy: Galaxy | None) -> list[BattleHex]:
    """`battle_hexes` read hex by hex from the units: every occupied hex's empires, and
    (given the map) every occupied planet hex's ships at war with the planet's owner."""
    found = []
    for h in sorted({u.hex for u in board.units} - {OFF_MAP}):
        here = {u.empire for u in board.at(h)}
        owner = ""
        if galaxy is not None and galaxy.hex(h).planets and h not in board.devastated:
            holder = board.owner(galaxy, h)
            if any(is_ship(u) and board.enemies(u.empire, holder) for u in board.at(h)):
                owner = holder
        empires = sorted(here | {owner} if owner else here)
        at_war = any(board.enemies(a, b) for a in empires for b in empires if a < b)
        if owner or at_war:
            found.append(BattleHex(h, tuple(empires), owner))
    return found


def test_battle_hexes_match_a_unit_by_unit_reading_on_random_boards() -> None:
    """Battle hexes and planets' battles (302.0, 508.0), found from the empires in each hex
    (stacks with no enemy of a planet's owner passed over), are those a reading of every
    unit gives: on The Wind's board with stacks moved at random, wars made and ended,
    hexes captured and planets devastated."""
    rng = random.Random(302)
    galaxy = load_galaxy()
    state = start()
    empires = ("FED", "HYD", "KLI", "KZI", "LYR")
    planet_hexes = [
        c * 100 + r for c in range(1, 62) for r in range(1, 20) if galaxy.hex(c * 100 + r).planets
    ]
    planets_fought = battles_found = alone = 0
    for _ in range(40):
        board = state.board
        on_map = [u for u in board.units if u.hex != OFF_MAP]
        for _ in range(4):
            unit = rng.choice(on_map)
            to = rng.choice(planet_hexes) if rng.random() < 0.3 else rng.choice(on_map).hex
            board = board.with_units(
                msgspec.structs.replace(u, hex=to) for u in board.at(unit.hex) if rng.random() < 0.5
            )
        wars = [(a, b) for a in empires for b in empires if a < b and rng.random() < 0.4]
        owners = tuple(
            sorted({rng.choice(on_map).hex: rng.choice(empires) for _ in range(3)}.items())
        )
        devastated = tuple(sorted({rng.choice(on_map).hex for _ in range(3)}))
        board = msgspec.structs.replace(
            board, at_war=war_pairs(wars), owners=owners, devastated=devastated
        )
        found = battle_hexes(board, galaxy)
        assert found == _battle_hexes_unit_by_unit(board, galaxy)
        assert battle_hexes(board) == _battle_hexes_unit_by_unit(board, None)
        planets_fought += sum(bool(b.planet) for b in found)
        alone += sum(len(b.empires) == 2 and b.planet in b.empires for b in found)
        battles_found += len(found)
        state = state.with_board(board)
    assert planets_fought > 10 and battles_found > 100 and alone > 3
