"""The rows a home derives from its packets, checked against them and put right.

A home keeps, beside each game's packets, rows that say what the packets determine: the
game's row (its ruleset, where its chain ends), the keys its seats bind. Read on every
command, they are trusted as they are, so a row damaged on disk (a bit flipped, a row lost)
would stop the game for good or hide it. `RowRepairs` is the part of `saves.reading.Reader`
that checks each against the packets where it is read, puts it right from them, and says so
once in `Store.repairs` (the command line prints it; the app shows it above the games).
The kept states and events, which `Reader` rebuilds by replay, are its own business.
"""

from __future__ import annotations

import contextlib

from engine.core.errors import HexpostError
from engine.core.packets import (
    Body,
    Join,
    key_id,
    open_packet,
    packet_id,
    peek_body,
    read_envelope,
)
from engine.core.state import AnyState
from saves import (
    faults,
    lost_games,
    scrub,
    store_evidence,
    store_games,
    store_inbox,
    store_keys,
    store_repairs,
)
from saves.keys import Identity
from saves.store import Store
from saves.store_games import GameRow


class RowRepairs:
    """Checks of a home's derived rows against its packets (mixed into `Reader`, whose
    state reading they use)."""

    store: Store
    identity: Identity | None
    _keys_good: set[bytes]
    _heads_good: set[bytes]
    _chains_whole: set[bytes]
    _unreplayable: dict[bytes, int]
    _mending: bool
    _lost_looked: bool

    def state(self, game_id: bytes, at: int | None = None) -> AnyState:
        raise NotImplementedError  # (`Reader.state`)

    def mend_ruleset(self, row: GameRow) -> bool:
        """Whether the game's row names a ruleset its genesis does not (this hexpost lacks
        the one the row names: a plug-in uninstalled leaves the genesis naming it too, a
        damaged row does not), and now names the genesis's."""
        opened = lost_games.genesis_of(self.store, row.game_id)
        if opened is None or opened[0].ruleset_id == row.ruleset:
            return False
        with self.store.transaction():
            store_repairs.set_ruleset(self.store, row.game_id, opened[0].ruleset_id)
        self.note_repair(
            row.game_id, "the name of its ruleset in the games table was damaged; rebuilt it"
        )
        return True

    def note_repair(self, game_id: bytes, what: str, *, from_packets: bool = True) -> None:
        """Say once in `Store.repairs` what was rebuilt from the game's packets (or, not
        ``from_packets``, how else: a lost packet filled by the other side's copy)."""
        row = store_games.game(self.store, game_id)
        name = game_id.hex() if row is None else row.name
        line = f"game {name}: {what}"
        if from_packets:
            line += " from the packets (nothing was lost)"
        if line not in self.store.repairs:
            self.store.repairs.append(line)

    def mend_lost_games(self) -> bool:
        """Whether a game's row was lost (its packets stored, its row gone or its id
        damaged) and is now rebuilt from its genesis and chain (`saves.lost_games`), or,
        its genesis lost too, from its newest kept state that checks (the next sync asks
        for the genesis); a row left with no packets under its id is dropped, and a game
        that nothing left names is said to be lost, with what brings it back. Listing the
        games, looking one up and placing a packet of a game not held call it; it costs one
        look-up when nothing is lost."""
        if self._mending:  # (rebuilding a row reads its game, which checks again)
            return False
        lost = store_repairs.lost_games(self.store)
        stray = store_repairs.rows_without_packets(self.store)
        if not lost and not stray:
            return False
        self._mending = True
        try:
            with self.store.transaction():
                # Packets whose game id alone was damaged go back to their game first, a lost
                # one's too: its row is then rebuilt from its genesis, to its last packet.
                refiled = [moved for game_id in lost for moved in self._refile(
                    game_id, store_repairs.strays(self.store, game_id, -1), set(lost))]  # fmt: skip
                if refiled:
                    lost = store_repairs.lost_games(self.store)
                    stray = store_repairs.rows_without_packets(self.store)
                found, kept = self._lost_rows(lost)
                for game_id in stray:
                    store_repairs.delete_game_row(self.store, game_id)
                for game_id, row in found.items():
                    if row is not None:
                        self._insert_lost(game_id, row)
        finally:
            self._mending = False
        for game_id in stray:
            self.note_repair(game_id, "a row in the games table had no packets; dropped it")
        rebuilt = [game_id for game_id, row in found.items() if row is not None]
        for game_id in rebuilt:
            from_state = kept.get(game_id)
            if from_state is None:
                self.note_repair(game_id, "its row in the games table was lost; rebuilt it")
            else:
                self.note_repair(game_id, _rebuilt_from_state(from_state[1]), from_packets=False)
        for game_id, from_state in kept.items():
            if from_state is None:
                self.note_repair(game_id, _not_rebuilt(game_id), from_packets=False)
        self._note_refiled(refiled)
        return bool(rebuilt or refiled)

    def _lost_rows(
        self, lost: list[bytes]
    ) -> tuple[
        dict[bytes, lost_games.LostRow | None], dict[bytes, tuple[lost_games.LostRow, int] | None]
    ]:
        """Per lost game, its row as its genesis tells it (`lost_games.from_genesis`), or
        where the genesis was lost too, as its newest kept state that checks tells it
        (`lost_games.from_kept_state`); and, for the latter games, that row and the state's
        position (None where no kept state checks either)."""
        found: dict[bytes, lost_games.LostRow | None] = {}
        kept: dict[bytes, tuple[lost_games.LostRow, int] | None] = {}
        for game_id in lost:
            found[game_id] = lost_games.from_genesis(self.store, game_id, self.identity)
            if found[game_id] is None and lost_games.genesis_of(self.store, game_id) is None:
                from_state = lost_games.from_kept_state(self.store, game_id, self.identity)
                kept[game_id] = from_state
                found[game_id] = None if from_state is None else from_state[0]
        return found, kept

    def _refile(
        self,
        game_id: bytes,
        strays: list[tuple[int, bytes, bytes]],
        lost: set[bytes] | frozenset[bytes] = frozenset(),
    ) -> list[tuple[bytes, int]]:
        """Put back where their bytes say the packets ``strays`` filed under ``game_id``
        (`store_repairs.strays`), each whose place is free, in a game with a row or one of the
        ``lost`` (packets, but no row yet), and whose bytes are the packet its row names; the
        places filled (inside the caller's transaction)."""
        moved: list[tuple[bytes, int]] = []
        for seq, pid, data in strays:
            body = peek_body(data)
            if body is None or (body.game_id, body.seq) == (game_id, seq):
                continue
            if packet_id(read_envelope(data).body) != pid:
                continue
            if body.game_id not in lost and store_games.head(self.store, body.game_id) is None:
                continue
            if store_games.packet_at(self.store, body.game_id, body.seq) is not None:
                continue
            store_repairs.refile_packet(self.store, game_id, seq, body.game_id, body.seq)
            moved.append((body.game_id, body.seq))
        return moved

    def refile_at(self, game_id: bytes, seq: int) -> bool:
        """Whether the row at ``seq`` of the game held another position's packet (its own
        position damaged on disk) and is now put back where its bytes say (`_refile`: if that
        place is free; inside the caller's transaction). A copy for ``seq`` would otherwise
        meet a packet that is not its own there: a conflict, or, by the same seat, what looks
        like two packets signed for one position, which freezes the game."""
        row = store_repairs.row_at(self.store, game_id, seq)
        if row is None:
            return False
        moved = self._refile(game_id, [row])
        self._note_refiled(moved)
        return bool(moved)

    def _note_refiled(self, moved: list[tuple[bytes, int]]) -> None:
        for game_id, seq in moved:
            self.note_repair(game_id, f"packet {seq} was kept under another position; put it back")

    def _insert_lost(self, game_id: bytes, row: lost_games.LostRow) -> None:
        """Write a lost game's row as its genesis (or kept state) tells it; active if this
        home's seat has joined by the last stored packet (its state read from the kept head
        state, checked as ever; where that cannot be read, a key the game binds to the seat
        says so), and stopped again if evidence against the game is kept."""
        store = self.store
        store_games.insert_game(store, game_id, name=row.name, ruleset=row.ruleset,
                                scenario=row.scenario, my_seat=row.my_seat, status="invited",
                                now=row.created_at)  # fmt: skip
        damaged = store_repairs.damaged_heads(store, game_id)
        if self._mend_kept_columns(damaged):
            damaged = store_repairs.damaged_heads(store, game_id)
        for fix in damaged:  # its head: the last packet
            if self._ends(fix):
                store_repairs.mend_head(store, fix)
        try:
            joined = any(s.seat == row.my_seat and s.joined for s in self.state(game_id).core.seats)
        except HexpostError:  # (a packet lost or damaged too: the sync asks for it)
            joined = store_keys.seat_key(store, game_id, row.my_seat) is not None
        if joined:
            store_games.set_status(store, game_id, "active")
        for _, kind, _, detail, found_at, _, _ in store_evidence.evidence_rows(store, game_id):
            store_games.freeze(store, game_id, f"{kind}: {detail}", str(found_at))
            break

    def check_head(self, game_id: bytes) -> None:
        """Put the game's row right if it does not end where its stored packets do (a row
        damaged on disk: a head behind its packets would serve an older state, and every
        packet from the other side would then not fit the chain). Looked at once a game and
        process while it is good; what reads a game's row or its head state calls it."""
        if game_id in self._heads_good:
            return
        if not self._lost_looked:  # (a packet of it under another game's id comes back first)
            self._lost_looked = True
            self.mend_lost_games()
        head = store_games.head(self.store, game_id)
        strays = [] if head is None else store_repairs.strays(self.store, game_id, head.seq)
        if strays:  # (no write transaction for nothing: a listing must not wait on a sync)
            with self.store.transaction():
                moved = self._refile(game_id, strays)
            self._note_refiled(moved)
        mended_seat = self._mend_seat(game_id)
        if not self._mend_heads(game_id) and not mended_seat:
            self._heads_good.add(game_id)

    def _mend_seat(self, game_id: bytes) -> bool:
        """Whether the game's row names as this home's a seat the game binds no key to, where
        its genesis says another (`lost_games.from_genesis`: the seat whose key is this
        home's, or the one invited at its address), and now names that one. Every look at
        the game's next move reads that seat's state: a damaged name stopped them all.
        (A seat not yet joined has no key: its genesis is opened, once a process.)"""
        row = store_games.game(self.store, game_id)
        if row is None or row.my_seat in store_keys.seat_keys(self.store, game_id):
            return False
        found = lost_games.from_genesis(self.store, game_id, self.identity)
        if found is None or found.my_seat == row.my_seat:
            return False
        with self.store.transaction():
            store_repairs.set_my_seat(self.store, game_id, found.my_seat)
        self.note_repair(game_id, "this home's seat in the games table was damaged; rebuilt it")
        return True

    def _mend_heads(self, game_id: bytes) -> bool:
        """Whether the game's row was damaged (`check_head`), and is now put right."""
        damaged = store_repairs.damaged_heads(self.store, game_id)
        if self._mend_kept_columns(damaged):
            damaged = store_repairs.damaged_heads(self.store, game_id)
        fixes = [fix for fix in damaged if self._ends(fix)]
        if fixes:
            with self.store.transaction():
                for fix in fixes:
                    store_repairs.mend_head(self.store, fix)
                    store_repairs.drop_events_after(self.store, fix.game_id, fix.seq)
            for fix in fixes:
                self.note_repair(
                    fix.game_id, "the kept position of its last packet was damaged; rebuilt it"
                )
        return bool(fixes)

    def _ends(self, fix: store_repairs.HeadFix) -> bool:
        """Whether the last stored packet ``fix`` names is what its row says: the packet its
        bytes hold, at that position. A row whose own position or id was damaged (the chain
        itself broken, which `hexpost verify` names) is no head to move the game to. Where
        those bytes no longer read, the game's row must name that packet's id and hash itself
        (its position alone damaged): two copies agreeing."""
        data, read = self._last_packet(fix)
        if read is None:
            return data is not None and fix.row_agrees
        body, pid = read
        return pid == fix.packet_id and body.state_hash == fix.state_hash

    def _last_packet(
        self, fix: store_repairs.HeadFix
    ) -> tuple[bytes | None, tuple[Body, bytes] | None]:
        """The stored bytes of the last packet ``fix`` names, and, if they read as a packet
        of its game at its position, their body and id (nothing verified)."""
        data = store_games.packet_data(self.store, fix.game_id, fix.seq)
        body = None if data is None else peek_body(data)
        if data is None or body is None or (body.seq, body.game_id) != (fix.seq, fix.game_id):
            return data, None
        return data, (body, packet_id(read_envelope(data).body))

    def _mend_kept_columns(self, damaged: list[store_repairs.HeadFix]) -> bool:
        """Whether the id or state hash kept beside a game's last packet (of ``damaged``, rows
        that do not end where their packets do) differs from what that packet's intact bytes
        give, and is now put right: a damaged copy that made the game's row look damaged, or
        kept a lost row's head from being found. The bytes are intact if their id is the kept
        one (only the hash differs), or else if their signature is good under the key the
        game binds their seat (the kept id was damaged)."""
        mended = False
        for fix in damaged:
            data, read = self._last_packet(fix)
            if data is None or read is None:
                continue
            body, pid = read
            if pid == fix.packet_id and body.state_hash == fix.state_hash:
                continue
            if pid != fix.packet_id and not self._signed(fix.game_id, data):
                continue
            with self.store.transaction():
                store_repairs.set_packet_columns(
                    self.store, fix.game_id, fix.seq, pid, body.state_hash
                )
            what = "state hash" if pid == fix.packet_id else "id"
            self.note_repair(
                fix.game_id, f"the {what} kept with packet {fix.seq} was damaged; rebuilt it"
            )
            mended = True
        return mended

    def _signed(self, game_id: bytes, data: bytes) -> bool:
        """Whether a stored packet's signature is good under the keys the game binds."""
        keys = faults.bound_keys(self.store, game_id)
        try:
            open_packet(data, lambda kid: keys.get(kid, []))
        except HexpostError:
            return False
        return True

    def first_lost(self, game_id: bytes) -> int | None:
        """The first packet of the game lost from this home's store (`saves.holes`), or found
        no longer opening there by a replay (the head state's is read first) or by a look
        over the stored packets (`saves.scrub`), if any: what a sync asks the other side for.
        The rows are counted once a game and process while the chain is whole."""
        with contextlib.suppress(HexpostError):  # (a replay that fails notes where)
            self.state(game_id)
        found = [] if game_id not in self._unreplayable else [self._unreplayable[game_id]]
        damaged = scrub.damaged_at(self.store, game_id)  # (found by a look over the packets)
        if damaged is not None:
            found.append(damaged)
        if game_id not in self._chains_whole:
            head = store_games.head(self.store, game_id)
            gap = None if head is None else store_repairs.first_lost(self.store, game_id, head.seq)
            if gap is None:
                self._chains_whole.add(game_id)
            else:
                found.append(gap)
        return min(found, default=None)

    def lost_range(self, game_id: bytes) -> tuple[int, int | None] | None:
        """`first_lost`, and the last fault from there on (`saves.faults`): what one ask
        covers. (Looked for only until it has been asked for: the ask goes once.)"""
        first = self.first_lost(game_id)
        if first is None:
            return None
        if store_inbox.resend_asked(self.store, game_id, first):
            return first, None
        return first, faults.last_fault(self.store, game_id, first)

    def check_keys(self, game_id: bytes) -> bool:
        """Whether the keys this home keeps for the game's seats (what received packets are
        verified with, `saves.store_keys`) were damaged and are now rebuilt from its state,
        which the genesis and joins determine: a damaged row would otherwise have every
        packet of that seat refused for good. Done once a game and process when they are
        found good, so that a stream of forged packets costs one look. Where the state cannot
        be read (a packet lost too, which the copy being judged may be), they come from the
        stored genesis and joins instead (`_keys_from_chain`), looked at each time."""
        if game_id in self._keys_good:
            return False
        try:
            seats = self.state(game_id).core.seats
        except HexpostError:
            chain = self._keys_from_chain(game_id)
            if chain is None or store_keys.seat_keys(self.store, game_id) == chain:
                return False
            bound = chain
        else:
            bound = {s.seat: (key_id(s.public_key), s.public_key) for s in seats if s.joined}
            if store_keys.seat_keys(self.store, game_id) == bound:
                self._keys_good.add(game_id)
                return False
        with self.store.transaction():
            store_keys.rebind_keys(self.store, game_id, bound)
        self.note_repair(game_id, "the kept keys of its seats were damaged; rebuilt them")
        return True

    def _keys_from_chain(self, game_id: bytes) -> dict[str, tuple[bytes, bytes]] | None:
        """The keys the game's stored genesis and joins bind to its seats (each opened under
        the key it carries), where its state cannot be read to say; None without a genesis
        that opens. Every stored packet is peeked at: only a damaged home comes here."""
        opened = lost_games.genesis_of(self.store, game_id)
        if opened is None:
            return None
        genesis, creator_key = opened
        bound = {genesis.creator: (key_id(creator_key), creator_key)}
        for page in store_games.packet_pages(self.store, game_id):
            for _, data, _ in page:
                body = peek_body(data)
                if body is None or not isinstance(body.kind, Join) or body.kind.declines:
                    continue
                try:
                    packet = open_packet(data, lambda _: [])  # (a join carries its key)
                except HexpostError:
                    continue
                if packet.body.game_id == game_id:
                    bound[body.seat] = (key_id(packet.public_key), packet.public_key)
        return bound


def _rebuilt_from_state(seq: int) -> str:
    """What `RowRepairs.mend_lost_games` says of a row rebuilt from a kept state."""
    return (
        "its row in the games table was lost, and its genesis too; rebuilt it from the state "
        f"kept at packet {seq} (the next sync asks the other player for the genesis)"
    )


def _not_rebuilt(game_id: bytes) -> str:
    """What `RowRepairs.mend_lost_games` says of a game whose row, genesis and every kept
    state that checks are lost: its packets stay, and what would bring it back."""
    return (
        "its row in the games table was lost, and its genesis and every state kept of it "
        "too, so the game cannot be rebuilt from the packets this home still holds; ask the "
        f"other player to run `hexpost resend {game_id.hex()} --from 0 --every-seat`, then sync"
    )
