"""Battle hexes: units of empires at war in one hex, listed in hex order."""

from __future__ import annotations

from engine.fe.battles import BattleHex, battle_hexes
from engine.fe.forces import OFF_MAP, Board, Unit, war_pairs


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
