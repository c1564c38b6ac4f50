"""What each `hexpost` command does: glue between the parsed arguments and the layers below.

Every command reports a user's mistake by raising `HexpostError` with a one-line reason; the
entry point in `tui.cli` prints it and exits 1.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import subprocess
import sys
import tomllib
import unicodedata
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from engine.core.errors import HexpostError
from engine.core.packets import fingerprint
from engine.core.ruleset import OptionValue
from engine.rulesets import RULESETS
from mail.folder import FolderTransport
from mail.transport import Transport
from saves import archive, joins
from saves.home import Home, default_home
from saves.replica import GameRow, Replica
from tui import render
from tui.safe_text import safe_text


def now() -> str:
    """The wall clock, as written into packets (informational) and the store."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def home_of(args: argparse.Namespace) -> Home:
    return Home(Path(args.home) if args.home else default_home())


PASSPHRASE_COMMAND_TIMEOUT = 60
"""Seconds a --passphrase-command may take (a password manager may ask to be unlocked)."""


def passphrase(args: argparse.Namespace, *, purpose: str, confirm: bool = False) -> bytes:
    """The identity passphrase from the environment, a command, or a prompt (in that order)."""
    text: str
    if args.passphrase_env:
        value = os.environ.get(args.passphrase_env)
        if value is None:
            raise HexpostError(f"--passphrase-env: variable {args.passphrase_env} is not set")
        text = value
    elif args.passphrase_command:
        try:
            done = subprocess.run(
                args.passphrase_command,
                shell=True,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                check=False,
                timeout=PASSPHRASE_COMMAND_TIMEOUT,
            )
        except subprocess.TimeoutExpired:
            raise HexpostError(
                f"--passphrase-command did not finish within {PASSPHRASE_COMMAND_TIMEOUT} s"
            ) from None
        if done.returncode != 0:
            # Nothing it printed is repeated: a secret command may print the secret, or part
            # of it, on either stream, and an error line travels into logs and bug reports.
            raise HexpostError(
                f"--passphrase-command failed with exit code {done.returncode}; run it by "
                "hand to see why"
            )
        text = done.stdout.splitlines()[0] if done.stdout else ""
    elif sys.stdin.isatty():
        text = getpass.getpass(f"Passphrase ({purpose}): ")
        if confirm and getpass.getpass("Again: ") != text:
            raise HexpostError("the two passphrases differ")
    else:
        raise HexpostError(
            f"a passphrase is needed to {purpose}: use --passphrase-env VAR or "
            "--passphrase-command CMD (no terminal to ask on)"
        )
    return passphrase_bytes(text)


def passphrase_bytes(text: str) -> bytes:
    """A typed passphrase as the key file takes it: NFC-normalised (the same words typed on
    another keyboard or system unlock the key), UTF-8, never empty."""
    if not text:
        raise HexpostError("the passphrase is empty")
    return unicodedata.normalize("NFC", text).encode()


def signing_replica(args: argparse.Namespace, home: Home, purpose: str) -> Replica:
    """A replica able to sign: unlocks the identity key, asking for its passphrase if needed."""
    info = home.identity_info()
    if info is None:
        raise HexpostError("this home has no identity yet: run `hexpost identity create`")
    secret = passphrase(args, purpose=purpose) if info.encrypted else None
    return home.replica(secret, unlock=True)


def sync_replica(args: argparse.Namespace, home: Home) -> tuple[Replica, bool]:
    """For sync: sign automatic replies when the passphrase is at hand, else only receive."""
    info = home.identity_info()
    if info is None:
        return home.replica(), False
    can_ask = args.passphrase_env or args.passphrase_command or sys.stdin.isatty()
    if info.encrypted and not can_ask:
        return home.replica(), False
    return signing_replica(args, home, "send automatic replies"), True


def transport_of(home: Home) -> Transport:
    config = home.config().get("transport", {})
    if config.get("kind") == "folder" and config.get("path"):
        return FolderTransport(Path(str(config["path"])))
    if config.get("kind") == "mail":
        from mail.accounts import load_mail_config
        from mail.mailtransport import MailTransport

        account = load_mail_config(home)
        if account is None:
            raise HexpostError(
                "the transport is mail but config.toml has no [mail] table: "
                "run `hexpost account add`"
            )
        return MailTransport(account)
    raise HexpostError(
        "no transport is set: run `hexpost account add` (mail) or "
        "`hexpost transport folder PATH` (a shared folder)"
    )


def read_orders(source: str) -> list[dict[str, Any]]:
    """Orders from a JSON or TOML file (or ``-`` for standard input)."""
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    except OSError as exc:
        raise HexpostError(f"cannot read orders file {source}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise HexpostError(f"orders file {source} is not UTF-8 text") from None
    where = "standard input" if source == "-" else source
    # The suffix decides; otherwise sniff. A TOML file may well start with "[" (a table
    # header such as [[orders]]), and a JSON orders document is always an object.
    suffix = "" if source == "-" else Path(source).suffix.lower()
    is_json = suffix == ".json" or (suffix != ".toml" and text.lstrip().startswith("{"))
    document: Any
    if is_json:
        try:
            document = json.loads(text)
        except json.JSONDecodeError as exc:
            raise HexpostError(f"{where}: not valid JSON at line {exc.lineno}: {exc.msg}") from None
    else:
        try:
            document = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise HexpostError(f"{where}: not valid TOML: {exc}") from None
    orders = document.get("orders") if isinstance(document, dict) else None
    if not isinstance(orders, list) or not all(isinstance(item, dict) for item in orders):
        raise HexpostError(f'{where}: expected {{"orders": [{{"type": ...}}, ...]}}')
    return orders


def parse_options(items: list[str]) -> dict[str, OptionValue]:
    options: dict[str, OptionValue] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise HexpostError(f"--option {item!r}: expected ID=VALUE")
        value: OptionValue
        if raw.lower() in ("true", "yes", "on"):
            value = True
        elif raw.lower() in ("false", "no", "off"):
            value = False
        elif raw.lstrip("-").isdigit():
            value = int(raw)
        else:
            value = raw
        options[key] = value
    return options


# --- the commands ------------------------------------------------------------------------


def create_identity(home: Home, name: str, address: str, secret: bytes | None) -> dict[str, Any]:
    """Make this home's identity (``secret=None``: stored unencrypted) and return its record.

    The one way to make an identity, for ``hexpost identity create`` and the app's form alike.
    """
    if home.identity_info() is not None:
        raise HexpostError(f"this home already has an identity ({home.key_path})")
    home.create_identity(name.strip(), address.strip(), secret)
    record = identity_record(home)
    assert record is not None
    return record


def identity_record(home: Home) -> dict[str, Any] | None:
    """What ``hexpost identity show --json`` prints; None when the home has no identity."""
    info = home.identity_info()
    if info is None:
        return None
    return {
        "name": info.name,
        "address": info.address,
        "fingerprint": fingerprint(info.public_key),
        "public_key": info.public_key.hex(),
        "encrypted": info.encrypted,
        "key_file": str(home.key_path),
        "seeds_and_secrets": (
            "sealed with the identity key, which its passphrase protects"
            if info.encrypted
            else "only as safe as the unencrypted key file: whoever can read it can open them"
        ),
    }


def cmd_identity(args: argparse.Namespace, home: Home) -> int:
    if args.identity_command == "create":
        if home.identity_info() is not None:  # before asking for a passphrase twice
            raise HexpostError(f"this home already has an identity ({home.key_path})")
        secret = None
        if not args.no_passphrase:
            secret = passphrase(args, purpose="protect the new key", confirm=True)
        record = create_identity(home, args.name, args.address, secret)
        print(f"identity created for {record['name']} <{record['address']}>")
        print(f"fingerprint: {record['fingerprint']}")
        if secret is None:
            print("warning: the key is stored unencrypted (--no-passphrase)")
        return 0
    shown = identity_record(home)
    if shown is None:
        raise HexpostError("this home has no identity yet: run `hexpost identity create`")
    render.emit(shown, args.json, render.identity_text)
    return 0


def use_folder(home: Home, path_text: str) -> Path:
    """Send and receive packets through the folder ``path_text`` (made if missing); returns
    its absolute path. The one way to set it, for ``hexpost transport folder`` and the app."""
    if not path_text.strip():
        raise HexpostError("give the path of the shared folder")
    path = Path(path_text.strip()).expanduser().absolute()
    if path.exists() and not path.is_dir():
        raise HexpostError(f"cannot use {path}: it is a file, not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise HexpostError(f"cannot use the folder {path}: {exc.strerror}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise HexpostError(f"cannot use the folder {path}: it is not writable for you")
    config = home.config()
    config["transport"] = {"kind": "folder", "path": str(path)}
    home.save_config(config)
    return path


def transport_text(home: Home) -> str:
    """The configured transport in a few words (``folder /path``), or ``none``."""
    current = home.config().get("transport")
    if not current or not current.get("kind"):
        return "none"
    if current["kind"] == "mail":
        from tui.account_cmd import mail_transport_text

        return mail_transport_text(home)
    return f"{current['kind']} {current.get('path', '')}".strip()


def cmd_transport(args: argparse.Namespace, home: Home) -> int:
    if args.transport_command == "mail":
        from tui.account_cmd import cmd_transport_mail

        return cmd_transport_mail(args, home)
    if args.transport_command == "folder":
        path = use_folder(home, args.path)
        print(f"packets will travel through the folder {path}")
        return 0
    print(f"transport: {transport_text(home)}")
    return 0


def cmd_scenarios(args: argparse.Namespace, _home: Home) -> int:
    rows = [
        {
            "id": info.id,
            "ruleset": ruleset.id,
            "title": info.title,
            "start": info.start,
            "seats": [spec.seat for spec in info.seats],
            "options": {option.id: option.default for option in info.options},
        }
        for ruleset in RULESETS.values()
        for info in ruleset.scenarios()
    ]
    render.emit(rows, args.json, render.scenarios_text)
    return 0


def cmd_scenario(args: argparse.Namespace, _home: Home) -> int:
    from engine.fe.holdings import scenario_holdings

    try:
        holdings = scenario_holdings(args.scenario)
    except KeyError:
        known = ", ".join(s.id for r in RULESETS.values() for s in r.scenarios())
        raise HexpostError(f"no scenario {args.scenario!r} (known: {known})") from None
    record = {"scenario": args.scenario, "empires": [msgspec.to_builtins(h) for h in holdings]}
    render.emit(record, args.json, render.holdings_text)
    return 0


def cmd_data(args: argparse.Namespace, _home: Home) -> int:
    from engine.fe.datacheck import check_data

    problems = [msgspec.to_builtins(p) for p in check_data()]
    if args.json:
        print(json.dumps({"problems": problems}, indent=2))
    elif problems:
        for problem in problems:
            print(f"{problem['file']}: {problem['entry']}: {problem['message']}")
    else:
        print("the shipped data is consistent: no broken references")
    return 1 if problems else 0


def cmd_new(args: argparse.Namespace, home: Home) -> int:
    scenario_id = args.scenario
    ruleset = next(
        (r for r in RULESETS.values() if any(s.id == scenario_id for s in r.scenarios())), None
    )
    if ruleset is None:
        known = ", ".join(s.id for r in RULESETS.values() for s in r.scenarios())
        raise HexpostError(f"no scenario {scenario_id!r} (known: {known})")
    replica = signing_replica(args, home, "sign the new game")
    game_id = replica.create(
        ruleset,
        scenario_id,
        args.seat,
        args.opponent,
        opponent_seat=args.opponent_seat,
        name=args.name or "",
        options=parse_options(args.option),
        reply_window_hours=args.reply_window,
        now=now(),
    )
    print(game_id.hex())
    chosen = dict(replica.state(game_id).core.options)
    shown = ", ".join(f"{key}={value}" for key, value in sorted(chosen.items()))
    print(f"rule options: {shown} (change with --option id=value)", file=sys.stderr)
    return 0


def cmd_accept(args: argparse.Namespace, home: Home) -> int:
    """Join a game this home was invited to; or, as its creator, accept the key that joined
    (`saves.joins`: the creator's next packet carries the acceptance)."""
    row = home.replica().find(args.game)
    name = safe_text(row.name)
    if row.status == "invited":
        replica = signing_replica(args, home, "sign the join packet")
        replica.accept(row.game_id, now=now())
        print(f"joined {name} as {row.my_seat}; run `hexpost sync` to send the join packet")
        return 0
    replica = signing_replica(args, home, "accept the joined key")
    done = joins.accept(replica, row.game_id, now=now(), expected=args.fingerprint or "")
    print(safe_text(done.text))
    return 0


def cmd_games(args: argparse.Namespace, home: Home) -> int:
    replica = home.replica()
    rows = [render.game_summary(replica, row) for row in replica.games()]
    render.emit(rows, args.json, render.games_text)
    return 0


def cmd_show(args: argparse.Namespace, home: Home) -> int:
    replica = home.replica()
    row = replica.find(args.game)
    if args.at is not None and not 0 <= args.at <= row.head_seq:
        raise HexpostError(f"--at {args.at}: game {row.name} has packets 0 to {row.head_seq}")
    if args.map or args.region or args.detailed:
        if row.ruleset != "fe":
            raise HexpostError(f"game {row.name} has no strategic map")
        print("\n".join(_map_lines(args, replica, row)))
        return 0
    record = render.show_record(replica, row, at=args.at, checklist=args.checklist)
    render.emit(record, args.json, render.show_text)
    if args.at is None:
        replica.mark_read(row.game_id)
    return 0


def _map_lines(args: argparse.Namespace, replica: Replica, row: GameRow) -> list[str]:
    """The map with the game's stacks (at ``--at``, or the head) and their legend."""
    from tui.mapstacks import battle_hexes, captured_owners, stacks_from_views
    from tui.maptext import render_galaxy

    state = replica.state(row.game_id, args.at)
    view = render.game_views(replica.ruleset(row.game_id), state.rules)
    stacks, bases = stacks_from_views(view)
    try:
        return render_galaxy(
            args.region,
            detail="detailed" if args.detailed else "compact",
            stacks=stacks if view else None,
            bases=bases if view else None,
            battles=battle_hexes(view) if view else (),
            captured=captured_owners(view) if view else None,
        )
    except ValueError as exc:
        raise HexpostError(f"--region: {exc}") from None


def cmd_orders(args: argparse.Namespace, home: Home) -> int:
    items = read_orders(args.file)
    if args.dry_run:
        replica = home.replica()
        row = replica.find(args.game)
        identity = home.identity()
        replica.identity = identity
        result = replica.submit(row.game_id, items, now=now(), dry_run=True)
        print(
            f"orders are legal: packet {result.seq} would give state {result.state_hash.hex()[:16]}"
        )
    else:
        replica = signing_replica(args, home, "sign the orders")
        row = replica.find(args.game)
        result = replica.submit(row.game_id, items, now=now())
        print(f"packet {result.seq} signed and queued; run `hexpost sync` to send it")
    for event in result.events:
        print(f"  {safe_text(event.text)}")
    return 0


def cmd_chat(args: argparse.Namespace, home: Home) -> int:
    replica = signing_replica(args, home, "sign the chat message")
    row = replica.find(args.game)
    result = replica.chat(row.game_id, " ".join(args.text), now=now())
    print(f"packet {result.seq} (chat) signed and queued; run `hexpost sync` to send it")
    return 0


def cmd_sync(args: argparse.Namespace, home: Home) -> int:
    """``sync`` and ``sync --watch`` (`tui.sync_cmd`)."""
    from tui.sync_cmd import cmd_sync as run_sync

    return run_sync(args, home)


def cmd_verify(args: argparse.Namespace, home: Home) -> int:
    replica = home.replica()
    row = replica.find(args.game)
    digest = replica.verify(row.game_id)
    count = len(replica.packets(row.game_id))
    name = safe_text(row.name)
    if row.frozen:  # the chain holds, but the proof that froze the game lies outside it
        from tui.trust_cmd import game_arg

        print(f"the {count} stored packets of {name} replay: signatures, links, state hashes")
        print(f"state hash {digest.hex()}")
        raise HexpostError(
            f"game {name} is FROZEN ({row.frozen}): see `hexpost evidence {game_arg(row)}`"
        )
    print(f"verified {count} packets of {name}: every signature, link and state hash holds")
    print(f"state hash {digest.hex()}")
    return 0


def cmd_log(args: argparse.Namespace, home: Home) -> int:
    replica = home.replica()
    row = replica.find(args.game)
    render.emit(render.log_records(replica, row), args.json, render.log_text)
    replica.mark_read(row.game_id)
    return 0


def cmd_export(args: argparse.Namespace, home: Home) -> int:
    replica = home.replica()
    row = replica.find(args.game)
    data = archive.export_game(replica, row.game_id, public=args.public)
    try:
        # A full export holds the entropy seed and unrevealed secrets: never readable by others,
        # not even between creating the file and restricting it.
        mode = 0o644 if args.public else 0o600
        fd = os.open(args.output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        with os.fdopen(fd, "wb") as handle:
            if not args.public:
                os.fchmod(handle.fileno(), 0o600)
            handle.write(data)
    except OSError as exc:
        raise HexpostError(f"cannot write {args.output}: {exc.strerror}") from None
    name = safe_text(row.name)
    print(f"wrote {name} ({len(replica.packets(row.game_id))} packets) to {args.output}")
    return 0


def cmd_import(args: argparse.Namespace, home: Home) -> int:
    try:
        data = Path(args.file).read_bytes()
    except OSError as exc:
        raise HexpostError(f"cannot read {args.file}: {exc.strerror}") from None
    replica = home.replica()
    row = archive.import_game(replica, data, now=now())
    print(f"imported {safe_text(row.name)} ({row.game_id.hex()[:12]}) at packet {row.head_seq}")
    return 0


def cmd_demo(args: argparse.Namespace, _home: Home) -> int:
    from tui.demo import run_demo

    return run_demo(keep=Path(args.keep) if args.keep else None)


def cmd_trust(args: argparse.Namespace, home: Home) -> int:
    """``evidence``, ``verify-evidence`` and ``claim`` (`tui.trust_cmd`)."""
    from tui.trust_cmd import run

    return run(args, home)


def cmd_account(args: argparse.Namespace, home: Home) -> int:
    from tui.account_cmd import cmd_account as run_account

    return run_account(args, home)


COMMANDS = {
    "identity": cmd_identity,
    "account": cmd_account,
    "transport": cmd_transport,
    "scenarios": cmd_scenarios,
    "scenario": cmd_scenario,
    "data": cmd_data,
    "new": cmd_new,
    "accept": cmd_accept,
    "games": cmd_games,
    "show": cmd_show,
    "orders": cmd_orders,
    "chat": cmd_chat,
    "sync": cmd_sync,
    "verify": cmd_verify,
    "evidence": cmd_trust,
    "verify-evidence": cmd_trust,
    "claim": cmd_trust,
    "resend": cmd_trust,
    "decline": cmd_trust,
    "log": cmd_log,
    "export": cmd_export,
    "import": cmd_import,
    "demo": cmd_demo,
}


def run(args: argparse.Namespace) -> int:
    home = home_of(args)
    try:
        return COMMANDS[args.command](args, home)
    finally:
        home.close()
