"""``hexpost sync`` and ``hexpost sync --watch``: pull, apply, answer and push, and say so.

The sync itself and its wording are `tui.services.sync`'s; this face builds the transport
from the home's config, hands over the wall clock, prints what arrived in words per game
(`tui.services.news`), then each line (warnings and unsent packets on standard error,
everything escaped) and chooses the exit status: 1 when the sync
needs the player (`tui.services.sync.needs_player`: a packet not sent, or a damaged or
refused packet of one of this home's games, or a frozen game).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys

from engine.core.errors import HexpostError
from mail.transport import Transport
from saves.home import Home
from saves.replica import Replica
from tui.askpass import sync_replica
from tui.safe_text import safe_text
from tui.services import sync as service
from tui.services.transport import configured_transport as transport_of
from tui.when import now

_sync_once = service.sync_once
ERR_KINDS = frozenset({"warning", "not-sent", "error"})
"""The lines that go to standard error."""


def cmd_sync(args: argparse.Namespace, home: Home) -> int:
    transport = transport_of(home)
    replica, signing = sync_replica(args, home)
    if args.watch:
        return _watch(args, home, replica, transport, signing)
    # Name the game before touching the transport: a typo must not sync anything.
    wanted = replica.find(args.game).game_id.hex() if args.game else None
    report = asyncio.run(_sync_once(replica, transport, now, auto_replies(args, home)))
    names = service.game_names(replica)
    said = 0
    for text in service.arrival_lines(replica, report, wanted):
        print(safe_text(text))
        said += 1
    lines = [*service.sync_lines(report, names, signing=signing)]
    lines += service.backup_after(home, report, now)
    for line in lines:
        if line.kind == "received" and wanted is not None and line.game != wanted:
            continue
        print(safe_text(line.text), file=sys.stderr if line.kind in ERR_KINDS else sys.stdout)
        said += 1
    if not said and sys.stdout.isatty():  # (a cron job's sync stays silent: no mail for it)
        print("nothing new arrived, nothing waits to be sent")
    return 1 if service.needs_player(report, names) else 0


def _watch(
    args: argparse.Namespace, home: Home, replica: Replica, transport: Transport, signing: bool
) -> int:
    """``sync --watch``: rounds until Ctrl-C, one line per thing that happened."""
    from mail.watch import Round, watch

    if not hasattr(transport, "wait"):
        raise HexpostError(
            "--watch needs a transport that tells when packets come: the mail account "
            "(`hexpost account add`) or a shared folder (`hexpost transport folder PATH`)"
        )
    if args.game:
        raise HexpostError("--watch follows every game of this home: leave out GAME")
    if not signing and auto_replies(args, home):
        print("note: automatic replies are off (the passphrase is needed to sign them)")

    def show(result: Round) -> None:
        stamp = now()[11:19]
        if result.report is not None:
            for text in service.arrival_lines(replica, result.report):
                print(f"{stamp} {safe_text(text)}")
        lines = service.round_lines(result, service.game_names(replica))
        if result.report is not None:
            lines += service.backup_after(home, result.report, now)
        for line in lines:
            where = sys.stderr if line.kind in ERR_KINDS else sys.stdout
            print(f"{stamp} {safe_text(line.text)}", file=where)
        sys.stdout.flush()

    async def watching() -> None:
        """The watch loop, stopped by the first Ctrl-C (or SIGTERM, how a service manager
        stops it) through its ``stop`` event: the round in progress ends and the wait for
        mail is given up, rather than a cancellation thrown into whatever the loop awaits
        (which could leave it waiting on the IMAP thread). A second one interrupts at once."""
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()

        def first_interrupt() -> None:
            stop.set()
            for stopping in STOP_SIGNALS:  # the next one acts as it would without us
                loop.remove_signal_handler(stopping)

        with contextlib.suppress(NotImplementedError, RuntimeError):
            for stopping in STOP_SIGNALS:
                loop.add_signal_handler(stopping, first_interrupt)
        # Said once a stop is ours to handle: a service manager that stops us as soon as we
        # say we run still gets a clean end.
        print(f"watching {transport.name} (Ctrl-C to stop)", flush=True)
        await watch(
            replica,
            transport,  # type: ignore[arg-type]  # checked by hasattr above
            now,
            on_round=show,
            auto_replies=signing and auto_replies(args, home),
            idle_seconds=service.idle_seconds(transport),
            stop=stop,
        )

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(watching())
    print("stopped watching")
    return 0


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
"""What ends ``sync --watch`` cleanly: Ctrl-C, and a service manager's stop (systemd's)."""


def auto_replies(args: argparse.Namespace | None, home: Home) -> bool:
    """Whether sync answers rolls and reveals by itself (`tui.services.sync.auto_replies`),
    ``--no-auto-replies`` saying no."""
    refused = args is not None and bool(getattr(args, "no_auto_replies", False))
    return service.auto_replies(home, refused=refused)
