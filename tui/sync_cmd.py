"""``hexpost sync`` and ``hexpost sync --watch``: pull, apply, answer and push, and say so.

Every received item is printed with the game, position and seat it was for and where it came
from (`tui.render.outcome_text`); the exit status is 1 when a packet could not be sent or when
one of this home's games needs its player (a damaged or refused packet, a frozen game).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from engine.core.errors import HexpostError
from mail.sync import sync
from mail.transport import Transport
from saves.home import Home
from saves.replica import Replica
from tui import render
from tui.commands import now, sync_replica, transport_of
from tui.safe_text import safe_text


def cmd_sync(args: argparse.Namespace, home: Home) -> int:
    transport = transport_of(home)
    replica, signing = sync_replica(args, home)
    if args.watch:
        return _watch(args, home, replica, transport, signing)
    # Name the game before touching the transport: a typo must not sync anything.
    wanted = replica.find(args.game).game_id if args.game else None
    report = asyncio.run(_sync_once(replica, transport, auto_replies(args, home)))
    names = {row.game_id: row.name for row in replica.games()}
    trouble = False
    for outcome in report.received:
        if wanted is None or outcome.game_id == wanted:
            print(f"received: {render.outcome_text(names, outcome)}")
        # A refused or damaged item of a game this home holds, or a frozen game, needs the
        # player: the exit status says so (a stranger's junk does not).
        trouble = trouble or (outcome.attention and outcome.game_id in names)
    if report.sent:
        print(f"sent {len(report.sent)} packet(s)")
    for problem in report.problems:
        print(f"warning: {safe_text(problem)}", file=sys.stderr)
    for failure in report.failed:
        print(f"not sent: packet {failure.seq}: {safe_text(failure.error)}", file=sys.stderr)
    for line in report.requests:
        print(safe_text(line))
    if not signing:
        print("note: automatic replies were not written (the passphrase is needed to sign them)")
    return 1 if report.failed or trouble else 0


def _watch(
    args: argparse.Namespace, home: Home, replica: Replica, transport: Transport, signing: bool
) -> int:
    """``sync --watch``: rounds until Ctrl-C, one line per thing that happened."""
    from mail.watch import Round, watch

    if not hasattr(transport, "wait"):
        raise HexpostError("--watch needs the mail transport (`hexpost account add`)")
    if args.game:
        raise HexpostError("--watch follows every game of this home: leave out GAME")
    if not signing and auto_replies(args, home):
        print("note: automatic replies are off (the passphrase is needed to sign them)")

    def show(result: Round) -> None:
        stamp = now()[11:19]
        if result.error is not None:
            error = safe_text(result.error)
            print(f"{stamp} {error}; trying again in {result.retry_in:g} s", file=sys.stderr)
            return
        report = result.report
        assert report is not None
        names = {row.game_id: row.name for row in replica.games()}
        for outcome in report.received:
            print(f"{stamp} received: {render.outcome_text(names, outcome)}")
        if report.sent:
            print(f"{stamp} sent {len(report.sent)} packet(s)")
        for failure in report.failed:
            print(
                f"{stamp} not sent: packet {failure.seq}: {safe_text(failure.error)}",
                file=sys.stderr,
            )
        for line in [*report.problems, *report.requests, *result.reminders]:
            print(f"{stamp} {safe_text(line)}")
        sys.stdout.flush()

    print(f"watching {transport.name} (Ctrl-C to stop)", flush=True)
    try:
        asyncio.run(
            watch(
                replica,
                transport,  # type: ignore[arg-type]  # checked by hasattr above
                now,
                on_round=show,
                auto_replies=signing and auto_replies(args, home),
                idle_seconds=_idle_seconds(transport),
            )
        )
    except KeyboardInterrupt:
        print("stopped watching")
    return 0


def _idle_seconds(transport: Transport) -> float:
    """The account's ``idle_timeout`` (at most 29 minutes, checked when it is read)."""
    from mail.watch import MAX_IDLE_SECONDS

    config = getattr(transport, "config", None)
    imap = getattr(config, "imap", None)
    return float(getattr(imap, "idle_timeout", MAX_IDLE_SECONDS))


def auto_replies(args: argparse.Namespace | None, home: Home) -> bool:
    """Whether sync answers rolls and reveals by itself: yes unless ``--no-auto-replies`` or
    ``[sync] auto_replies = false`` in config.toml says no."""
    if args is not None and getattr(args, "no_auto_replies", False):
        return False
    table = home.config().get("sync") or {}
    value = table.get("auto_replies", True) if isinstance(table, dict) else True
    if not isinstance(value, bool):
        raise HexpostError(f"config.toml: sync.auto_replies must be true or false, not {value!r}")
    return value


async def _sync_once(replica: Replica, transport: Transport, replies: bool) -> Any:
    try:
        return await sync(replica, transport, now, auto_replies=replies)
    finally:
        await transport.close()
