"""One sync (pull, apply, answer, push) or one round of a watch, and what it did in words.

Both faces run a sync through `sync_once` with the transport and the clock they were given,
and word its report through `sync_lines`: the command line prints the lines (warnings and
unsent packets on standard error), the app keeps them as the details behind a one-line summary
(`describe`). The decisions live here once: whether sync answers rolls and reveals by itself
(`auto_replies`), what makes a sync need the player (`needs_player`), and when a home that
could not sign owes an automatic reply (`owes_automatic_reply`).

The lines carry other people's words (names, refusals, server replies) as they came: a face
escapes them (`tui.safe_text`) at the moment it shows them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from engine.core.errors import HexpostError
from engine.core.text import counted

if TYPE_CHECKING:
    # The app imports this module (for `SyncOutcome`) before its first paint; the mail stack,
    # the store and the engine are imported by the functions that run a sync, on its thread.
    from mail.sync import SyncReport
    from mail.transport import Transport
    from mail.watch import Round
    from saves.home import Home
    from saves.outcome import Outcome
    from saves.replica import Replica
    from tui.services.ports import Clock

NO_REPLIES_NOTE = "note: automatic replies were not written (the passphrase is needed to sign them)"


class SyncLine(msgspec.Struct, frozen=True):
    """One thing a sync did, in words. ``kind`` is ``received``, ``sent``, ``warning``,
    ``not-sent``, ``request``, ``note`` (the command line's standard error takes ``warning``
    and ``not-sent``) or, in a watch, ``info`` and ``error``; ``game`` is the hex id of the
    game a received item was for, when known."""

    kind: str
    text: str
    game: str | None = None


class SyncOutcome(msgspec.Struct, frozen=True):
    """A sync as the app's status line says it: one summary line and the lines behind it."""

    summary: str
    changed: frozenset[str] = frozenset()
    """Hex ids of the games a received packet changed (applied, invited, desync...)."""
    details: tuple[str, ...] = ()
    ok: bool = True
    replies_owed: bool = False
    """The sync could not sign (no passphrase) and a game waits for an automatic reply from
    this home (a die roll's entropy, a reveal): with the passphrase a second sync writes it."""
    quiet: bool = False
    """Nothing came, nothing left and there is nothing to tell: the app then keeps the news
    of what arrived earlier on the status line (`tui.screens.base.HexpostScreen.synced`)."""


async def sync_once(
    replica: Replica, transport: Transport, clock: Clock, replies: bool
) -> SyncReport:
    """One sync through ``transport``, which is closed afterwards whatever happened."""
    from mail.sync import sync

    try:
        return await sync(replica, transport, clock, auto_replies=replies)
    finally:
        await transport.close()


def auto_replies(home: Home, *, refused: bool = False) -> bool:
    """Whether sync answers rolls and reveals by itself: yes unless the player ``refused``
    (``--no-auto-replies``) or ``[sync] auto_replies = false`` in config.toml says no."""
    if refused:
        return False
    value = home.table("sync").get("auto_replies", True)
    if not isinstance(value, bool):
        raise HexpostError(f"config.toml: sync.auto_replies must be true or false, not {value!r}")
    return value


def idle_seconds(transport: Transport) -> float:
    """How long a watch idles on the server: the account's ``idle_timeout`` (at most 29
    minutes, checked when it is read), else the longest allowed."""
    from mail.watch import MAX_IDLE_SECONDS

    config = getattr(transport, "config", None)
    imap = getattr(config, "imap", None)
    return float(getattr(imap, "idle_timeout", MAX_IDLE_SECONDS))


def game_names(replica: Replica) -> dict[bytes, str]:
    return {row.game_id: row.name for row in replica.games()}


def outcome_line(names: Mapping[bytes, str], outcome: Outcome) -> str:
    """One received item: what became of it, the game, position and seat it was for (as far
    as anything tells), where it came from, and why."""
    parts = []
    if outcome.game_id is not None:
        parts.append(names.get(outcome.game_id) or f"game {outcome.game_id.hex()[:8]}")
    if outcome.seq is not None:
        parts.append(f"packet {outcome.seq}")
    if outcome.seat:
        parts.append(f"from {outcome.seat}")
    where = "" if outcome.status == "claim" else " ".join(parts)  # a claim names its game
    source = f" [{outcome.source}]" if outcome.source and outcome.status != "applied" else ""
    head = f"{outcome.status}: {where}{source}" if where or source else outcome.status
    if outcome.status == "applied" and outcome.detail == f"applied packet {outcome.seq}":
        return head  # (the head says it already)
    return f"{head}: {outcome.detail}"


def _received(names: Mapping[bytes, str], outcome: Outcome) -> SyncLine:
    game = outcome.game_id.hex() if outcome.game_id is not None else None
    return SyncLine("received", f"received: {outcome_line(names, outcome)}", game)


LISTED_PER_GROUP = 3
"""Received items listed one by one per status and game; the rest share one counting line."""


def received_lines(names: Mapping[bytes, str], outcomes: Sequence[Outcome]) -> list[SyncLine]:
    """A line per received item, but at most `LISTED_PER_GROUP` per status and game (items
    for games this home does not hold count as one group): a flood of a thousand packets
    reads as a few lines and a count, never a thousand lines."""
    groups: dict[tuple[str, bytes | None], list[Outcome]] = {}
    for outcome in outcomes:
        game = outcome.game_id if outcome.game_id in names else None
        groups.setdefault((outcome.status, game), []).append(outcome)
    lines: list[SyncLine] = []
    for (status, game), items in groups.items():
        lines += [_received(names, outcome) for outcome in items[:LISTED_PER_GROUP]]
        rest = items[LISTED_PER_GROUP:]
        if rest:
            where = f" of {names[game]}" if game is not None else ""
            seqs = sorted(o.seq for o in rest if o.seq is not None)
            span = f" (packets {seqs[0]}-{seqs[-1]})" if seqs and game is not None else ""
            lines.append(
                SyncLine(
                    "received",
                    f"received: {status}: {counted(len(rest), 'more item')}{where}{span}",
                    game.hex() if game is not None else None,
                )
            )
    return lines


def arrival_lines(replica: Replica, report: SyncReport, game: str | None = None) -> list[str]:
    """What the packets this sync applied did, in words, per game (`tui.services.news`),
    its own automatic replies included, and what each of those games waits for now; only
    game ``game`` (hex id) when given."""
    from saves.news import arrivals
    from tui.services.news import news_lines

    lines: list[str] = []
    for item in arrivals(replica, report.received, report.written):
        if game is None or item.game == game:
            lines += news_lines(item)
    return lines


def sync_lines(report: SyncReport, names: Mapping[bytes, str], *, signing: bool) -> list[SyncLine]:
    """Everything a sync did, in the order ``hexpost sync`` prints it."""
    lines = received_lines(names, report.received)
    if report.sent:
        lines.append(SyncLine("sent", f"sent {counted(len(report.sent), 'packet')}"))
    lines += resigned_lines(report)
    lines += [SyncLine("warning", f"warning: {problem}") for problem in report.problems]
    lines += [SyncLine("not-sent", f"not sent: packet {f.seq}: {f.error}") for f in report.failed]
    asked = [*report.requests, *report.reminders, *report.checks]
    lines += [SyncLine("request", line) for line in asked]
    if not signing:
        lines.append(SyncLine("note", NO_REPLIES_NOTE))
    return lines


def needs_player(report: SyncReport, names: Mapping[bytes, str]) -> bool:
    """Whether the sync calls for the player: a packet that could not be sent, or a refused
    or damaged item of a game this home holds, or a game that froze (a stranger's junk
    does not count). ``hexpost sync`` exits 1 then; the app's sync is not ``ok``."""
    return bool(report.failed) or any(
        outcome.attention and outcome.game_id in names for outcome in report.received
    )


def resigned_lines(report: SyncReport) -> list[SyncLine]:
    """A line per game this sync resigned, as its player had asked (`saves.resigning`)."""
    return [
        SyncLine("resigned", f"{name}: you resigned, as you asked: the game is over")
        for name in report.resigned
    ]


DETAIL_KINDS = frozenset({"received", "resigned", "warning", "not-sent", "request"})


def describe(
    report: SyncReport, signing: bool, names: Mapping[bytes, str] | None = None
) -> SyncOutcome:
    """A sync report as one status line plus the details behind it."""
    names = names or {}
    details = tuple(
        line.text
        for line in sync_lines(report, names, signing=signing)
        if line.kind in DETAIL_KINDS
    )
    applied = sum(1 for o in report.received if o.status == "applied")
    # A copy of a packet already held (the other side sent it again, or a shared mailbox
    # showed this home its own) is counted apart: "received 1, applied 0" read as a fault.
    held = sum(1 for o in report.received if o.status == "duplicate")
    # A chat message is no packet of the game: named as what it is ("received 1, applied 0"
    # for a line of chat read as a packet the engine did not apply).
    chats = sum(1 for o in report.received if o.status == "chat")
    received = len(report.received) - held - chats
    parts = [f"received {received}", f"applied {applied}", f"sent {len(report.sent)}"]
    if chats:
        parts.append(counted(chats, "chat message"))
    if held:
        parts.append(f"{held} already held")
    attention = sum(1 for o in report.received if o.attention)
    if attention:  # a damaged or refused packet of a game of ours, or a frozen game
        parts.append(f"{attention} REFUSED or damaged")
    if report.failed:
        parts.append(f"{len(report.failed)} NOT SENT")
    if report.problems:
        parts.append(counted(len(report.problems), "warning"))
    if report.resigned:
        parts.append(f"resigned {', '.join(report.resigned)}")
    if report.reminders:
        parts.append(counted(len(report.reminders), "reminder"))
    if report.checks:
        parts.append(counted(len(report.checks), "lost-move check"))
    if not signing:
        parts.append("no automatic replies (passphrase needed)")
    changed = frozenset(
        [
            *(o.game_id.hex() for o in report.received if o.game_id is not None),
            *(game_id.hex() for game_id in report.pushed),  # (what is left to send)
        ]
    )
    ok = not report.failed and not attention
    quiet = ok and len(parts) == 3 and not report.received and not report.sent and not details
    return SyncOutcome("synced: " + ", ".join(parts), changed, details, ok=ok, quiet=quiet)


def round_lines(result: Round, names: Mapping[bytes, str]) -> list[SyncLine]:
    """One round of ``sync --watch``: what it received and sent, or why it failed."""
    if result.error is not None:
        return [SyncLine("error", f"{result.error}; trying again in {result.retry_in:g} s")]
    report = result.report
    assert report is not None
    lines = received_lines(names, report.received)
    if report.sent:
        lines.append(SyncLine("sent", f"sent {counted(len(report.sent), 'packet')}"))
    lines += resigned_lines(report)
    lines += [SyncLine("not-sent", f"not sent: packet {f.seq}: {f.error}") for f in report.failed]
    lines += [SyncLine("info", line) for line in [*report.problems, *report.requests]]
    lines += [SyncLine("info", line) for line in [*report.reminders, *report.checks]]
    return lines


BACKUP_TABLE = "backup"
"""config.toml's table naming the folder a backup goes to after each sync that changed
something (``hexpost backup FOLDER --after-each-sync``)."""


def backup_folder(home: Home) -> str | None:
    """The folder this home backs up into after each sync, if it does."""
    return backup_folder_in(home.config())


def backup_folder_in(config: Mapping[str, Any]) -> str | None:
    """`backup_folder` of a config already read."""
    table = config.get(BACKUP_TABLE)
    folder = table.get("folder") if isinstance(table, dict) else None
    return folder if isinstance(folder, str) and folder else None


def keep_backup_after_sync(home: Home, folder: str | None) -> None:
    """Back up into ``folder`` after each sync from now on (None: no more), in config.toml."""
    config = home.config()
    if folder is None:
        config.pop(BACKUP_TABLE, None)
    else:
        config[BACKUP_TABLE] = {"folder": folder}
    home.save_config(config)


def backup_after(home: Home, report: SyncReport, clock: Clock) -> list[SyncLine]:
    """Back the home up (replacing the earlier backup) when it keeps one after each sync and
    this sync received or sent a packet; one line saying so, or a warning: a backup that
    cannot be made never fails the sync."""
    from saves.backup import back_up

    changed = any(o.applied or o.status == "invitation" for o in report.received)
    if not (report.sent or changed):
        return []  # (a quiet round reads no config)
    folder = backup_folder(home)
    if folder is None:
        return []
    try:
        made = back_up(home, Path(folder), replace=True, now=clock())
    except HexpostError as exc:
        return [SyncLine("warning", f"warning: no backup after this sync: {exc}")]
    except OSError as exc:
        return [SyncLine("warning", f"warning: no backup after this sync: {exc.strerror or exc}")]
    return [SyncLine("note", made.summary())]


def owes_automatic_reply(replica: Replica) -> bool:
    """Whether some active game waits for an automatic reply (a roll's entropy, a reveal, a
    resignation asked for earlier) that only this home's key can sign: then a sync with the
    passphrase has work to do."""
    from engine.core.ruleset import DecisionKind
    from saves import resigning

    automatic = (DecisionKind.ENTROPY, DecisionKind.REVEAL)
    for row in replica.active_games():
        owed = replica.pending(row.game_id)
        if owed and owed[0].seats[0] == row.my_seat and owed[0].kind in automatic:
            return True
        if resigning.due(replica, row):
            return True
    return False
