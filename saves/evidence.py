"""Evidence files: the proof a frozen game holds, in a form anyone can check without the game.

A game freezes when this home finds *equivocation* (one seat's key signed two different
packets for one chain position) or a *desync* (a packet whose state hash our engine disputes).
The store keeps the packets in its ``evidence`` table; this module turns each row into a
`Piece` of a self-contained file and checks such a file with the engine alone: no home, no
identity, and no trust in whoever wrote the file.

A file says nothing its signed packets do not say. It has no free text: the kind, game,
position and seat a piece names must match its packets exactly. So changing any byte of a file
breaks a signature, breaks the msgpack, or makes a named field disagree with the packets, and
the file is refused.

Equivocation: ``binding`` is the start of the game's chain up to the packet that binds the
accused seat's key (the genesis for the creator; the genesis and the joins up to the seat's
own otherwise). The engine replays it, which checks every signature and link and yields the
key the game gives that seat. Both accused ``packets`` must verify under that key, name that
game, seat and position, and differ. It proves that whoever holds that key signed two
histories. Anyone can write a genesis and a join with a key of their own, so the verdict names
the key's fingerprint, which the players compare with the one their game shows for the seat.

Desync: ``packets`` is the chain from the genesis to the disputed packet, and ``binding`` is
empty (the chain binds every key itself). The engine replays it: every packet but the last
must apply with its own state hash, and the last must be refused for its state hash and for
nothing else. That shows where this hexpost's engine and the author's disagree; it does not say
who is at fault, since two engine versions may differ honestly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

import msgspec

from engine.core.errors import DesyncError, HexpostError, PacketError, newer_version
from engine.core.game import apply_packet, ruleset_tag
from engine.core.packets import (
    MAX_PACKET_SIZE,
    Body,
    Genesis,
    Join,
    SeatName,
    SeqNumber,
    VerifiedPacket,
    fingerprint,
    key_id,
    kind_name,
    open_packet,
    packet_id,
    read_envelope,
)
from engine.core.ruleset import AnyRuleset
from engine.core.state import AnyState
from engine.core.text import SAFE_PATTERN
from saves import ledger, store_evidence, store_games
from saves.registry import ruleset_for
from saves.store import Store

FORMAT = "hexpost-evidence"
VERSION = 1
MAX_FILE_BYTES = 128 << 20
"""An evidence file larger than this is refused unread. A desync piece carries its whole chain,
so this is a long campaign's worth of packets; an equivocation piece is a few kilobytes."""
MAX_CHAIN = 100_000
"""Packets a desync piece may carry: checking one replays them all, so this bounds the work a
file from someone else can ask of ``verify-evidence`` (a campaign has a few thousand)."""
MAX_PIECES = 64
MAX_BINDING = 17
"""The genesis and at most one join for each of the other 15 seats a genesis may name."""

KINDS = ("equivocation", "desync")

PacketBytes = Annotated[bytes, msgspec.Meta(min_length=1, max_length=MAX_PACKET_SIZE)]
Stamp = Annotated[str, msgspec.Meta(max_length=64, pattern=SAFE_PATTERN)]


class Piece(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One proof: what it accuses, and the signed packets that show it (see the module notes)."""

    kind: Literal["equivocation", "desync"]
    game_id: Annotated[bytes, msgspec.Meta(min_length=16, max_length=16)]
    seq: SeqNumber
    seat: SeatName
    binding: Annotated[list[PacketBytes], msgspec.Meta(max_length=MAX_BINDING)]
    packets: Annotated[list[PacketBytes], msgspec.Meta(min_length=1, max_length=MAX_CHAIN)]


class EvidenceFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What ``hexpost evidence`` writes: a format name, a version and the pieces."""

    format: str
    version: int
    pieces: Annotated[list[Piece], msgspec.Meta(min_length=1, max_length=MAX_PIECES)]


class _Header(msgspec.Struct, frozen=True):
    """Read first, so a file of another format or version is named as such."""

    format: str = ""
    version: int = 0


class Proof(msgspec.Struct, frozen=True):
    """What a piece that holds shows. ``public_key``, ``name`` and ``address`` are the seat's
    as the replayed packets bind them; the hashes are set for a desync only."""

    kind: str
    game_id: bytes
    genesis_id: bytes
    seq: int
    seat: str
    public_key: bytes
    name: str
    address: str
    packet_ids: tuple[bytes, ...]
    ruleset: str
    claimed_hash: bytes = b""
    computed_hash: bytes = b""

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_key)


class EvidenceRefused(HexpostError):
    """An evidence file, or one piece of it, that does not prove what it says."""


class StoredEvidence(msgspec.Struct, frozen=True):
    """One row of the store's ``evidence`` table (``second`` is None for a desync)."""

    id: int
    kind: str
    seq: int
    detail: str
    found_at: str
    first: bytes
    second: bytes | None


class ArchivedEvidence(msgspec.Struct, frozen=True):
    """A row of the ``evidence`` table as an export carries it. The detail is not carried:
    an import writes it again from the checked packets, so no unchecked text comes in."""

    kind: Literal["equivocation", "desync"]
    seq: SeqNumber
    first: PacketBytes
    second: PacketBytes | None
    found_at: Stamp


# --- reading and writing files -------------------------------------------------------------------


def encode_file(pieces: Sequence[Piece]) -> bytes:
    """The bytes of an evidence file holding ``pieces``."""
    return msgspec.msgpack.encode(EvidenceFile(FORMAT, VERSION, list(pieces)))


def read_file(data: bytes) -> EvidenceFile:
    """Decode an evidence file (nothing is checked but its form); raises `EvidenceRefused`."""
    if len(data) > MAX_FILE_BYTES:
        raise EvidenceRefused(f"the file has {len(data)} bytes, more than {MAX_FILE_BYTES}")
    try:
        header = msgspec.msgpack.decode(data, type=_Header)
    except (msgspec.DecodeError, msgspec.ValidationError):
        raise EvidenceRefused("not a hexpost evidence file (unreadable msgpack)") from None
    if header.format != FORMAT:
        raise EvidenceRefused(f"not a hexpost evidence file (format {header.format[:40]!r})")
    if header.version != VERSION:
        raise EvidenceRefused(
            f"evidence file version {header.version}; this hexpost reads version {VERSION}"
            + newer_version(header.version, VERSION)
        )
    try:
        return msgspec.msgpack.decode(data, type=EvidenceFile)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise EvidenceRefused(f"malformed evidence file: {exc}") from None


def check_file(data: bytes) -> list[Proof]:
    """Check every piece of a file; the first that does not hold raises `EvidenceRefused`
    naming it."""
    document = read_file(data)
    proofs = []
    for index, piece in enumerate(document.pieces, start=1):
        try:
            proofs.append(check_piece(piece))
        except EvidenceRefused as exc:
            where = f"piece {index} of {len(document.pieces)}: " if len(document.pieces) > 1 else ""
            raise EvidenceRefused(f"{where}{exc.message}") from None
    return proofs


# --- checking --------------------------------------------------------------------------------


def check_piece(piece: Piece) -> Proof:
    """What ``piece`` proves, or `EvidenceRefused` saying exactly what does not hold."""
    if piece.kind == "equivocation":
        return _check_equivocation(piece)
    return _check_desync(piece)


def _keys(state: AnyState | None) -> dict[bytes, bytes]:
    if state is None:
        return {}
    return {key_id(s.public_key): s.public_key for s in state.core.seats if s.joined}


def _open(data: bytes, keys: dict[bytes, bytes], where: str) -> VerifiedPacket:
    try:
        return open_packet(data, lambda kid: [keys[kid]] if kid in keys else [])
    except PacketError as exc:
        raise EvidenceRefused(f"{where}: {exc}") from None


def _same_game(packet: VerifiedPacket, game_id: bytes, where: str) -> None:
    if packet.body.game_id != game_id:
        raise EvidenceRefused(
            f"{where} belongs to game {packet.body.game_id.hex()[:12]}, not to game "
            f"{game_id.hex()[:12]} that the evidence names"
        )


def _ruleset_of(packet: VerifiedPacket, where: str) -> AnyRuleset:
    genesis = packet.body.kind
    if not isinstance(genesis, Genesis):
        raise EvidenceRefused(f"{where} is a {kind_name(genesis)} packet, not the genesis")
    try:
        return ruleset_for(genesis.ruleset_id)
    except HexpostError as exc:
        raise EvidenceRefused(f"{where}: {exc}") from None


def _apply(
    ruleset: AnyRuleset, state: AnyState | None, packet: VerifiedPacket, where: str
) -> AnyState:
    try:
        return apply_packet(ruleset, state, packet).state
    except HexpostError as exc:
        raise EvidenceRefused(f"{where} does not replay: {exc}") from None


def _check_equivocation(piece: Piece) -> Proof:
    if not piece.binding:
        raise EvidenceRefused("no binding packets: nothing shows which key the seat has")
    if len(piece.packets) != 2:
        raise EvidenceRefused(
            f"an equivocation is two packets; this piece accuses {len(piece.packets)}"
        )
    state: AnyState | None = None
    ruleset: AnyRuleset | None = None
    bound_at: int | None = None
    for index, data in enumerate(piece.binding, start=1):
        where = f"binding packet {index}"
        packet = _open(data, _keys(state), where)
        _same_game(packet, piece.game_id, where)
        if ruleset is None:
            ruleset = _ruleset_of(packet, where)
        elif not isinstance(packet.body.kind, Join):
            kind = kind_name(packet.body.kind)
            raise EvidenceRefused(f"{where} is a {kind} packet; only joins may follow the genesis")
        state = _apply(ruleset, state, packet, where)
        binds = packet.body.kind
        if (isinstance(binds, Genesis) and binds.creator == piece.seat) or (
            isinstance(binds, Join) and packet.body.seat == piece.seat
        ):
            bound_at = packet.body.seq
    assert state is not None and ruleset is not None
    try:
        seat = state.core.seat_state(piece.seat)
    except KeyError:
        raise EvidenceRefused(f"the game has no seat {piece.seat!r}") from None
    if bound_at is None or not seat.joined:
        raise EvidenceRefused(f"the binding packets do not bind a key to seat {piece.seat}")
    bound = seat.public_key
    who = f"seat {piece.seat}'s key (fingerprint {fingerprint(bound)})"
    ids: list[bytes] = []
    for index, data in enumerate(piece.packets, start=1):
        where = f"accused packet {index}"
        packet = _open(data, {key_id(bound): bound}, f"{where} is not signed by {who}")
        if packet.public_key != bound:
            raise EvidenceRefused(
                f"{where} is signed by another key (fingerprint "
                f"{fingerprint(packet.public_key)}), not by {who}"
            )
        _same_game(packet, piece.game_id, where)
        body = packet.body
        if body.seat != piece.seat:
            raise EvidenceRefused(f"{where} is written for seat {body.seat}, not {piece.seat}")
        if body.seq != piece.seq:
            raise EvidenceRefused(
                f"{where} is for position {body.seq}, not position {piece.seq}: packets for "
                "two different positions are no equivocation"
            )
        ids.append(packet.packet_id)
    if ids[0] == ids[1]:
        raise EvidenceRefused(f"the two accused packets are one and the same (id {ids[0].hex()})")
    if piece.seq < bound_at:
        raise EvidenceRefused(
            f"position {piece.seq} comes before seat {piece.seat} was bound (packet {bound_at})"
        )
    return Proof(
        kind="equivocation",
        game_id=piece.game_id,
        genesis_id=state.genesis_id,
        seq=piece.seq,
        seat=piece.seat,
        public_key=bound,
        name=seat.name,
        address=seat.address,
        packet_ids=(ids[0], ids[1]),
        ruleset=ruleset_tag(ruleset),
    )


def _check_desync(piece: Piece) -> Proof:
    if piece.binding:
        raise EvidenceRefused(
            "a desync piece carries the chain itself and no separate binding packets"
        )
    chain = piece.packets
    seq = len(chain) - 1
    if piece.seq != seq:
        raise EvidenceRefused(
            f"the chain ends at position {seq}, but the evidence names position {piece.seq}"
        )
    state: AnyState | None = None
    ruleset: AnyRuleset | None = None
    for index, data in enumerate(chain):
        where = f"chain packet {index}" if index < seq else f"the disputed packet {seq}"
        packet = _open(data, _keys(state), where)
        _same_game(packet, piece.game_id, where)
        if packet.body.seq != index:
            raise EvidenceRefused(f"{where} says it is packet {packet.body.seq}")
        if ruleset is None:
            ruleset = _ruleset_of(packet, where)
        if index < seq:
            state = _apply(ruleset, state, packet, where)
            continue
        if packet.body.seat != piece.seat:
            raise EvidenceRefused(
                f"{where} is written by seat {packet.body.seat}, not {piece.seat}"
            )
        try:
            apply_packet(ruleset, state, packet)
        except DesyncError as exc:
            return _desync_proof(piece, ruleset, state, packet, exc)
        except HexpostError as exc:
            raise EvidenceRefused(
                f"{where} is refused for another reason than its state hash ({exc}): that is "
                "no desync"
            ) from None
        raise EvidenceRefused(
            f"this hexpost's engine ({ruleset_tag(ruleset)}) computes the state hash that packet "
            f"{seq} says ({packet.body.state_hash.hex()[:16]}): no desync to show"
        )
    raise AssertionError("a chain of at least one packet returns or raises in the loop")


def _desync_proof(
    piece: Piece,
    ruleset: AnyRuleset,
    state: AnyState | None,
    packet: VerifiedPacket,
    exc: DesyncError,
) -> Proof:
    genesis_id = packet.packet_id if state is None else state.genesis_id
    seat = None if state is None else state.core.seat_state(piece.seat)
    return Proof(
        kind="desync",
        game_id=piece.game_id,
        genesis_id=genesis_id,
        seq=piece.seq,
        seat=piece.seat,
        public_key=packet.public_key,
        name=seat.name if seat is not None else "",
        address=seat.address if seat is not None else "",
        packet_ids=(packet.packet_id,),
        ruleset=ruleset_tag(ruleset),
        claimed_hash=exc.theirs,
        computed_hash=exc.ours,
    )


def verdict_lines(proof: Proof) -> list[str]:
    """The plain verdict on a piece that holds: its first line says it all."""
    who = f"{proof.name} <{proof.address}>" if proof.address else "its player"
    if proof.kind == "equivocation":
        first, second = proof.packet_ids
        return [
            f"PROOF: seat {proof.seat}, key fingerprint {proof.fingerprint}, signed two "
            f"different packets for position {proof.seq}: ids {first.hex()[:16]} and "
            f"{second.hex()[:16]}",
            f"  game {proof.game_id.hex()} (genesis {proof.genesis_id.hex()[:16]}, "
            f"{proof.ruleset}); the game binds that key to {proof.seat} as {who}",
            f"  packet ids: {first.hex()}",
            f"              {second.hex()}",
            "  whoever holds that key signed both; compare the fingerprint with the one your "
            "game shows for the seat",
        ]
    return [
        f"DESYNC: packet {proof.seq} by seat {proof.seat} (key fingerprint {proof.fingerprint}) "
        f"says state {proof.claimed_hash.hex()[:16]}; this hexpost's engine ({proof.ruleset}) "
        f"computes {proof.computed_hash.hex()[:16]} from the same chain",
        f"  game {proof.game_id.hex()} (genesis {proof.genesis_id.hex()[:16]}); every packet "
        f"before {proof.seq} replays with its own state hash",
        f"  packet id: {proof.packet_ids[0].hex()}",
        f"  state hash in the packet: {proof.claimed_hash.hex()}",
        f"  state hash computed here: {proof.computed_hash.hex()}",
    ]


# --- from the store --------------------------------------------------------------------------


def stored(store: Store, game_id: bytes) -> list[StoredEvidence]:
    """Every piece of evidence this home keeps for a game, oldest first."""
    rows = store_evidence.evidence_rows(store, game_id)
    return [
        StoredEvidence(int(i), str(kind), int(seq), str(detail), str(found), bytes(a), _blob(b))
        for i, kind, seq, detail, found, a, b in rows
    ]


def _blob(value: bytes | None) -> bytes | None:
    return None if value is None else bytes(value)


def chain_of(store: Store, game_id: bytes) -> list[bytes]:
    """The game's stored packets in chain order."""
    return [data for _, data in store_games.packets_between(store, game_id)]


def packet_ids(row: StoredEvidence) -> list[bytes]:
    """The ids of the packets a row holds (read from their envelopes, no signature check)."""
    return [
        packet_id(read_envelope(data).body) for data in (row.first, row.second) if data is not None
    ]


def make_piece(
    chain: Sequence[bytes], game_id: bytes, kind: str, seq: int, first: bytes, second: bytes | None
) -> Piece:
    """A file's piece for one stored row, from the game's chain (its packets in order).

    Nothing is verified here (`check_piece` does that); raises `HexpostError` when the chain
    lacks what the piece needs, which never happens for a row this home stored itself."""
    try:
        seat = _body(first).seat
        if kind == "desync":
            if seq > len(chain):
                raise HexpostError(f"the stored chain ends before the disputed packet {seq}")
            return Piece("desync", game_id, seq, seat, [], [*chain[:seq], first])
        if kind != "equivocation" or second is None:
            raise HexpostError(f"evidence of an unknown kind {kind!r}")
        for index, data in enumerate(chain[:MAX_BINDING]):
            body = _body(data)
            binds = body.kind
            if (isinstance(binds, Genesis) and binds.creator == seat) or (
                isinstance(binds, Join) and body.seat == seat
            ):
                return Piece(
                    "equivocation", game_id, seq, seat, list(chain[: index + 1]), [first, second]
                )
    except PacketError as exc:
        raise HexpostError(f"unreadable evidence packet: {exc}") from None
    raise HexpostError(f"the chain has no genesis or join that binds seat {seat}'s key")


def _body(data: bytes) -> Body:
    """A packet's body, decoded without a signature check (to find its seat and kind)."""
    try:
        return msgspec.msgpack.decode(read_envelope(data).body, type=Body)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise PacketError(f"malformed packet body: {exc}") from None


def pieces_of(store: Store, game_id: bytes) -> list[tuple[StoredEvidence, Piece]]:
    """Each stored row of a game with the file piece made from it."""
    chain = chain_of(store, game_id)
    return [
        (row, make_piece(chain, game_id, row.kind, row.seq, row.first, row.second))
        for row in stored(store, game_id)
    ]


# --- in a game archive -----------------------------------------------------------------------


def for_archive(store: Store, game_id: bytes) -> list[ArchivedEvidence]:
    """The game's evidence rows as an export carries them."""
    return [
        ArchivedEvidence(
            "desync" if row.kind == "desync" else "equivocation",
            row.seq,
            row.first,
            row.second,
            row.found_at,
        )
        for row in stored(store, game_id)
    ]


def restore(
    store: Store, game_id: bytes, chain: Sequence[bytes], items: Sequence[ArchivedEvidence]
) -> None:
    """Keep an imported game's evidence and freeze it again, inside the caller's transaction.

    Each row is checked as ``verify-evidence`` checks a file, against the imported chain; one
    that does not hold refuses the import. The frozen reason is written from the checked proof,
    as the inbox writes it, not taken from the archive."""
    for index, item in enumerate(items, start=1):
        try:
            piece = make_piece(chain, game_id, item.kind, item.seq, item.first, item.second)
            proof = check_piece(piece)
        except HexpostError as exc:
            raise HexpostError(f"archive evidence {index}: {exc}") from None
        if proof.kind == "equivocation":
            detail = f"{proof.seat} signed two different packets for position {proof.seq}"
        else:
            detail = str(DesyncError(proof.seq, proof.claimed_hash, proof.computed_hash))
        ledger.freeze(
            store, game_id, proof.seq, proof.kind, detail, item.first, item.second, item.found_at
        )
