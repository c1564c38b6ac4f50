"""What keeps both players honest, as values: evidence of a frozen game, its check anywhere,
late claims and packets queued again.

``evidence`` lists what froze a game with this home's own check of each piece and writes the
pieces as a file (`saves.evidence`); anyone can check such a file with `check_evidence`, which
needs no home and no identity, only this program's engine. A late claim (`saves.claims`) is
refused before any passphrase is asked for when the other seat is not late.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import msgspec

from engine.core.errors import HexpostError
from saves import claims, evidence, outbox
from saves.evidence import EvidenceRefused
from saves.replica import GameRow, Replica
from tui.services.ports import Clock

_PLAIN_NAME = re.compile(r"[A-Za-z0-9._-]{1,40}")


def game_arg(row: GameRow) -> str:
    """How to name the game on a command line: its name when that is one plain word, else the
    start of its id (a name is the inviter's choice and may hold spaces or worse)."""
    if _PLAIN_NAME.fullmatch(row.name):
        return row.name
    return row.game_id.hex()[:12]


class EvidenceRecord(msgspec.Struct, frozen=True):
    """One piece of evidence a game keeps, with this home's own verdict on it."""

    kind: str
    position: int
    seat: str
    packets: tuple[str, ...]
    found_at: str
    detail: str
    fingerprint: str | None
    verdict: str


class EvidenceReport(msgspec.Struct, frozen=True):
    """``hexpost evidence --json``: the game, why it froze, each piece, and the file written
    (None when there was nothing to write)."""

    game: str
    name: str
    frozen: str | None
    evidence: tuple[EvidenceRecord, ...]
    file: str | None


def evidence_records(replica: Replica, row: GameRow) -> list[EvidenceRecord]:
    """Each piece of evidence of a game, with this home's own check of it."""
    records = []
    for stored, piece in evidence.pieces_of(replica.store, row.game_id):
        try:
            proof = evidence.check_piece(piece)
        except EvidenceRefused as exc:
            fp, verdict = None, f"NOT PROVEN here: {exc}"
        else:
            fp, verdict = proof.fingerprint, evidence.verdict_lines(proof)[0]
        records.append(
            EvidenceRecord(
                kind=stored.kind,
                position=stored.seq,
                seat=piece.seat,
                packets=tuple(pid.hex() for pid in evidence.packet_ids(stored)),
                found_at=stored.found_at,
                detail=stored.detail,
                fingerprint=fp,
                verdict=verdict,
            )
        )
    return records


def evidence_report(replica: Replica, row: GameRow, output: str | None) -> EvidenceReport:
    """The game's evidence, written to ``output`` (default: a file named after the game in
    the current folder) when there is any."""
    records = evidence_records(replica, row)
    path: str | None = None
    if records:
        path = output or f"hexpost-evidence-{row.game_id.hex()[:12]}.msgpack"
        pieces = [piece for _, piece in evidence.pieces_of(replica.store, row.game_id)]
        _write(path, evidence.encode_file(pieces))
    return EvidenceReport(row.game_id.hex(), row.name, row.frozen, tuple(records), path)


def _write(path: str, data: bytes) -> None:
    """Write the file whole (it holds signed packets both players already have: public)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
    except OSError as exc:
        raise HexpostError(f"cannot write {path}: {exc.strerror}") from None


class ProofRecord(msgspec.Struct, frozen=True):
    """What one piece of an evidence file proves, as ``verify-evidence --json`` prints it."""

    kind: str
    game: str
    genesis: str
    position: int
    seat: str
    fingerprint: str
    name: str
    address: str
    packets: tuple[str, ...]
    claimed_state_hash: str | None
    computed_state_hash: str | None
    verdict: str


class EvidenceProven(msgspec.Struct, frozen=True):
    proven: bool
    pieces: tuple[ProofRecord, ...]


class EvidenceNotProven(msgspec.Struct, frozen=True):
    proven: bool
    reason: str


class EvidenceCheck(msgspec.Struct, frozen=True):
    """An evidence file checked: the record to print as JSON, and each proof in words."""

    record: EvidenceProven | EvidenceNotProven
    texts: tuple[str, ...] = ()


def read_evidence_file(name: str) -> bytes:
    """The file's bytes, refused before reading when larger than any evidence can be, and
    read no further than that (a device or a pipe gives no size beforehand)."""
    limit = evidence.MAX_FILE_BYTES
    try:
        path = Path(name)
        size = path.stat().st_size
        if size > limit:
            raise HexpostError(f"{name}: NOT PROVEN: the file has {size} bytes, more than {limit}")
        with path.open("rb") as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        raise HexpostError(f"cannot read {name}: {exc.strerror}") from None
    if len(data) > limit:
        raise HexpostError(f"{name}: NOT PROVEN: the file has more than {limit} bytes")
    return data


def check_evidence(data: bytes) -> EvidenceCheck:
    """Replay the pieces of an evidence file with this program's engine alone."""
    try:
        proofs = evidence.check_file(data)
    except EvidenceRefused as exc:
        return EvidenceCheck(EvidenceNotProven(False, exc.message))
    pieces = tuple(
        ProofRecord(
            kind=proof.kind,
            game=proof.game_id.hex(),
            genesis=proof.genesis_id.hex(),
            position=proof.seq,
            seat=proof.seat,
            fingerprint=proof.fingerprint,
            name=proof.name,
            address=proof.address,
            packets=tuple(pid.hex() for pid in proof.packet_ids),
            claimed_state_hash=proof.claimed_hash.hex() or None,
            computed_state_hash=proof.computed_hash.hex() or None,
            verdict=evidence.verdict_lines(proof)[0],
        )
        for proof in proofs
    )
    texts = tuple("\n".join(evidence.verdict_lines(proof)) for proof in proofs)
    return EvidenceCheck(EvidenceProven(True, pieces), texts)


def late_claim(
    reader: Replica, game_id: bytes, note: str, clock: Clock, signer: Callable[[], Replica]
) -> str:
    """Sign and queue a late claim against the other seat; what it claims, in words.
    Refused (before ``signer`` is called, so before any passphrase is asked for) when the
    other seat's reply window has not passed."""
    at = clock()
    claims.claim_body(reader, game_id, at, note)
    made = claims.make_claim(signer(), game_id, at, note)
    return claims.claim_text(made.body)


def resend(
    replica: Replica,
    row: GameRow,
    from_seq: int | None,
    clock: Clock,
    *,
    every_seat: bool = False,
    to_seq: int | None = None,
) -> list[int]:
    """Queue this home's packets of a game again (`saves.outbox.requeue`): those from
    ``from_seq`` on, or those after the other side's last packet, up to ``to_seq`` when
    given; the seqs queued. With ``every_seat``, the other seats' packets in that range too,
    for a player whose home is behind or lost some (`saves.behind`, `saves.holes`,
    `saves.outbox.relay`)."""
    if from_seq is not None and not 0 <= from_seq <= row.head_seq:
        raise HexpostError(f"--from {from_seq}: game {row.name} has packets 0 to {row.head_seq}")
    if to_seq is not None and not 0 <= to_seq <= row.head_seq:
        raise HexpostError(f"--to {to_seq}: game {row.name} has packets 0 to {row.head_seq}")
    if to_seq is not None and from_seq is not None and to_seq < from_seq:
        raise HexpostError(f"--to {to_seq} is before --from {from_seq}")
    if not every_seat:
        return outbox.requeue(replica.store, row.game_id, row.my_seat, from_seq, to_seq)
    if from_seq is None:
        raise HexpostError(
            "--every-seat needs --from SEQ: the first packet the other home lacks "
            "(its refusal names it)"
        )
    seats = replica.state(row.game_id).core.seats
    recipients = [s.address for s in seats if s.seat != row.my_seat and s.address]
    return outbox.relay(
        replica.store,
        row.game_id,
        row.my_seat,
        from_seq,
        recipients=recipients,
        name=row.name,
        now=clock(),
        last=to_seq,
    )
