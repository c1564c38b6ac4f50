"""The `hexpost` command line: argument parsing and the exit-code contract.

Exit codes: 0 success; 1 refused or failed, with a one-line reason on stderr that names what
was wrong (never a traceback for bad input); 2 usage error (argparse's own convention).
The commands themselves live in `tui.commands`; this module only parses and dispatches.
`hexpost` alone and `hexpost play [GAME]` open the Textual app (`tui.app`) instead; alone
and not on a terminal (a pipe, a script), it prints the help as it always did.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, NoReturn

from engine.core.errors import HexpostError

if TYPE_CHECKING:
    from saves.home import Home
    from tui.app import HexpostApp

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    """argparse's parser, but a command missing its action (``hexpost identity``) names the
    actions it takes: argparse says only that ACTION is required. Every command's parser is
    of this class too (argparse makes a subparser of its parent's class)."""

    def error(self, message: str) -> NoReturn:
        actions = [a for a in self._actions if isinstance(a, argparse._SubParsersAction)]
        required = "the following arguments are required: "
        if actions and message.startswith(required) and self.prog != "hexpost":
            names = ", ".join(actions[0].choices)
            message += f" (one of: {names}); `{self.prog} -h` says what each does"
        super().error(message)


def build_parser() -> argparse.ArgumentParser:
    """The whole command line: every command with its options and help."""
    parser, sub = _top_parser(_Parser)
    _add_app_commands(sub)
    _add_commands(sub)
    return parser


class _NotTheApp(Exception):
    """`_AppParser` met something it was not built for: the whole parser takes over."""


class _AppParser(argparse.ArgumentParser):
    """A parser that raises `_NotTheApp` where argparse would print an error and exit."""

    def error(self, message: str) -> NoReturn:
        raise _NotTheApp(message)


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    """The parsed command line. Opening the app (`hexpost`, `hexpost play [GAME]`, `hexpost
    review GAME`) and the read-only commands scripts run most (`hexpost games`, `hexpost show
    GAME`) are parsed by a parser that knows only those commands and the global options,
    with neither ``-h`` nor abbreviated global options: building every command's parser took
    some 8 ms of the game screen's first paint, and a twentieth of ``show``'s start
    (issue 16). Whatever that parser cannot take (another command, a help option, an
    abbreviation, a mistake) goes to the whole parser, which parses it, prints its help or
    says what is wrong exactly as before."""
    app, sub = _top_parser(_AppParser, add_help=False, allow_abbrev=False)
    _add_app_commands(sub, add_help=False)
    _add_reading_commands(sub, add_help=False)
    try:
        args = app.parse_args(argv)
    except _NotTheApp:
        pass
    else:
        if args.command in QUICK_COMMANDS:
            return args
    return build_parser().parse_args(argv)


APP_COMMANDS = (None, "play", "review")
"""The commands that open the full-screen app (None: `hexpost` alone)."""
QUICK_COMMANDS = (*APP_COMMANDS, "games", "show")
"""The commands `parse_arguments` parses without building every command's parser."""


def _top_parser(
    kind: type[argparse.ArgumentParser], *, add_help: bool = True, allow_abbrev: bool = True
) -> tuple[argparse.ArgumentParser, argparse._SubParsersAction[argparse.ArgumentParser]]:
    """The program's parser with its global options, and its (still empty) commands."""
    parser = kind(
        prog="hexpost",
        description=(
            "Play Federation & Empire (and later other hex-map wargames) by email: every "
            "move is a signed, hash-chained packet that both players' engines apply."
        ),
        epilog="Run `hexpost` alone (or `hexpost play`) to open the full-screen app; run "
        "`hexpost demo` to watch two local players set up and play, with no account.",
        add_help=add_help,
        allow_abbrev=allow_abbrev,
    )
    parser.add_argument(
        "--home",
        metavar="DIR",
        type=_home_folder,
        help="folder holding config, identity and games (default: $HEXPOST_HOME, else the "
        "platform's user data folder)",
    )
    secret = parser.add_mutually_exclusive_group()
    secret.add_argument(
        "--passphrase-env", metavar="VAR", help="read the identity passphrase from this variable"
    )
    secret.add_argument(
        "--passphrase-command",
        metavar="CMD",
        help="run this shell command and use its first output line as the passphrase",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    return parser, sub


def _home_folder(text: str) -> str:
    """``--home``'s value: an empty one (a script's unset variable) is refused, not read as
    no ``--home`` at all, which would run the command in the default home."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty folder name: give the home's path")
    return text


def _add_app_commands(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], *, add_help: bool = True
) -> None:
    """The commands that open the app: ``play`` and ``review``."""
    play = sub.add_parser(
        "play",
        help="open the full-screen app (the default with no command)",
        description="The games list, the map with your stacks, the checklist and the log, "
        "in the terminal (80x24 is enough). s syncs; the footer shows the other keys and "
        "ctrl+p searches every action. --passphrase-env or --passphrase-command lets a sync "
        "sign automatic replies with an encrypted key. Needs a terminal: without one it "
        "says so and exits 1.",
        add_help=add_help,
    )
    play.add_argument("game", nargs="?", metavar="GAME", help="open this game at once")

    review = sub.add_parser(
        "review",
        help="step through a game's packets in the full-screen app",
        description="The map, checklist and events as they were after each packet, and "
        "what changed: starts at the first packet you have not read. right/n and left/p "
        "step, ] and [ jump a player turn, } and { a phase, home/end, g a packet number; "
        "escape goes back to the games list.",
        add_help=add_help,
    )
    review.add_argument("game", metavar="GAME")


def _add_reading_commands(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], *, add_help: bool = True
) -> None:
    """The read-only commands a script runs most: ``games`` and ``show``."""
    games = sub.add_parser("games", help="list the games in this home", add_help=add_help)
    games.add_argument("--json", action="store_true")
    games.add_argument(
        "--all", action="store_true", help="the archived games that need nothing from you too"
    )

    show = sub.add_parser(
        "show",
        help="show a game's state",
        description="The game's state: turn, step and who owes it, each empire's treasury, "
        "income and units; --json adds empires, units (hex, crippled, fleet, supply) and "
        "hexes; --map draws the map with the game's stacks.",
        add_help=add_help,
    )
    show.add_argument("game", metavar="GAME")
    show.add_argument("--json", action="store_true")
    show.add_argument("--at", type=int, metavar="SEQ", help="as it was after packet SEQ")
    show.add_argument("--checklist", action="store_true", help="include the sequence of play")
    show.add_argument(
        "--map", action="store_true", help="print the map with the stacks as ASCII hexes instead"
    )
    show.add_argument(
        "--region", metavar="XXYY:XXYY", help="with --map: only the hexes between two corners"
    )
    show.add_argument("--detailed", action="store_true", help="with --map: larger hexes with ids")


def _add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Every other command (the ones `tui.commands` runs)."""
    from tui.cli_setup import add_setup_parsers
    from tui.design_cmd import add_design_parser
    from tui.start_args import add_start_parsers
    from tui.trust_args import add_trust_parsers

    add_setup_parsers(sub)

    scenarios = sub.add_parser("scenarios", help="list the scenarios")
    scenarios.add_argument("--json", action="store_true")

    scenario = sub.add_parser("scenario", help="facts about one scenario")
    ssub = scenario.add_subparsers(dest="scenario_command", metavar="ACTION", required=True)
    info = ssub.add_parser("info", help="each empire's provinces, planets and economic points")
    info.add_argument("scenario", metavar="ID")
    info.add_argument("--json", action="store_true")
    info.add_argument(
        "--turn",
        type=int,
        metavar="N",
        help=(
            "what the scenario says about game turn N: each empire's schedule, economy and "
            "reinforcements"
        ),
    )

    rules = ssub.add_parser(
        "rules",
        help="its optional rules: each one's default, the values it takes, its rule and help",
        description="Every optional rule a new game of the scenario may change (hexpost new "
        "--option ID=VALUE, or the app's new-game form), with its default, the values it "
        "takes, the rule it reads and what it means.",
    )
    rules.add_argument("scenario", metavar="ID")
    rules.add_argument("--json", action="store_true")

    data = sub.add_parser("data", help="check the shipped game data")
    dsub = data.add_subparsers(dest="data_command", metavar="ACTION", required=True)
    check = dsub.add_parser("check", help="report every broken reference in the data files")
    check.add_argument("--json", action="store_true")

    calc = sub.add_parser("calc", help="work a rule out without a game (combat damage)")
    csub = calc.add_subparsers(dest="calc_command", metavar="WHAT", required=True)
    combat = csub.add_parser(
        "combat",
        help="damage points and percentage of one combat roll",
        description="One side's damage: its combat potential x the combat table's "
        "percentage for the BIR total (0-10), its die (1-6) and its EW shift (0-2), rounded "
        "to whole points as the damage-rounding option says (default nearest-half-up).",
    )
    combat.add_argument(
        "--potential", required=True, metavar="N", help="combat potential, e.g. 40 or 40.5"
    )
    combat.add_argument("--bir", required=True, type=int, metavar="B", help="the BIR total, 0-10")
    combat.add_argument("--die", required=True, type=int, metavar="D", help="the die roll, 1-6")
    combat.add_argument(
        "--ew", type=int, default=0, metavar="S", help="this side's EW shift (default 0)"
    )
    combat.add_argument(
        "--rounding",
        metavar="MODE",
        help="nearest-half-up (default), nearest-half-down, down or up",
    )
    combat.add_argument("--json", action="store_true")

    add_design_parser(sub)

    add_start_parsers(sub)

    _add_reading_commands(sub)
    archive = sub.add_parser(
        "archive",
        help="leave a game out of the games list while it needs nothing from you",
        description="Files the game away in this home only (nothing is signed or sent): "
        "`hexpost games` and the app leave it out except while it needs you (your move, a "
        "key to accept, unread packets). `games --all` lists it.",
    )
    archive.add_argument("game", metavar="GAME")
    archive.add_argument("--undo", action="store_true", help="bring it back to the list")

    choices = sub.add_parser(
        "choices",
        help="list what your seat may do now: order templates and legal values",
        description="The step your seat owes, each order kind it takes with a one-line "
        "JSON template, and the lists of what would pass now: for set-up each waiting "
        "fleet's set-up hexes, for production each class to build with its cost, sites and "
        "substitutions, for movement each unit that may move with its movement points "
        "left. docs/orders.md describes the --json keys.",
    )
    choices.add_argument("game", metavar="GAME")
    choices.add_argument(
        "--to",
        nargs="+",
        metavar=("ORDER", "PIECE"),
        help="instead: the hexes ORDER may take those pieces to now (F&E: strategic, "
        "retrograde, withdraw; place with a fleet's name; move with --path)",
    )
    choices.add_argument(
        "--path",
        nargs="+",
        metavar="HEX",
        help="with --to move: the path so far, from the units' hex; prints the hexes that "
        "may end it one hex further",
    )
    choices.add_argument("--json", action="store_true")

    find = sub.add_parser(
        "find",
        help="find a unit, class, fleet, hex or planet in a game",
        description="Case-insensitive: a unit id or class matches exactly, a fleet by its "
        "name or part of it, a hex by its four digits, a planet by part of its name. Each "
        "match prints its hex, empire, unit, class, fleet and states; exits 1 when nothing "
        "matches.",
    )
    find.add_argument("game", metavar="GAME")
    find.add_argument(
        "text", nargs="+", metavar="TEXT", help='e.g. KLI-0012, D7, "home fleet", 1307'
    )
    find.add_argument("--json", action="store_true")

    orders = sub.add_parser(
        "orders",
        help="check, sign and queue orders from a file",
        epilog="The orders a game takes are its ruleset's: `hexpost choices GAME` lists those "
        "the step you owe takes, each with its JSON and ready-made lines (a build, a directed "
        "attack with its price); docs/orders.md has an example of each order of F&E.",
    )
    orders.add_argument("game", metavar="GAME")
    orders.add_argument(
        "file",
        metavar="FILE|-",
        help='JSON [...], {"orders": [...]} or one {"type": ...}; TOML [[orders]]',
    )
    orders.add_argument("--dry-run", action="store_true", help="only check the orders")

    chat = sub.add_parser(
        "chat",
        help="send a chat message to the other players, or list a game's messages",
        description="With TEXT: sign and queue a chat message, on your move or not; "
        "`hexpost sync` sends it. It travels beside the game's chain, signed by your seat, "
        "and changes nothing in the game. Without TEXT: list the game's chat messages in the "
        "order of their writers' clocks (`hexpost log` shows them too).",
    )
    chat.add_argument("game", metavar="GAME")
    chat.add_argument("text", nargs="*", metavar="TEXT", help="the message (one line)")
    chat.add_argument("--json", action="store_true", help="list as JSON")

    sync = sub.add_parser(
        "sync",
        help="receive and apply packets, then send the outbox",
        description="Receive and apply what arrived, write the automatic replies (entropy for "
        "a roll, a reveal) when this home owes nothing else, email a player who has let the "
        "reply window pass (one reminder per window, with an ask for the move awaited), then "
        "send every packet waiting in the outbox. With --watch it keeps going: IMAP IDLE "
        "announces new mail (with a shared folder, a look at the folder every 2 seconds), "
        "packets are applied as they arrive, and unsent packets are retried with backoff.",
    )
    sync.add_argument("game", nargs="?", metavar="GAME", help="only report on this game")
    sync.add_argument("--watch", action="store_true", help="keep going until Ctrl-C")
    sync.add_argument(
        "--no-auto-replies",
        action="store_true",
        help="leave rolls and reveals for you to answer (also: [sync] auto_replies = false "
        "in config.toml)",
    )

    verify = sub.add_parser(
        "verify",
        help="replay a game (or every game) from genesis and check everything",
        description="Replay a game's stored packets from its genesis, checking every signature, "
        "link and state hash anew: the check of a home's disk. Without GAME, every game of "
        "this home, one line each, going on past a game that fails (for a weekly cron job: a "
        "damaged disk is found while the other player still holds the packets), and exit 1 "
        "if any did not verify or is frozen.",
    )
    verify.add_argument(
        "game",
        metavar="GAME",
        nargs="?",
        help="name, id or the start of its id (default: every game)",
    )

    evidence_cmd = sub.add_parser(
        "evidence",
        help="show what froze a game and write it to a file anyone can check",
        description="Each piece of evidence that froze the game (two packets one seat signed "
        "for one position, or a packet whose state hash this engine disputes), and a file "
        "holding the signed packets that prove it: `hexpost verify-evidence FILE` checks it "
        "anywhere, without the game.",
    )
    evidence_cmd.add_argument("game", metavar="GAME")
    evidence_cmd.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="where to write the evidence file (default: hexpost-evidence-ID.msgpack here)",
    )
    evidence_cmd.add_argument("--json", action="store_true")

    verify_evidence = sub.add_parser(
        "verify-evidence",
        help="check an evidence file (needs no home and no identity)",
        description="Replays the packets in a file written by `hexpost evidence` with this "
        "program's engine and says what they prove; exits 1, saying what does not hold, "
        "when they prove nothing.",
    )
    verify_evidence.add_argument("file", metavar="FILE")
    verify_evidence.add_argument("--json", action="store_true")

    add_trust_parsers(sub)

    log = sub.add_parser("log", help="list a game's packets and events")
    log.add_argument("game", metavar="GAME")
    log.add_argument("--json", action="store_true")
    log.add_argument("--last", type=int, metavar="N", help="only the last N packets' records")

    pace = sub.add_parser(
        "pace",
        help="where a game's time went: hand-offs per seat, part of play and step (without "
        "GAME: every game's in a line)",
        description="Counts the game's hand-offs (each an email round trip): those that waited "
        "for a player and those a hexpost answered alone, per seat, per part of play (a player "
        "turn) and by the step where a player was waited for, timed by the packets' stamps "
        "(each writer's own clock).",
    )
    pace.add_argument(
        "game", metavar="GAME", nargs="?", help="one game (without it: every game, a line each)"
    )
    pace.add_argument("--json", action="store_true")

    export = sub.add_parser("export", help="write a whole game to one file")
    export.add_argument("game", metavar="GAME")
    export.add_argument("-o", "--output", required=True, metavar="FILE")
    export.add_argument(
        "--public",
        action="store_true",
        help="leave out your entropy seed and unrevealed secrets (safe to share)",
    )

    imp = sub.add_parser("import", help="read a game written by export")
    imp.add_argument("file", metavar="FILE")

    back = sub.add_parser(
        "backup",
        help="copy this whole home (identity, settings, every game) to a new folder",
        description="Copies the identity key, the settings, every game (with its sealed seeds "
        "and secrets and its outbox) and the saved designs into FOLDER, which must be new or "
        "empty (or hold an earlier backup, with --replace), and checks the copy. It may run "
        "while the app or `sync --watch` uses the home. The copy is a home: to restore it, use "
        "it as the home (--home FOLDER). Never play from the copy and the original both.",
    )
    back.add_argument("folder", metavar="FOLDER", nargs="?")
    back.add_argument(
        "--replace",
        action="store_true",
        help="FOLDER may hold an earlier backup of this identity: it is replaced once the new "
        "one is whole (for a backup run after every sync, from cron say)",
    )
    after = back.add_mutually_exclusive_group()
    after.add_argument(
        "--after-each-sync",
        action="store_true",
        help="and from now on, again into FOLDER (replacing it) after every sync, watch round "
        "or app sync that receives or sends a packet",
    )
    after.add_argument(
        "--no-after-each-sync",
        action="store_true",
        help="stop backing up after each sync (give no FOLDER)",
    )

    sub.add_parser(
        "restored",
        help="confirm this home, a backup copy, as the one you play from (it signs again)",
        description="A copy made by `hexpost backup` signs nothing until this is run in it: "
        "it may lack packets its seat signed after the copy was taken. For each game where "
        "you may have signed something since, first ask the other player to run `hexpost "
        "resend GAME --from N --every-seat` (N: the packet after the copy's last one) and "
        "sync; a copy that learns from their packets that it is behind says so by itself.",
    )

    demo = sub.add_parser(
        "demo",
        help="play a short game between two local seats",
        description="On a terminal: the full-screen app on Alice's (Klingons) seat of a "
        "tutorial game already set up against Bob (Kzinti); ctrl+t syncs and switches seats. "
        "With --text, or when not run on a terminal: a scripted game printed step by step.",
    )
    demo.add_argument("--keep", metavar="DIR", help="keep the two demo homes in DIR")
    demo.add_argument(
        "--text", action="store_true", help="print the scripted demo instead of opening the app"
    )


def on_terminal() -> bool:
    """Whether standard input and output are a terminal, which the app needs."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_arguments(argv)
    terminal = on_terminal()
    if args.command is None and not terminal:
        build_parser().print_help()
        return EXIT_OK
    if args.command in APP_COMMANDS and not terminal:
        # Without a terminal the app reads no keys and draws into a pipe: it would wait for
        # ever (a script, a cron job, ssh without -t).
        print(
            f"hexpost: {args.command} opens the full-screen app, which needs a terminal "
            "(standard input and output here are not one); 'hexpost games', 'show' and "
            "'log' print a game as text",
            file=sys.stderr,
        )
        return EXIT_FAILED
    try:
        if args.command in APP_COMMANDS:
            return play(args)
        if args.command == "demo" and not args.text and terminal:
            return demo_app(args)
        from tui import commands
        from tui.safe_text import safe_output

        with safe_output():  # whatever a command prints, no terminal escape gets out
            return commands.run(args)
    except HexpostError as exc:
        from tui.safe_text import safe_text

        print(f"hexpost: {safe_text(exc)}", file=sys.stderr)  # may quote a packet's text
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("hexpost: interrupted", file=sys.stderr)
        return EXIT_FAILED
    except BrokenPipeError:
        return EXIT_OK
    except OSError as exc:
        # A path the user gave that cannot be used (e.g. --home naming a file): one line.
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"hexpost: {where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_FAILED


def play(args: argparse.Namespace) -> int:
    """Run the app on the chosen home. A passphrase source given on the command line is read
    now, before the screen is taken over (the app cannot prompt yet). The garbage collector
    waits until the first screen is painted (`tui.startup`)."""
    from tui.startup import hold_collector, release_collector, thaw

    hold_collector()
    try:
        return _play(args)
    finally:
        release_collector()
        thaw()


def _play(args: argparse.Namespace) -> int:
    """`play` with the collector held: the home, the passphrase, the app until it ends."""
    from pathlib import Path

    from saves.home import Home, default_home
    from tui.app import HexpostApp

    # Not `tui.commands`: it imports the printing of the read-only commands (`tui.render`
    # and the records it prints), which the app's first paint does not need.
    home = Home(Path(args.home) if args.home else default_home())
    secret = None
    if args.passphrase_env or args.passphrase_command:
        from tui.askpass import passphrase

        secret = passphrase(args, purpose="sign automatic replies")
    game = getattr(args, "game", None)
    if args.command == "review":
        app = review_app(home, str(game), passphrase=secret)
    else:
        app = HexpostApp(home, game, passphrase=secret)
    app.run()
    if app.failure is not None:  # it stopped by itself (`HexpostApp.stop`): say why
        raise HexpostError(app.failure)
    return EXIT_OK


def demo_app(args: argparse.Namespace) -> int:
    """The hotseat demo in the app (`tui.demo_app`); only on a terminal, so scripts and the
    tests that run `hexpost demo` through a pipe still get the text demo."""
    from pathlib import Path

    from tui.demo_app import run_demo_app

    return run_demo_app(keep=Path(args.keep) if args.keep else None)


def review_app(home: Home, game: str, *, passphrase: bytes | None = None) -> HexpostApp:
    """The app opened on the review of ``game`` (`tui.screens.review`). The games list stays
    at the bottom of the stack, so escape lands there as it does from a game."""
    from tui.app import HexpostApp
    from tui.screens.games import GamesScreen

    class ReviewApp(HexpostApp):
        def get_default_screen(self) -> GamesScreen:
            return GamesScreen(open_game=game, review=True)

    return ReviewApp(home, game, passphrase=passphrase)


if __name__ == "__main__":
    raise SystemExit(main())
