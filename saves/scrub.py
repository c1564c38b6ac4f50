"""A look over the home's stored packets, a few hundred at a time, for damage nothing reads.

A game is played from the state kept at its head, so a stored packet damaged on disk in the
middle of its chain stops nothing until something replays through it: a review of that turn,
an export, `hexpost verify`. That may be months later, when the other player, whose copy
mends it, has moved on. So a sync that brought nothing new (the work is kept off the syncs
a player waits on) looks over `PACKETS_A_LOOK` stored packets once `LOOK_EVERY` has passed
(all games, in the order of their ids and positions, on from where the last look stopped,
round again at the end): each is opened as `saves.faults` opens them (its signature
under the keys the game binds, its game and position), nothing is replayed, about 0.12 ms a
packet. A packet that fails is recorded (`damaged_at`, looked at again each time it is
asked, so a copy that mended it clears it), said once in `Store.repairs`, and asked for by the
sync like a lost one (`saves.reading.Reader.first_lost`). A packet whose bytes open but whose
kept id is unlike theirs has its id put right from them (unless another row holds that id: a
copy filed twice, which `saves.inbox` puts back where it belongs when one comes).

The look's place and findings are kept in the store's ``meta`` rows, so a process that syncs
once and exits goes on where the last one stopped.
"""

from __future__ import annotations

from typing import Protocol

from engine.core.errors import HexpostError
from engine.core.packets import open_packet
from saves import faults, holes, store_games, store_scrub
from saves.outbox import parse_time
from saves.store import Store


class Home(Protocol):
    """What a look needs of the home's reader (`saves.reading.Reader`, which reads this
    module's findings: it is not imported here)."""

    @property
    def store(self) -> Store: ...

    def check_keys(self, game_id: bytes) -> bool: ...

    def note_repair(self, game_id: bytes, what: str, *, from_packets: bool = True) -> None: ...


LOOK_EVERY = 2 * 3600
"""Seconds between two looks: twelve a day for a home that syncs that often (`sync
--watch`), one a sync for a player who syncs less."""
PACKETS_A_LOOK = 200
"""Stored packets opened in one look: 200 of the golden campaign's took 23.4 ms, of which 22.4
ms was opening them (best of 15, 2026-12-06, on a 2-core AMD EPYC). A campaign of 2,500
packets is looked over in 13 looks: a day for a watching home, three or four days for a player
who syncs four times a day."""
MAX_FOUND = 64
"""Damaged positions kept between looks, at most (the first of each game is what is asked
for; `hexpost verify` names the rest)."""

_PLACE, _LAST, _FOUND = "scrub_place", "scrub_at", "scrub_found"


def look(replica: Home, now: str) -> list[tuple[bytes, int]]:
    """Look over the next stored packets if `LOOK_EVERY` has passed since the last look (or
    it cannot be read); the damaged positions found, by game. In a transaction of its own."""
    store = replica.store
    last = store.meta(_LAST)
    if last is not None and not _due(last, now):
        return []
    game_id, seq = _place(store.meta(_PLACE))
    rows = store_scrub.packets_after(store, game_id, seq, PACKETS_A_LOOK)
    keys: dict[bytes, dict[bytes, list[bytes]]] = {}
    found: list[tuple[bytes, int]] = []
    with store.transaction():
        for game, position, stored_id, data in rows:
            bound = keys.get(game)
            if bound is None:
                bound = keys[game] = faults.bound_keys(store, game)
            opened = _opened(bound, game, position, data)
            if opened is None and replica.check_keys(game):  # (the kept keys were damaged)
                bound = keys[game] = faults.bound_keys(store, game)
                opened = _opened(bound, game, position, data)
            if opened is None:
                found.append((game, position))
            elif opened != stored_id and store_games.packet_by_id(store, opened) is None:
                store_scrub.set_packet_id(store, game, position, opened)
                replica.note_repair(
                    game, f"the kept id of packet {position} was damaged; rebuilt it"
                )
        ended = len(rows) < PACKETS_A_LOOK
        place = "" if ended or not rows else f"{rows[-1][0].hex()}:{rows[-1][1]}"
        store.set_meta(_PLACE, place)
        store.set_meta(_LAST, now)
        still = [
            (g, s) for g, s in _found(store) if (g, s) not in found and _still_damaged(store, g, s)
        ]
        kept = (still + found)[:MAX_FOUND]
        store.set_meta(_FOUND, ",".join(f"{g.hex()}:{s}" for g, s in kept))
    for game, position in found:
        row = store_games.game(store, game)
        row_name = game.hex() if row is None else row.name
        replica.note_repair(
            game,
            f"stored packet {position} is damaged (found looking over the stored packets); a "
            f"sync by mail asks the other player for a copy, or {holes.advice(row_name, position)}",
            from_packets=False,
        )
    return found


def damaged_at(store: Store, game_id: bytes) -> int | None:
    """The first position of the game a look found damaged, and still is (its bytes are
    opened again: a copy the other player sent may have mended it)."""
    for game, seq in sorted(_found(store)):
        if game == game_id and _still_damaged(store, game, seq):
            return seq
    return None


def _still_damaged(store: Store, game_id: bytes, seq: int) -> bool:
    data = store_games.packet_data(store, game_id, seq)
    return (
        data is not None and _opened(faults.bound_keys(store, game_id), game_id, seq, data) is None
    )


def _opened(keys: dict[bytes, list[bytes]], game_id: bytes, seq: int, data: bytes) -> bytes | None:
    """The id of the stored packet ``data`` at ``(game_id, seq)`` if it opens under the
    game's ``keys`` and says it is that game's packet at that position; None if not."""
    try:
        packet = open_packet(data, lambda kid: keys.get(kid, []))
    except HexpostError:
        return None
    body = packet.body
    return packet.packet_id if body.game_id == game_id and body.seq == seq else None


def _found(store: Store) -> list[tuple[bytes, int]]:
    """The damaged positions the looks recorded (what does not read is dropped)."""
    text = store.meta(_FOUND) or ""
    out = []
    for item in text.split(",")[:MAX_FOUND]:
        place = _place(item)
        if place[0]:
            out.append(place)
    return out


def _place(text: str | None) -> tuple[bytes, int]:
    """A ``game:seq`` place as kept (hex id, position); the start when it does not read."""
    game, _, seq = (text or "").partition(":")
    try:
        place = bytes.fromhex(game), int(seq)
    except ValueError:
        return b"", -1
    return place if 0 <= place[1] < 1 << 62 else (b"", -1)


def _due(last: str, now: str) -> bool:
    """Whether a look made at ``last`` is `LOOK_EVERY` old at ``now`` (yes when ``last``
    does not read, or lies ahead: a clock set back must not stop the looks)."""
    then, current = parse_time(last), parse_time(now)
    if then is None or current is None:
        return then is None
    seconds = (current - then).total_seconds()
    return seconds >= LOOK_EVERY or seconds < 0
