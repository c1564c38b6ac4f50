"""What each `hexpost` command does: the parsed arguments handed to `tui.services`, and the
result printed.

This is the command line's face over the service layer: it reads the flags, asks for a
passphrase where one is needed (an environment variable, a command, or the terminal), picks
the clock (`tui.when.now`) and the transport (`tui.services.transport.configured_transport`)
the services are given, and prints. Every decision is the services'. A user's mistake is a
`HexpostError` with a one-line reason; the entry point in `tui.cli` prints it and exits 1.

Only what ``hexpost show`` and ``games`` use is imported with this module; every other
command imports its own modules when it runs (the passphrase prompt, the order parser, the
calculator, the trust and design commands, the mail modules...): together they cost those
two read-only commands some 15 ms of their start (issue 16).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shlex
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from engine.core.errors import HexpostError
from engine.core.packets import MAX_PACKET_SIZE
from engine.core.text import counted
from saves.home import Home, default_home
from saves.replica import GameRow, Replica
from saves.store import StoreError, database_trouble
from tui import render
from tui.safe_text import safe_text
from tui.services import games, log, show
from tui.services import home as identity
from tui.when import now

if TYPE_CHECKING:
    from tui.services.orders import Orders


def home_of(args: argparse.Namespace) -> Home:
    return Home(Path(args.home) if args.home else default_home())


MAX_ORDERS_TEXT = 8 << 20
"""The most characters an orders file (or standard input) may hold: eight times the largest
packet (`engine.core.packets.MAX_PACKET_SIZE`), room for JSON's quoting and layout. A bigger
one is refused before it is parsed: it could never be signed."""


def read_orders(source: str) -> Orders:
    """Orders from a JSON or TOML file (or ``-`` for standard input), at most
    `MAX_ORDERS_TEXT` characters of them."""
    from tui.services import orders

    where = "standard input" if source == "-" else source
    if source == "-" and sys.stdin.isatty():  # (else it waits in silence, as if hung)
        print(
            "type the orders (JSON or TOML), then ctrl+d on a line of its own (ctrl+c gives up)",
            file=sys.stderr,
        )
    try:
        with (
            contextlib.nullcontext(sys.stdin)
            if source == "-"
            else Path(source).open(encoding="utf-8")  # (newlines read as read_text reads them)
        ) as handle:
            text = handle.read(MAX_ORDERS_TEXT + 1)
    except OSError as exc:
        raise HexpostError(f"cannot read orders file {source}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise HexpostError(f"orders file {source} is not UTF-8 text") from None
    if len(text) > MAX_ORDERS_TEXT:
        what = "orders on standard input are" if source == "-" else f"orders file {source} is"
        raise HexpostError(
            f"{what} larger than {MAX_ORDERS_TEXT >> 20} MiB of text: a packet carries at most "
            f"{MAX_PACKET_SIZE >> 20} MiB of orders"
        )
    suffix = "" if source == "-" else Path(source).suffix
    return orders.parse_orders(text, where, suffix)


# --- the commands ------------------------------------------------------------------------


def cmd_identity(args: argparse.Namespace, home: Home) -> int:
    if args.identity_command == "create":
        from tui.askpass import passphrase

        identity.refuse_second_identity(home)  # before asking for a passphrase twice
        secret = None
        if not args.no_passphrase:
            secret = passphrase(args, purpose="protect the new key", confirm=True)
        record = identity.create_identity(home, args.name, args.address, secret)
        print(f"identity created for {record.name} <{record.address}>")
        print(f"fingerprint: {record.fingerprint}")
        if secret is None:
            print("warning: the key is stored unencrypted (--no-passphrase)")
        return 0
    shown = identity.identity_record(home)
    if shown is None:
        raise HexpostError(identity.NO_IDENTITY)
    render.emit(shown, args.json, render.identity_text)
    return 0


def cmd_transport(args: argparse.Namespace, home: Home) -> int:
    # The mail modules (and asyncio under them) are imported by the commands that use them
    # only: `hexpost games --json` and `show --json` start without them (issue 16).
    from tui import account_cmd
    from tui.services.transport import transport_text, use_folder

    if args.transport_command == "mail":
        return account_cmd.cmd_transport_mail(args, home)
    if args.transport_command == "folder":
        path = use_folder(home, args.path)
        print(f"packets will travel through the folder {path}")
        return 0
    print(f"transport: {transport_text(home)}")
    return 0


def cmd_scenarios(args: argparse.Namespace, _home: Home) -> int:
    from tui.services import rulesets, start

    render.emit(start.scenarios(), args.json, render.scenarios_text)
    for note in rulesets.plugin_notes():
        print(f"warning: {safe_text(note.text)}", file=sys.stderr)
    return 0


def cmd_scenario(args: argparse.Namespace, _home: Home) -> int:
    from tui.services import rulesets

    if args.scenario_command == "rules":
        from tui.services.start import scenario_rules

        render.emit(scenario_rules(args.scenario), args.json, render.rules_text)
        return 0
    details = rulesets.scenario_details(args.scenario, getattr(args, "turn", None))
    if args.json:
        print(json.dumps(render.builtins(details.record), indent=2, ensure_ascii=True))
    else:
        print(safe_text(details.text, multiline=True))
    return 0


def cmd_data(args: argparse.Namespace, _home: Home) -> int:
    from tui.services import rulesets

    problems = render.builtins(rulesets.data_problems())
    gaps = render.builtins(rulesets.data_gaps())
    if args.json:
        print(json.dumps({"problems": problems, "gaps": gaps}, indent=2))
        return 1 if problems else 0
    lines = [f"{p['file']}: {p['entry']}: {p['message']}" for p in problems] or [
        "the shipped data is consistent: no broken references"
    ]
    if gaps:
        lines.append("left open by the sources (not errors):")
        lines += [f"  {gap['file']}: {gap['entry']}: {gap['message']}" for gap in gaps]
    print("\n".join(render.fit_lines(lines)))
    return 1 if problems else 0


def cmd_new(args: argparse.Namespace, home: Home) -> int:
    from tui.askpass import signing_replica
    from tui.services import start

    start.ruleset_of_scenario(args.scenario)  # a typo is refused before the passphrase
    replica = signing_replica(args, home, "sign the new game")
    made = start.new_game(
        replica,
        args.scenario,
        args.seat,
        args.opponent,
        clock=now,
        opponent_seat=args.opponent_seat,
        name=args.name or "",
        options=start.parse_options(args.option, args.scenario),
        reply_window_hours=args.reply_window,
    )
    print(made.game)  # alone on stdout: a script reads the id
    for line in render.option_lines(made.options, " (change with --option id=value)"):
        print(line, file=sys.stderr)
    called = safe_text(args.name) if args.name else made.game[:8]
    invited = safe_text(args.opponent)
    print(f"created {called}: `hexpost sync` sends the invitation to {invited}", file=sys.stderr)
    return 0


def cmd_accept(args: argparse.Namespace, home: Home) -> int:
    """Join a game this home was invited to; or, as its creator, accept the key that joined
    (`saves.joins`: the creator's next packet carries the acceptance)."""
    from tui.askpass import signing_replica
    from tui.services import start

    row = home.replica().find(args.game)
    if row.status == "invited":
        replica = signing_replica(args, home, "sign the join packet")
        done = start.join(replica, row.game_id, now)
        print(f"{safe_text(done.text)}; run `hexpost sync` to send the join packet")
        return 0
    replica = signing_replica(args, home, "accept the joined key")
    done = start.accept_key(replica, row.game_id, now, expected=args.fingerprint or "")
    print(safe_text(done.text))
    return 0


def cmd_games(args: argparse.Namespace, home: Home) -> int:
    replica = home.replica()
    notes = games.home_notes(replica)
    if notes:  # above the list; with --json on stderr, so the list stays the same JSON
        text = safe_text("\n".join(notes), multiline=True)  # (an invitation's names: theirs)
        print(text, file=sys.stderr if args.json else sys.stdout)
    listed, hidden = games.shown(games.summaries(replica), every=args.all)
    if listed or args.json or not hidden:  # not "no games yet" when all are archived
        render.emit(listed, args.json, render.games_text)
    if hidden:  # under the list; with --json on stderr, so the list stays the same JSON
        line = games.hidden_line(hidden, "`hexpost games --all`")
        print(line, file=sys.stderr if args.json else sys.stdout)
    return 0


def cmd_archive(args: argparse.Namespace, home: Home) -> int:
    """File a game away in this home's list, or bring it back (`games.archive`)."""
    replica = home.replica()
    row = replica.find(args.game)
    print(safe_text(games.archive(replica, row, now(), undo=args.undo)))
    if not args.undo:
        name = safe_text(row.name)
        print(f"`hexpost games --all` lists it; `hexpost archive {name} --undo` brings it back")
    return 0


def cmd_show(args: argparse.Namespace, home: Home) -> int:
    replica = home.replica()
    row = replica.find(args.game)
    if args.at is not None and not 0 <= args.at <= row.head_seq:
        raise HexpostError(f"--at {args.at}: game {row.name} has packets 0 to {row.head_seq}")
    if args.map or args.region or args.detailed:
        from tui.services import rulesets

        if not rulesets.has_map(row):
            raise HexpostError(f"game {row.name} has no strategic map")
        print("\n".join(_map_lines(args, replica, row)))
        return 0
    # The ruleset's top-level keys are JSON's only: the text form prints none of them.
    record = show.show(replica, row, at=args.at, checklist=args.checklist, extras=args.json)
    render.emit(record, args.json, render.show_text)
    if args.at is None:
        replica.mark_read(row.game_id)
    return 0


def _map_lines(args: argparse.Namespace, replica: Replica, row: GameRow) -> list[str]:
    """The printed map with the game's board on it (at ``--at``, or the head) and the
    legend, from the ruleset's face alone (`tui.mapsheet.render_sheet`)."""
    from tui.mapsheet import SheetIndex, render_sheet
    from tui.services.board import board_at, sheet_for

    sheet = sheet_for(row.ruleset, row.scenario)
    if sheet is None:
        raise HexpostError(f"game {row.name} has no strategic map")
    try:
        index = SheetIndex(sheet)
    except ValueError as exc:
        raise HexpostError(f"game {row.name}: {exc}") from None
    board = board_at(replica, row, args.at)
    try:
        return render_sheet(
            index, board, region=args.region, detail="detailed" if args.detailed else "compact"
        )
    except ValueError as exc:
        raise HexpostError(f"--region: {exc}") from None


def cmd_orders(args: argparse.Namespace, home: Home) -> int:
    from tui.askpass import signing_replica
    from tui.services import orders

    items = read_orders(args.file)
    if args.dry_run:
        replica = home.replica()
        game_id = replica.find(args.game).game_id
        verdict = orders.check(replica, game_id, items, now)
    else:
        replica = signing_replica(args, home, "sign the orders")
        game_id = replica.find(args.game).game_id
        verdict = orders.sign(replica, game_id, items, now)
    if not verdict.legal:
        raise HexpostError(verdict.refusal)
    if verdict.signed:
        print(f"packet {verdict.seq} signed and queued; run `hexpost sync` to send it")
    else:
        state = (verdict.state_hash or "")[:16]
        print(f"orders are legal: packet {verdict.seq} would give state {state}")
    for line in render.fit_lines([f"  {safe_text(event.text)}" for event in verdict.events]):
        print(line)
    if verdict.hands_to:  # the hand-off: whose move it is once the packet is applied
        print("\n".join(render.fit_lines([f"then the game {safe_text(verdict.hands_to)}"])))
    sys.stdout.flush()  # (what follows goes to stderr: after, in a log of both)
    note = ""
    if verdict.left_open:  # (on stderr, as the tips: stdout stays what the orders did)
        note = orders.left_open_note(verdict)
    elif verdict.then:
        note = orders.then_note(verdict)
    if note:
        print("\n".join(render.fit_lines([safe_text(note)])), file=sys.stderr)
    if verdict.signed:  # (on stderr: stdout stays what the orders did)
        from tui.services.pace_tips import cli_tips

        for tip in cli_tips(replica, game_id, items):
            words, _, order = safe_text(tip, multiline=True).partition("\n")
            # Within 80 columns; the order wraps between its JSON items, so it still reads.
            lines = [*render.fit_lines([words], hang=2), *render.fit_lines([f"    {order}"])]
            print("\n".join(lines), file=sys.stderr)
    return 0


def cmd_chat(args: argparse.Namespace, home: Home) -> int:
    from tui.askpass import signing_replica
    from tui.services.chat import chat_lines, send_chat

    if not args.text:
        replica = home.replica()
        row = replica.find(args.game)
        render.emit(chat_lines(replica, row.game_id), args.json, render.chat_text)
        return 0
    replica = signing_replica(args, home, "sign the chat message")
    row = replica.find(args.game)
    sent = send_chat(replica, row.game_id, " ".join(args.text), now)
    print(
        f"chat message {sent.body.seq} signed and queued (beside the game, not part of it); "
        "run `hexpost sync` to send it"
    )
    return 0


def cmd_verify(args: argparse.Namespace, home: Home) -> int:
    from tui import trust_cmd
    from tui.services import chain

    replica = home.replica()
    if args.game is None:
        return _verify_every_game(replica)
    row = replica.find(args.game)
    done = chain.verify(replica, row)
    name, count = safe_text(row.name), done.packets
    if done.frozen:  # the chain holds, but the proof that froze the game lies outside it
        print(f"the {count} stored packets of {name} replay: signatures, links, state hashes")
        print(f"state hash {done.state_hash}")
        raise HexpostError(
            f"game {name} is FROZEN ({done.frozen}): see "
            f"`hexpost evidence {trust_cmd.game_arg(row)}`"
        )
    print(
        f"verified {counted(count, 'packet')} of {name}: every signature, link and state hash holds"
    )
    print(f"state hash {done.state_hash}")
    return 0


def _verify_every_game(replica: Replica) -> int:
    """`cmd_verify` of every game of the home, one line each, on past a game that fails: exit 1
    naming those that did not verify or are frozen (a cron job's mail then says which)."""
    from tui import trust_cmd
    from tui.services import chain

    rows = replica.games()
    if not rows:
        print("no games in this home")
        return 0
    failed: list[str] = []
    for row in rows:
        label = f"{safe_text(row.name)} ({row.game_id.hex()[:8]})"
        try:
            done = chain.verify(replica, row)
        except HexpostError as exc:
            failed.append(label)
            print(f"NOT VERIFIED {label}: {safe_text(str(exc))}")
            continue
        if done.frozen:
            failed.append(label)
            print(
                f"FROZEN {label}: its {done.packets} stored packets replay, but the game is "
                f"frozen ({safe_text(done.frozen)}): see `hexpost evidence "
                f"{trust_cmd.game_arg(row)}`"
            )
            continue
        print(
            f"verified {counted(done.packets, 'packet')} of {label}: every signature, link "
            "and state hash holds"
        )
    if failed:
        raise HexpostError(
            f"{len(failed)} of {len(rows)} games did not verify: {', '.join(failed)}"
        )
    return 0


def cmd_log(args: argparse.Namespace, home: Home) -> int:
    if args.last is not None and args.last < 1:
        raise HexpostError(f"--last {args.last}: give a count of packets, 1 or more")
    replica = home.replica()
    row = replica.find(args.game)
    records = log.log_records(replica, row)
    if args.last is not None:
        records = log.last_packets(records, args.last)
    render.emit(records, args.json, render.log_text)
    replica.mark_read(row.game_id)
    return 0


def cmd_pace(args: argparse.Namespace, home: Home) -> int:
    from tui.pace_text import overview_text, pace_text
    from tui.services import pace

    replica = home.replica()
    if args.game is None:
        render.emit(list(pace.pace_overview(replica)), args.json, overview_text)
        return 0
    row = replica.find(args.game)
    render.emit(pace.pace_report(replica, row), args.json, pace_text)
    return 0


def cmd_export(args: argparse.Namespace, home: Home) -> int:
    from tui.services import chain

    replica = home.replica()
    row = replica.find(args.game)
    count = chain.export_game(replica, row, args.output, public=args.public)
    print(f"wrote {safe_text(row.name)} ({count} packets) to {args.output}")
    return 0


def cmd_import(args: argparse.Namespace, home: Home) -> int:
    from tui.services import chain

    row = chain.import_game(home, args.file, now)
    print(f"imported {safe_text(row.name)} ({row.game_id.hex()[:12]}) at packet {row.head_seq}")
    return 0


def cmd_backup(args: argparse.Namespace, home: Home) -> int:
    from saves.backup import back_up
    from tui.services import sync

    if args.no_after_each_sync:
        if args.folder:
            raise HexpostError("--no-after-each-sync takes no FOLDER: it only stops the backups")
        was = sync.backup_folder(home)
        sync.keep_backup_after_sync(home, None)
        print("no backup after each sync" + ("" if was is None else f" any more (into {was})"))
        return 0
    if not args.folder:
        raise HexpostError("backup: give the FOLDER to back up into")
    again = args.after_each_sync
    report = back_up(home, Path(args.folder), replace=args.replace or again, now=now())
    print(report.summary())
    if again:
        sync.keep_backup_after_sync(home, str(report.destination))
        print("and again after each sync that receives or sends a packet")
    where = shlex.quote(str(report.destination))
    print(f"the copy is a home; to play from it after a loss: hexpost --home {where} restored")
    print("(read `hexpost restored --help` first)")
    return 0


def cmd_restored(_args: argparse.Namespace, home: Home) -> int:
    from tui.services.backups import confirm_restored

    print(confirm_restored(home))
    return 0


def cmd_account(args: argparse.Namespace, home: Home) -> int:
    from tui import account_cmd

    return account_cmd.cmd_account(args, home)


def cmd_sync(args: argparse.Namespace, home: Home) -> int:
    from tui import sync_cmd

    return sync_cmd.cmd_sync(args, home)


def cmd_demo(args: argparse.Namespace, _home: Home) -> int:
    from tui.rulesets import demo

    return demo().run(Path(args.keep) if args.keep else None)


def cmd_calc(args: argparse.Namespace, home: Home) -> int:
    from tui import calc_cmd

    return calc_cmd.cmd_calc(args, home)


def cmd_design(args: argparse.Namespace, home: Home) -> int:
    from tui import design_cmd

    return design_cmd.run(args, home)


def cmd_choices(args: argparse.Namespace, home: Home) -> int:
    from tui import choices_cmd

    return choices_cmd.cmd_choices(args, home)


def cmd_find(args: argparse.Namespace, home: Home) -> int:
    from tui import choices_cmd

    return choices_cmd.cmd_find(args, home)


def cmd_trust(args: argparse.Namespace, home: Home) -> int:
    """``evidence``, ``verify-evidence``, ``claim``, ``resend``, ``decline`` and
    ``resign`` (`tui.trust_cmd` tells them apart)."""
    from tui import trust_cmd

    return trust_cmd.run(args, home)


COMMANDS: dict[str, Callable[[argparse.Namespace, Home], int]] = {
    "identity": cmd_identity,
    "account": cmd_account,
    "transport": cmd_transport,
    "scenarios": cmd_scenarios,
    "scenario": cmd_scenario,
    "data": cmd_data,
    "calc": cmd_calc,
    "design": cmd_design,
    "new": cmd_new,
    "accept": cmd_accept,
    "games": cmd_games,
    "archive": cmd_archive,
    "show": cmd_show,
    "choices": cmd_choices,
    "find": cmd_find,
    "orders": cmd_orders,
    "chat": cmd_chat,
    "sync": cmd_sync,
    "verify": cmd_verify,
    "evidence": cmd_trust,
    "verify-evidence": cmd_trust,
    "claim": cmd_trust,
    "resend": cmd_trust,
    "decline": cmd_trust,
    "resign": cmd_trust,
    "log": cmd_log,
    "pace": cmd_pace,
    "export": cmd_export,
    "import": cmd_import,
    "backup": cmd_backup,
    "restored": cmd_restored,
    "demo": cmd_demo,
}


def run(args: argparse.Namespace) -> int:
    home = home_of(args)
    try:
        return COMMANDS[args.command](args, home)
    except sqlite3.Error as exc:  # (a full disk, a file damaged while the command ran)
        raise StoreError(database_trouble(home.db_path, exc)) from None
    finally:
        for line in home.repairs():  # what reading rebuilt on the way (`Store.repairs`)
            print(f"hexpost: {line}", file=sys.stderr)
        home.close()
