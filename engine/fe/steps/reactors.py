"""Who may react to a movement batch (205.0): the units `engine.fe.steps.movement` asks about
when a batch ends (is there a reaction window at all?) and the reaction policy answers from.

Only hexes holding phasing units when the window opens can be reacted to, and only units
within reaction range of one of them are asked (`engine.fe.reaction` judges each).
The hexes within range of a target are read from a table of offsets worked out once per
range and column parity (`_offsets`), not by a distance per hex of the search box: a
batch's cost follows the hexes near what moved, not the size of the board.
"""

from __future__ import annotations

from operator import attrgetter

from engine.core import caches
from engine.fe.forces import OFF_MAP, Board, Unit
from engine.fe.galaxy import HexId
from engine.fe.model import FeState
from engine.fe.reaction import REACTION_RANGE, stack_reactors
from engine.fe.steps import base


def reactors(state: FeState) -> list[str]:
    """The non-phasing units that may react to something in the batch, sorted by id.

    Only hexes holding phasing units now can be reacted to (`engine.fe.reaction` asks for
    the enemy in the hex), and only units within reaction range of one of them are asked,
    which keeps this cheap on a full board. Kept per board, batch and reactions so far (by
    identity: a state that changed none of them, as a policy or a note does, hands on the
    same objects): the reaction window asks at every order, and a packet may hold thousands
    of orders that change nothing here.
    """
    return list(_reactors(state.board, state.batch, state.reacted, base.phasing_empires(state)))


@caches.by_identity(maxsize=4, identity=3)
def _reactors(
    board: Board,
    steps: tuple[tuple[HexId, HexId], ...],
    reacted_ids: tuple[str, ...],
    phasing: tuple[str, ...],
) -> tuple[str, ...]:
    """`reactors` of a board, the batch's steps, the units that reacted already and the
    phasing empires. Not to be mutated."""
    targets = sorted({to for _, to in steps})
    held = [h for h in targets if any(u.empire in phasing for u in board.at(h))]
    if not held:
        return ()
    # Judged without extended reaction (`stack_reactors`), no unit reacts farther than this.
    near_of = within_range(held, REACTION_RANGE)
    reacted = frozenset(reacted_ids)
    into: dict[HexId, list[tuple[HexId, HexId]]] = {}  # the steps into each hex
    for step in steps:
        into.setdefault(step[1], []).append(step)
    found: list[Unit] = []
    for h, near in near_of.items():  # hex by hex: only the hexes in range are read
        here = board.at(h) if h != OFF_MAP else ()
        if not here:
            continue
        near_steps = [step for t in near for step in into[t]]  # (any one will do)
        found.extend(stack_reactors(board, phasing, here, near_steps, reacted))
    # In the board's order (its empires in order, each empire's units by id).
    return tuple(unit.id for unit in sorted(found, key=_BOARD_ORDER))


_BOARD_ORDER = attrgetter("empire", "id")


def within_range(targets: list[HexId], reach: int) -> dict[HexId, list[HexId]]:
    """Per hex, the ``targets`` (in their order) at most ``reach`` hexes from it.

    Worked out from the targets' side, so that each stack on the board costs one look-up
    rather than a distance per target. A hex ``reach`` steps away lies within ``reach``
    columns (cube x is the column) and, as a column's rows shift by half a hex, within
    ``2 * reach`` rows; the hexes of that box within ``reach`` are the same offsets from
    every target of a column parity (`_offsets`), cut where the box leaves the hex ids
    (a column or row below 0, a row above 99).
    """
    out: dict[HexId, list[HexId]] = {}
    for t in targets:
        column, row = divmod(t, 100)
        for dc, dr in _offsets(reach, column % 2):
            c, r = column + dc, row + dr
            if c >= 0 and 0 <= r <= 99:
                out.setdefault(c * 100 + r, []).append(t)
    return out


@caches.derived(maxsize=16, shipped=True)
def _offsets(reach: int, parity: int) -> tuple[tuple[int, int], ...]:
    """The (column, row) offsets from a hex of a column of this parity to the hexes at most
    ``reach`` from it, by column then row: the cube distance (`hexgrid.distance`) between
    two hexes depends only on their offsets and the parity of the first one's column."""
    out = []
    for dc in range(-reach, reach + 1):
        # Cube z is the row less half the columns before it, rounded down (`to_cube`).
        shift = (parity + dc - 1) // 2 - (parity - 1) // 2
        for dr in range(-2 * reach, 2 * reach + 1):
            dz = dr - shift
            if max(abs(dc), abs(dz), abs(dc + dz)) <= reach:
                out.append((dc, dr))
    return tuple(out)
