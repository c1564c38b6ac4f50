"""A game's chain as a whole: replayed and checked, written to a file, read from one.

A full export holds the entropy seed and the unrevealed secrets, so it is written readable
by its owner alone from the moment the file exists; a public one holds only what both
players already have.
"""

from __future__ import annotations

import os
from pathlib import Path

import msgspec

from engine.core.errors import HexpostError
from saves import archive
from saves.home import Home
from saves.replica import GameRow, Replica
from tui.services.ports import Clock


class Verified(msgspec.Struct, frozen=True):
    """A replay from genesis: how many packets, the state hash reached, and whether the game
    is frozen anyway (the proof that froze it lies outside the chain: see its evidence)."""

    packets: int
    state_hash: str
    frozen: str | None


def verify(replica: Replica, row: GameRow) -> Verified:
    """Replay every stored packet: signatures, links and state hashes (raises when one fails)."""
    digest = replica.verify(row.game_id)
    return Verified(len(replica.packets(row.game_id)), digest.hex(), row.frozen)


def export_game(replica: Replica, row: GameRow, output: str, *, public: bool) -> int:
    """Write the game to ``output``; the number of packets written."""
    data = archive.export_game(replica, row.game_id, public=public)
    try:
        mode = 0o644 if public else 0o600
        fd = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        with os.fdopen(fd, "wb") as handle:
            if not public:  # an existing file keeps its mode through O_CREAT: narrow it
                os.fchmod(handle.fileno(), 0o600)
            handle.write(data)
    except OSError as exc:
        raise HexpostError(f"cannot write {output}: {exc.strerror}") from None
    return len(replica.packets(row.game_id))


def import_game(home: Home, source: str, clock: Clock) -> GameRow:
    """Read the game file ``source`` into the home (opened only once the file was read, and
    refused unread past `saves.archive.MAX_ARCHIVE_SIZE`); the game as it is now listed."""
    limit = archive.MAX_ARCHIVE_SIZE
    try:
        with Path(source).open("rb") as handle:
            data = handle.read(limit + 1)  # no more than that, whatever the file says it holds
    except OSError as exc:
        raise HexpostError(f"cannot read {source}: {exc.strerror}") from None
    if len(data) > limit:
        raise HexpostError(
            f"{source} is larger than a game archive may be ({limit >> 20} MiB): not imported"
        )
    try:
        return archive.import_game(home.replica(), data, now=clock())
    except HexpostError as exc:
        raise HexpostError(f"{source}: {exc}") from None
