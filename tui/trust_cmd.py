"""The trust commands: ``hexpost evidence``, ``hexpost verify-evidence`` and ``hexpost claim``.

``evidence`` shows what froze a game and writes it as a file (`saves.evidence`); anyone can
check such a file with ``verify-evidence``, which needs no home and no identity, only this
program's engine. ``claim`` signs a late claim (`saves.claims`) when the other seat has let
the reply window pass. The checking and the storing live in ``saves``; this module only reads
the arguments, prints and chooses the exit code.
"""

from __future__ import annotations

import argparse
import json
import os
import re
from pathlib import Path
from typing import Any

from engine.core.errors import HexpostError
from saves import claims, evidence, joins, outbox
from saves.evidence import EvidenceRefused
from saves.home import Home
from saves.replica import GameRow, Replica
from tui.commands import now, signing_replica
from tui.safe_text import safe_text

_PLAIN_NAME = re.compile(r"[A-Za-z0-9._-]{1,40}")


def run(args: argparse.Namespace, home: Home) -> int:
    """Dispatch one of this module's commands (``tui.commands.COMMANDS`` sends them here)."""
    commands = {
        "evidence": cmd_evidence,
        "verify-evidence": cmd_verify_evidence,
        "claim": cmd_claim,
        "resend": cmd_resend,
        "decline": cmd_decline,
    }
    return commands[args.command](args, home)


def game_arg(row: GameRow) -> str:
    """How to name the game on a command line: its name when that is one plain word, else the
    start of its id (a name is the inviter's choice and may hold spaces or worse)."""
    if _PLAIN_NAME.fullmatch(row.name):
        return row.name
    return row.game_id.hex()[:12]


# --- hexpost evidence --------------------------------------------------------------------------


def evidence_records(replica: Replica, row: GameRow) -> list[dict[str, Any]]:
    """Each piece of evidence of a game, with this home's own check of it."""
    records = []
    for stored, piece in evidence.pieces_of(replica.store, row.game_id):
        record: dict[str, Any] = {
            "kind": stored.kind,
            "position": stored.seq,
            "seat": piece.seat,
            "packets": [pid.hex() for pid in evidence.packet_ids(stored)],
            "found_at": stored.found_at,
            "detail": stored.detail,
        }
        try:
            proof = evidence.check_piece(piece)
        except EvidenceRefused as exc:
            record.update(fingerprint=None, verdict=f"NOT PROVEN here: {exc}")
        else:
            record.update(fingerprint=proof.fingerprint, verdict=evidence.verdict_lines(proof)[0])
        records.append(record)
    return records


def cmd_evidence(args: argparse.Namespace, home: Home) -> int:
    replica = home.replica()
    row = replica.find(args.game)
    records = evidence_records(replica, row)
    path: str | None = None
    if records:
        path = args.output or f"hexpost-evidence-{row.game_id.hex()[:12]}.msgpack"
        pieces = [piece for _, piece in evidence.pieces_of(replica.store, row.game_id)]
        _write(path, evidence.encode_file(pieces))
    if args.json:
        document = {
            "game": row.game_id.hex(),
            "name": row.name,
            "frozen": row.frozen,
            "evidence": records,
            "file": path,
        }
        print(json.dumps(document, indent=2, ensure_ascii=True))
        return 0
    if not records:
        state = (
            f"it is frozen ({row.frozen}) but keeps no evidence"
            if row.frozen
            else "it is not frozen"
        )
        print(f"{row.name} has no evidence: {state}")
        return 0
    print(f"{row.name} ({row.game_id.hex()[:12]}) is FROZEN: {row.frozen}")
    for number, record in enumerate(records, start=1):
        print(
            f"evidence {number} of {len(records)}: {record['kind']} at position "
            f"{record['position']}, seat {record['seat']}, found {record['found_at']}"
        )
        print(f"  {record['detail']}")
        for pid in record["packets"]:
            print(f"  packet {pid}")
        print(f"  {record['verdict']}")
    print(f"wrote the evidence to {path}")
    print(
        f"anyone can check it, with no home and no identity: `hexpost verify-evidence {path}`; "
        "send it to the other player (docs/protocol.md says what players do next)"
    )
    return 0


def _write(path: str, data: bytes) -> None:
    """Write the file whole (it holds signed packets both players already have: public)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
    except OSError as exc:
        raise HexpostError(f"cannot write {path}: {exc.strerror}") from None


# --- hexpost verify-evidence -------------------------------------------------------------------


def cmd_verify_evidence(args: argparse.Namespace, _home: Home) -> int:
    """Check an evidence file with the engine alone: the home is never opened."""
    data = _read(args.file)
    try:
        proofs = evidence.check_file(data)
    except EvidenceRefused as exc:
        if args.json:
            print(json.dumps({"proven": False, "reason": exc.message}, indent=2, ensure_ascii=True))
            return 1
        raise HexpostError(f"{args.file}: NOT PROVEN: {exc.message}") from None
    if args.json:
        document = {
            "proven": True,
            "pieces": [
                {
                    "kind": proof.kind,
                    "game": proof.game_id.hex(),
                    "genesis": proof.genesis_id.hex(),
                    "position": proof.seq,
                    "seat": proof.seat,
                    "fingerprint": proof.fingerprint,
                    "name": proof.name,
                    "address": proof.address,
                    "packets": [pid.hex() for pid in proof.packet_ids],
                    "claimed_state_hash": proof.claimed_hash.hex() or None,
                    "computed_state_hash": proof.computed_hash.hex() or None,
                    "verdict": evidence.verdict_lines(proof)[0],
                }
                for proof in proofs
            ],
        }
        print(json.dumps(document, indent=2, ensure_ascii=True))
        return 0
    for proof in proofs:
        print("\n".join(evidence.verdict_lines(proof)))
    return 0


def _read(name: str) -> bytes:
    try:
        path = Path(name)
        size = path.stat().st_size
        if size > evidence.MAX_FILE_BYTES:
            limit = evidence.MAX_FILE_BYTES
            raise HexpostError(f"{name}: NOT PROVEN: the file has {size} bytes, more than {limit}")
        return path.read_bytes()
    except OSError as exc:
        raise HexpostError(f"cannot read {name}: {exc.strerror}") from None


# --- hexpost claim ----------------------------------------------------------------------------


def cmd_claim(args: argparse.Namespace, home: Home) -> int:
    at, note = now(), args.note or ""
    reader = home.replica()
    row = reader.find(args.game)
    claims.claim_body(reader, row.game_id, at, note)  # refuse before asking for a passphrase
    replica = signing_replica(args, home, "sign the late claim")
    made = claims.make_claim(replica, row.game_id, at, note)
    print(f"late claim signed and queued: {claims.claim_text(made.body)}")
    print("run `hexpost sync` to send it; it changes nothing in the game, both logs keep it")
    return 0


# --- hexpost resend and hexpost decline --------------------------------------------------------


def cmd_resend(args: argparse.Namespace, home: Home) -> int:
    """Queue this home's packets of a game again (`saves.outbox.requeue`)."""
    replica = home.replica()
    row = replica.find(args.game)
    if args.from_seq is not None and not 0 <= args.from_seq <= row.head_seq:
        raise HexpostError(
            f"--from {args.from_seq}: game {row.name} has packets 0 to {row.head_seq}"
        )
    queued = outbox.requeue(replica.store, row.game_id, row.my_seat, args.from_seq)
    name = safe_text(row.name)
    if not queued:
        print(
            f"nothing to resend in {name}: no packet of yours "
            + (
                f"from {args.from_seq} on"
                if args.from_seq is not None
                else "after the other side's last one"
            )
        )
        return 0
    listed = ", ".join(str(seq) for seq in queued)
    print(f"packet(s) {listed} of {name} queued again: run `hexpost sync` to send them")
    return 0


def cmd_decline(args: argparse.Namespace, home: Home) -> int:
    """Refuse the key that joined a game this home created (`saves.joins.decline`)."""
    replica = signing_replica(args, home, "sign the resignation that declines the join")
    row = replica.find(args.game)
    done = joins.decline(replica, row.game_id, now=now(), reason=args.reason)
    print(
        f"declined the key that joined {safe_text(row.name)}: packet {done.seq} (a resignation) "
        "signed and queued; run `hexpost sync` to send it"
    )
    return 0
