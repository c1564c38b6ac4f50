"""Issue 11.6, the client's half: other people's text is shown, never obeyed.

Mallory invites Bob to the tutorial with a player name and a game name full of Rich markup,
then writes a chat line and a note with more of it: real signed packets, which the engine takes
(markup is printable text). Bob's `hexpost games`, `show` and `log` and his app must show every
one of them as typed: a games-list cell would otherwise be parsed as markup (``[/link]`` does
not even render, ``[b]`` turns bold and vanishes).

Control characters (escape sequences, C1, bidi overrides, separators, newlines) are refused by
the engine on receipt, so they are put where a client must still cope with them: straight into
a copy of Bob's store (as an older version or an imported archive could have left them), into
a crafted sync report, and into the records the app's formatters take. Each check is on the
layer it names, so removing that layer's escaping fails the test even though the command
line's last-resort stream filter (`tui.safe_text.safe_output`) would still catch the ESC byte.
"""

from __future__ import annotations

import contextlib
import io
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import pytest
from textual.app import App, ComposeResult
from textual.widgets import DataTable, Static

from engine.core.owed import pending
from engine.fe import RULESET
from mail.loopback import LoopbackNetwork
from mail.sync import SendFailure, SyncReport
from saves import ledger
from saves.home import Home
from saves.outcome import Outcome
from tests.engine.fe.steps.tutorial_states import TUTORIAL_SETUP
from tests.saves import conftest as saves_conftest
from tests.saves.conftest import CHAIN_LENGTH, Player, exchange, now
from tests.tui.pilots import workers_done
from tests.tui.records import a_show_record, a_summary
from tests.tui.test_eventlog_widget import LogApp, texts
from tui import cli, commands, sync_cmd
from tui.app import HexpostApp
from tui.screens.base import StatusLine
from tui.screens.game import GameScreen
from tui.screens.games import GamesScreen, game_cells
from tui.screens.hexinfo import status_lines
from tui.screens.session import describe
from tui.services.show import UnsentRecord
from tui.widgets.eventlog import EventLog

MALLORY = "[bold red]Mallory[/] [link=http://evil.example]admin[/link]"
GAME_NAME = "[/link][b]war"
CHAT = "[bold]hi[/bold] [link=http://evil]x[/link]"
NOTE = "[/note] [red]note[/red]"

HOSTILE = "\x1b[2J\x1b]0;pwned\x07\u202e\u2066\u2028\x9b"
SHOWN = "\\x1b[2J\\x1b]0;pwned\\x07\\u202e\\u2066\\u2028\\x9b"
RAW = ("\x1b", "\x07", "\u202e", "\u2066", "\u2028", "\x9b")


@dataclass
class Hostile:
    mallory: Player
    bob: Player
    game_id: bytes

    @property
    def game(self) -> str:
        return self.game_id.hex()[:10]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hostile]:
    """Mallory's invitation, joined and set up by Bob, then her chat line and note (packets
    4 and 5), all delivered to Bob's home."""
    tmp = tmp_path_factory.mktemp("hostile")
    network = LoopbackNetwork()
    mallory = Player(tmp / "mallory", MALLORY, "mallory@example.org", network)
    bob = Player(tmp / "bob", "Bob", "bob@example.org", network)
    game_id = mallory.replica.create(
        RULESET, "tutorial", "coalition", bob.address, name=GAME_NAME, now=now(),
        chain_length=CHAIN_LENGTH,
    )  # fmt: skip
    mallory.sync()
    bob.sync()
    bob.replica.accept(game_id, now=now(), chain_length=CHAIN_LENGTH)
    exchange(bob, mallory)
    # Where the inviter must accept the key that joined (issue 11.4), Mallory does so.
    accept_join = getattr(saves_conftest, "accept_join", None)
    if accept_join is not None:
        accept_join(mallory, bob, game_id)
    players = {"coalition": mallory, "alliance": bob}
    while (rules := bob.replica.state(game_id).rules) is not None and rules.setup:
        seat = pending(RULESET, bob.replica.state(game_id))[0].seats[0]
        author = players[seat]
        author.replica.submit(game_id, TUTORIAL_SETUP[seat], now=now())
        exchange(author, mallory if author is bob else bob)
    mallory.replica.chat(game_id, CHAT, now=now())
    mallory.replica.submit(game_id, [{"type": "note", "text": NOTE}], now=now())
    mallory.sync()
    bob.sync()
    yield Hostile(mallory, bob, game_id)
    mallory.close()
    bob.close()


def run_cli(home: Path, *args: str) -> tuple[int, str, str]:
    """`hexpost --home HOME ARGS` in this process (the real entry point and stream filter)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["--home", str(home), *args])
    return code, out.getvalue(), err.getvalue()


def run_command(home: Path, *args: str) -> tuple[int, str, str]:
    """The command itself (`tui.commands.run`) without the entry point's stream filter, so a
    command that forgot to escape a field shows here."""
    parsed = cli.build_parser().parse_args(["--home", str(home), *args])
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = commands.run(parsed)
    return code, out.getvalue(), err.getvalue()


def assert_clean(text: str) -> None:
    for ch in RAW:
        assert ch not in text, f"{ch!r} reached the terminal in {text!r}"


# --- markup in real packets -------------------------------------------------------------------


def test_the_command_line_prints_markup_names_and_chat_as_sent(hostile: Hostile) -> None:
    home = hostile.bob.home.path
    code, games, _ = run_cli(home, "games")
    assert code == 0
    assert GAME_NAME in games
    code, shown, _ = run_cli(home, "show", hostile.game)
    assert code == 0
    assert f"{MALLORY} <mallory@example.org>" in " ".join(shown.split())  # (wrapped at 80)
    code, log, _ = run_cli(home, "log", hostile.game)
    assert code == 0
    assert f"       {CHAT}\n" in log
    assert f"coalition noted at 1A1: {NOTE}\n" in log


async def test_the_app_shows_markup_names_and_chat_literally(hostile: Hostile) -> None:
    app = HexpostApp(Home(hostile.bob.home.path))
    async with app.run_test(size=(120, 44)) as pilot:
        for _ in range(3):
            await workers_done(app)
            await pilot.pause()
        assert isinstance(app.screen, GamesScreen)
        table = app.screen.query_one(DataTable)
        assert str(table.get_row_at(0)[0]) == GAME_NAME
        drawn = [table.render_line(y).text for y in range(table.size.height)]
        assert any(GAME_NAME in line for line in drawn), drawn
        await pilot.press("enter")
        for _ in range(3):
            await workers_done(app)
            await pilot.pause()
        screen = app.screen
        assert isinstance(screen, GameScreen)
        status = str(screen.query_one("#game-status", Static).content)
        assert status.startswith(f"{GAME_NAME}  #")
        log = screen.query_one(EventLog)
        lines = texts(log)
        assert any(line.endswith(f"* {CHAT}") for line in lines), lines
        assert any(NOTE in line for line in lines), lines


# --- control characters -----------------------------------------------------------------------


@pytest.fixture
def tampered(hostile: Hostile, tmp_path: Path) -> Path:
    """A copy of Bob's home whose store holds control characters in the game's name and in
    Mallory's chat line (what an older client or an imported archive might have stored)."""
    copy = tmp_path / "bob"
    hostile.bob.home.close()  # checkpoint the WAL so the copy holds everything
    shutil.copytree(hostile.bob.home.path, copy)
    hostile.bob.replica = hostile.bob.home.replica(unlock=True)
    home = Home(copy)
    try:
        store = home.replica().store
        with store.transaction() as db:
            db.execute("UPDATE games SET name = ?", (f"{HOSTILE}war\nFAKE",))
            for game_id, seq, idx, data in store.all("SELECT * FROM events"):
                event = ledger.EVENT_DECODER.decode(data)
                if event.kind == "chat":
                    forged = msgspec.structs.replace(event, text=f"hi{HOSTILE}\nFAKE LINE")
                    db.execute(
                        "UPDATE events SET event = ? WHERE game_id = ? AND seq = ? AND idx = ?",
                        (msgspec.msgpack.encode(forged), game_id, seq, idx),
                    )
                    db.execute(  # (as a hexpost before event digests kept it: unchecked)
                        "UPDATE packets SET events_digest = NULL WHERE game_id = ? AND seq = ?",
                        (game_id, seq),
                    )
    finally:
        home.close()
    return copy


def test_games_and_log_escape_control_characters_from_the_store(
    hostile: Hostile, tampered: Path
) -> None:
    code, games, _ = run_command(tampered, "games")
    assert code == 0
    assert_clean(games)
    rows = games.splitlines()
    # The header, the game and its long note under it: the newline did not make a row.
    assert len(rows) == 3 and rows[2].startswith(" " * 10 + "1A1 "), rows
    assert rows[1][10:26].startswith("\\x1b[2J\\x1b]0;p")

    code, log, _ = run_command(tampered, "log", hostile.game)
    assert code == 0
    assert_clean(log)
    assert f"       hi{SHOWN}\\nFAKE LINE\n" in log
    assert not any(line.startswith("FAKE") for line in log.splitlines())

    code, shown, _ = run_command(tampered, "show", hostile.game)
    assert code == 0
    assert_clean(shown)
    assert shown.startswith(f"{SHOWN}war\\nFAKE (")

    code, paced, _ = run_command(tampered, "pace", hostile.game)
    assert code == 0
    assert_clean(paced)
    assert paced.startswith(f"{SHOWN}war\\nFAKE: ")


def test_the_entry_point_escapes_even_a_command_that_prints_raw(
    tampered: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command added later that forgets to escape still cannot reach the terminal raw."""

    def careless(_args: Any, home: Home) -> int:
        row = home.replica().games()[0]
        print(f"game {row.name}")
        print(f"error {row.name}", file=sys.stderr)
        return 0

    monkeypatch.setitem(commands.COMMANDS, "games", careless)
    code, out, err = run_cli(tampered, "games")
    assert code == 0
    assert out == f"game {SHOWN}war\nFAKE\n"  # escaped; the newline is the stream's to keep
    assert err == f"error {SHOWN}war\nFAKE\n"


def test_an_error_quoting_hostile_text_is_one_escaped_line(
    tampered: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.core.errors import HexpostError

    def refusing(_args: Any, _home: Home) -> int:
        raise HexpostError(f"packet refused: {HOSTILE}\nFAKE")

    monkeypatch.setitem(commands.COMMANDS, "games", refusing)
    code, _, err = run_cli(tampered, "games")
    assert code == 1
    assert err == f"hexpost: packet refused: {SHOWN}\\nFAKE\n"


REPORT = SyncReport(
    received=[
        Outcome("invitation", f"{HOSTILE}Mallory <m@example.org> invites you\nreceived: applied"),
        Outcome("rejected", f"bad signature: {HOSTILE}"),
    ],
    sent=[],
    failed=[SendFailure(3, f"550 {HOSTILE}")],
    problems=[f"game {HOSTILE}: no reply"],
)


def test_sync_escapes_what_it_received(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def crafted(*_args: Any) -> SyncReport:
        return REPORT

    monkeypatch.setattr(sync_cmd, "transport_of", lambda _home: object())
    monkeypatch.setattr(sync_cmd, "_sync_once", crafted)
    home = tmp_path / "empty"
    code, out, err = run_command(home, "sync")
    assert code == 1  # a packet was not sent
    assert_clean(out + err)
    assert out.splitlines()[:2] == [
        f"received: invitation: {SHOWN}Mallory <m@example.org> invites you\\nreceived: applied",
        f"received: rejected: bad signature: {SHOWN}",
    ]
    assert err.splitlines() == [
        f"warning: game {SHOWN}: no reply",
        f"not sent: packet 3: 550 {SHOWN}",
    ]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_sync_with_nothing_to_do_says_so_at_a_terminal_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``hexpost sync`` by hand printed nothing when nothing came or went, so a player could
    not tell it from a sync that did nothing at all; a cron job's stays silent."""

    async def nothing(*_args: Any) -> SyncReport:
        return SyncReport(received=[], sent=[], failed=[])

    monkeypatch.setattr(sync_cmd, "transport_of", lambda _home: object())
    monkeypatch.setattr(sync_cmd, "_sync_once", nothing)
    # (a home that can sign: one without a key adds a note that it wrote no replies)
    monkeypatch.setattr(sync_cmd, "sync_replica", lambda _args, home: (home.replica(), True))
    home = tmp_path / "empty"
    assert run_command(home, "sync") == (0, "", "")  # (no terminal: a cron job's)
    parsed = cli.build_parser().parse_args(["--home", str(home), "sync"])
    terminal = _Terminal()
    with contextlib.redirect_stdout(terminal):
        assert commands.run(parsed) == 0
    assert terminal.getvalue() == "nothing new arrived, nothing waits to be sent\n"


def test_the_apps_sync_details_are_escaped() -> None:
    result = describe(REPORT, True)
    assert len(result.details) == 4
    for line in result.details:
        assert_clean(line)
        assert "\n" not in line
    assert result.details[1] == f"received: rejected: bad signature: {SHOWN}"


def test_the_apps_formatters_escape_control_characters() -> None:
    row = a_summary(name=f"{HOSTILE}war", scenario="tut\x1b[2J", frozen=f"desync: {HOSTILE}\nFAKE")
    cells = game_cells(row)
    for cell in cells:
        assert_clean(cell)
        assert "\n" not in cell
    assert cells[0] == "\\x1b[2J\\x1b]0;p\u2026"
    assert cells[5] == f"FROZEN: desync: {SHOWN}\\nFAKE"
    record = a_show_record(
        name=row.name,
        frozen=row.frozen,
        seq=5,
        unsent=(UnsentRecord(4, 2, f"550 {HOSTILE}\nFAKE", None, "waiting"),),
    )
    lines = status_lines(record)
    for line in lines:
        assert_clean(line)
        assert "\n" not in line
    assert lines[-2:] == ["NOT SENT: 1 packet", f"550 {SHOWN}"[:27] + "~"]
    assert f"FROZEN: desync: {SHOWN}\\nFAKE" in lines


async def test_the_event_log_shows_control_characters_escaped() -> None:
    rows = [
        (4, "coalition", "chat", f"hi{HOSTILE}\nFAKE LINE"),
        (5, "coal\x1bition", "note", "\u202eeton"),
    ]
    app = LogApp(rows)
    async with app.run_test(size=(120, 24)) as pilot:
        await pilot.pause()
        lines = texts(app.log_widget)
    for line in lines:
        assert_clean(line)
    assert lines[0] == f"#4    coalition  * hi{SHOWN}\\nFAKE LINE"
    assert lines[1] == "#5    coal\\x1bition * \\u202eeton"


def test_account_test_lines_escape_the_servers_words() -> None:
    from tui.account_cmd import CheckLine

    line = str(CheckLine("IMAP", False, f"NO {HOSTILE}\nFAKE ok"))
    assert line == f"FAILED  IMAP: NO {SHOWN}\\nFAKE ok"


class StatusApp(App[None]):
    def compose(self) -> ComposeResult:
        yield StatusLine()


async def test_the_status_line_keeps_to_one_safe_line() -> None:
    """Screens say a game's name or a refusal there (`HexpostScreen.failed`, a loaded game)."""
    app = StatusApp()
    async with app.run_test() as pilot:
        app.query_one(StatusLine).say(f"{HOSTILE}war: packet 5\nFAKE")
        await pilot.pause()
        assert app.query_one(StatusLine).text == f"{SHOWN}war: packet 5\\nFAKE"
        app.query_one(StatusLine).busy(f"reading {HOSTILE}")
        assert app.query_one(StatusLine).text == f"reading {SHOWN}"


class PanelsApp(App[None]):
    def compose(self) -> ComposeResult:
        from tui.widgets.mail_form import MailForm
        from tui.widgets.orders import OrdersPanel

        yield OrdersPanel()
        yield MailForm()


async def test_the_orders_verdict_and_the_mail_result_escape_what_they_quote() -> None:
    """The engine's refusal may quote a note; an account test quotes the mail server."""
    from tui.widgets.mail_form import MailForm
    from tui.widgets.orders import OrdersPanel

    app = PanelsApp()
    async with app.run_test(size=(120, 60)) as pilot:
        panel = app.query_one(OrdersPanel)
        panel.show_check(False, f"note {HOSTILE}\nrule 2B3")
        form = app.query_one(MailForm)
        form.show_result(["ok      IMAP", f"FAILED  SMTP: 550 {HOSTILE}"], False)
        await pilot.pause()
        assert panel.check_text == f"REFUSED: note {SHOWN}\nrule 2B3"  # its own lines kept
        result = str(form.query_one("#mail-result", Static).content)
        assert result == f"ok      IMAP\nFAILED  SMTP: 550 {SHOWN}"
