"""The trust commands: ``hexpost evidence``, ``verify-evidence``, ``claim``, ``resend``,
``decline`` and ``resign``.

``evidence`` shows what froze a game and writes it as a file; anyone can check such a file
with ``verify-evidence``, which needs no home and no identity, only this program's engine.
``claim`` signs a late claim when the other seat has let the reply window pass; ``resign``
concedes a game, after a yes (it cannot be taken back). The checking
and the storing are `tui.services.trust`'s (over ``saves``); this module only reads the
arguments, prints and chooses the exit code.
"""

from __future__ import annotations

import argparse
import json
import sys

import msgspec

from engine.core.errors import HexpostError
from engine.core.text import numbered
from saves.home import Home
from tui.askpass import signing_replica
from tui.safe_text import safe_text
from tui.services import start, trust
from tui.services.trust import game_arg
from tui.when import now

__all__ = ["game_arg", "run"]


def run(args: argparse.Namespace, home: Home) -> int:
    """Dispatch one of this module's commands (``tui.commands.COMMANDS`` sends them here)."""
    commands = {
        "evidence": cmd_evidence,
        "verify-evidence": cmd_verify_evidence,
        "claim": cmd_claim,
        "resend": cmd_resend,
        "decline": cmd_decline,
        "resign": cmd_resign,
    }
    return commands[args.command](args, home)


def _json(record: msgspec.Struct) -> str:
    return json.dumps(msgspec.to_builtins(record), indent=2, ensure_ascii=True)


# --- hexpost evidence --------------------------------------------------------------------------


def cmd_evidence(args: argparse.Namespace, home: Home) -> int:
    replica = home.replica()
    row = replica.find(args.game)
    report = trust.evidence_report(replica, row, args.output)
    if args.json:
        print(_json(report))
        return 0
    records, path = report.evidence, report.file
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
            f"evidence {number} of {len(records)}: {record.kind} at position "
            f"{record.position}, seat {record.seat}, found {record.found_at}"
        )
        print(f"  {record.detail}")
        for pid in record.packets:
            print(f"  packet {pid}")
        print(f"  {record.verdict}")
    print(f"wrote the evidence to {path}")
    print(
        f"anyone can check it, with no home and no identity: `hexpost verify-evidence {path}`; "
        "send it to the other player (docs/protocol.md says what players do next)"
    )
    return 0


# --- hexpost verify-evidence -------------------------------------------------------------------


def cmd_verify_evidence(args: argparse.Namespace, _home: Home) -> int:
    """Check an evidence file with the engine alone: the home is never opened."""
    checked = trust.check_evidence(trust.read_evidence_file(args.file))
    record = checked.record
    if args.json:
        print(_json(record))
        return 0 if record.proven else 1
    if isinstance(record, trust.EvidenceNotProven):
        raise HexpostError(f"{args.file}: NOT PROVEN: {record.reason}")
    for text in checked.texts:
        print(text)
    return 0


# --- hexpost claim ----------------------------------------------------------------------------


def cmd_claim(args: argparse.Namespace, home: Home) -> int:
    reader = home.replica()
    row = reader.find(args.game)
    text = trust.late_claim(
        reader,
        row.game_id,
        args.note or "",
        now,
        lambda: signing_replica(args, home, "sign the late claim"),
    )
    print(f"late claim signed and queued: {text}")
    print("run `hexpost sync` to send it; it changes nothing in the game, both logs keep it")
    return 0


# --- hexpost resend and hexpost decline --------------------------------------------------------


def cmd_resend(args: argparse.Namespace, home: Home) -> int:
    """Queue this home's packets of a game again (`tui.services.trust.resend`)."""
    replica = home.replica()
    row = replica.find(args.game)
    queued = trust.resend(
        replica, row, args.from_seq, now, every_seat=args.every_seat, to_seq=args.to_seq
    )
    name = safe_text(row.name)
    if not queued:
        print(
            f"nothing to resend in {name}: no packet of yours "
            + (
                f"from {args.from_seq} on"
                if args.from_seq is not None
                else "after the other side's last one"
            )
            + ("" if args.to_seq is None else f" up to {args.to_seq}")
        )
        return 0
    again = numbered("packet", queued)
    them = "it" if len(queued) == 1 else "them"
    print(f"{again} of {name} queued again: run `hexpost sync` to send {them}")
    return 0


def cmd_decline(args: argparse.Namespace, home: Home) -> int:
    """Refuse an invitation to this home (`saves.creating.decline`), or the key that joined a
    game this home created (`saves.joins.decline`); or drop an invitation held for a ruleset
    this hexpost lacks (`saves.invitations.drop`: its creator cannot be told)."""
    replica = home.replica()
    try:
        row = replica.find(args.game)
    except HexpostError as missing:
        try:
            done = replica.drop_held_invitation(args.game, now=now())
        except HexpostError:
            raise missing from None
        print(safe_text(done))
        return 0
    if row.status == "invited":
        replica = signing_replica(args, home, "sign the join packet that declines")
        done = start.decline_invitation(replica, row.game_id, now, reason=args.reason)
        print(f"{safe_text(done)}; run `hexpost sync` to tell the creator")
        return 0
    replica = signing_replica(args, home, "sign the resignation that declines the join")
    seq = start.decline_key(replica, row.game_id, now, reason=args.reason)
    print(
        f"declined the key that joined {safe_text(row.name)}: packet {seq} (a resignation) "
        "signed and queued; run `hexpost sync` to send it"
    )
    return 0


# --- hexpost resign ----------------------------------------------------------------------------


def cmd_resign(args: argparse.Namespace, home: Home) -> int:
    """Concede a game (`tui.services.start.resign`): checked first, then confirmed (a
    terminal asks; otherwise ``--yes`` must say it), then signed and queued on our move, or
    asked for on our next one (which needs no key yet); ``--cancel`` takes that back."""
    reader = home.replica()
    row = reader.find(args.game)
    name = safe_text(row.name)
    if args.cancel:
        print(safe_text(start.keep_playing(reader, row.game_id)))
        return 0
    at_once = start.resign_check(reader, row.game_id, args.reason)
    question = (
        f"Resign {name}? It ends for both players, for good. [y/N] "
        if at_once
        else f"It is not your move in {name}. Resign on your next move? [y/N] "
    )
    if not args.yes and not confirmed_resignation(name, question):
        print(f"not resigned: {name} goes on")
        return 0
    replica = signing_replica(args, home, "sign the resignation") if at_once else reader
    done = safe_text(start.resign(replica, row.game_id, now, reason=args.reason))
    if at_once:
        print(f"{done}; run `hexpost sync` to send it")
    else:
        print(
            f"{done}; `hexpost resign {name} --cancel` takes it back, and "
            f"`hexpost chat {name} TEXT` tells them now"
        )
    return 0


def confirmed_resignation(name: str, question: str) -> bool:
    """Whether the player said yes to ``question`` about resigning ``name`` on the
    terminal; without one (a script) there is nobody to ask, so it is refused, naming
    ``--yes``."""
    if not sys.stdin.isatty():
        raise HexpostError(
            f"resigning ends {name} for both players: add --yes to confirm (there is no "
            "terminal to ask on)"
        )
    try:
        answer = input(question)
    except EOFError:
        answer = ""
    return answer.strip().lower() in ("y", "yes")
