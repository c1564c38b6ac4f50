"""The map's adjacency table holds one int object per hex (`engine.fe.blocking._table`).

The searches over it (`supply_search.reach`, `blocking._blocked_by`) find hexes they met already by
identity when every neighbour is the very object of its own key: the table must still list,
hex by hex, what `hexgrid.neighbours` gives, in its order."""

from __future__ import annotations

from engine.core import hexgrid
from engine.fe import blocking, supply
from engine.fe.galaxy import load_galaxy


def test_the_adjacency_table_is_the_neighbours_with_one_object_per_hex() -> None:
    galaxy = load_galaxy()
    table = blocking.adjacency(galaxy)
    width, height = galaxy.width, galaxy.height
    expected = [c * 100 + r for c in range(1, width + 1) for r in range(1, height + 1)]
    assert list(table) == expected
    keys = {h: h for h in table}
    for h, around in table.items():
        assert around == hexgrid.neighbours(h, width, height)
        assert all(n is keys[n] for n in around), h


def test_the_supply_tables_share_the_map_s_hex_objects() -> None:
    galaxy = load_galaxy()
    keys = {h: h for h in blocking.adjacency(galaxy)}
    for empire in ("KLI", "FED", "KZI", "LYR"):
        table = supply._neighbour_table(galaxy, empire)
        for h, around in table.items():
            assert all(n is keys[n] for n in around if n in keys), (empire, h)
