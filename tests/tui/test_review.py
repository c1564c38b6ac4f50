"""The review screen, driven headless at 80x24: step through the packets of a real game.

The game is the tutorial of `tests.tui.test_app`, walked on to the coalition's movement
(3B2) with `plan_walk`; Bob (alliance) reads everything, then Alice moves the Strike Force
flagship KLI-0001 from 1307 to 1306 and ends the batch: packet 24, the one packet Bob has
not read. The checks read the widgets (the map's cells, the side panel, the log's rows).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.style import Style
from textual import events
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import DataTable, Input, Static

from engine.core.errors import HexpostError
from tests.saves.conftest import exchange, now
from tests.tui.pilots import screen_cells, settle_until
from tests.tui.test_app import GAME, SIZE, Tutorial, app_for, settle, tutorial_homes, walk_to
from tui import cli
from tui.app import HexpostApp
from tui.screens.base import StatusLine
from tui.screens.game import GameScreen
from tui.screens.games import GamesScreen
from tui.screens.help import HelpScreen
from tui.screens.review import ReviewScreen
from tui.screens.review_data import PacketMark, ReviewReader, first_unread, next_mark
from tui.screens.session import Session
from tui.widgets.checklist import ChecklistTree
from tui.widgets.eventlog import EventLog
from tui.widgets.hexmap import HexMap
from tui.widgets.textlines import TextLines

MOVE: list[dict[str, Any]] = [
    {"type": "move", "units": ["KLI-0001"], "path": ["1307", "1306"]},
    {"type": "batch"},
]
MOVED = "KLI-0001 D7C moved 1307->1306"
HEAD = 24
"""The move's packet (0 genesis, 1 join, 2 Alice's acceptance of Bob's key, 3 and 4 set-up,
5 to 23 the walk to 3B2: the tutorial's steps for tugs and other empires pass by themselves)."""


@pytest.fixture
def moved(tmp_path: Path) -> Iterator[Tutorial]:
    game = tutorial_homes(tmp_path)
    walk_to(game, "3B2")
    alice, bob, game_id = game.alice, game.bob, game.game_id
    bob.replica.mark_read(game_id)
    alice.replica.submit(game_id, MOVE, now=now())
    exchange(alice, bob)
    assert bob.replica.game(game_id).head_seq == HEAD
    yield game
    alice.close()
    bob.close()


def side(screen: ReviewScreen, widget: str) -> str:
    """The side panel's text, its lines joined (a long change wraps onto a second line)."""
    found = screen.query_one(widget)
    if isinstance(found, TextLines):
        text = "\n".join(found.lines)
    else:
        text = str(screen.query_one(widget, Static).content)
    return " ".join(text.split())


def stack_in(screen: ReviewScreen, h: int) -> str:
    cell = screen.query_one(HexMap).cell(h)
    return cell.content if cell is not None else ""


async def open_review(pilot: Pilot[None]) -> ReviewScreen:
    await settle(pilot)
    await pilot.press("v")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ReviewScreen)
    return screen


async def press(pilot: Pilot[None], *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


async def test_the_review_starts_at_the_unread_move_and_steps_back(moved: Tutorial) -> None:
    app = app_for(moved.bob)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        assert screen.seq == HEAD  # the one packet Bob had not read
        assert side(screen, "#game-status").startswith(f"#{HEAD}/{HEAD} coalition")
        assert MOVED in side(screen, "#changes")
        assert stack_in(screen, 1306)  # the flagship is in 1306 now...
        assert screen.query_one(HexMap).cursor == 1306  # ...and the map looks there
        log = screen.query_one(EventLog)
        assert any("KLI moves D7C KLI-0001 1307->1306" in row[3] for row in log.rows)
        assert {row[0] for row in log.rows} == {HEAD}  # only this packet's events

        await press(pilot, "left")
        assert screen.seq == HEAD - 1
        assert not stack_in(screen, 1306)  # before the move: nobody in 1306
        assert stack_in(screen, 1307)
        assert MOVED not in side(screen, "#changes")
        assert {row[0] for row in screen.query_one(EventLog).rows} == {HEAD - 1}

        await press(pilot, "n")
        assert screen.seq == HEAD
        assert stack_in(screen, 1306)
        await press(pilot, "p", "p")
        assert screen.seq == HEAD - 2
        await press(pilot, "right")
        assert screen.seq == HEAD - 1
        await press(pilot, "escape")
        assert isinstance(app.screen, GamesScreen)


async def test_first_last_goto_and_the_ends_of_the_chain(moved: Tutorial) -> None:
    app = app_for(moved.bob)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        await press(pilot, "right")  # already at the end: stays, and says so
        assert screen.seq == HEAD
        assert "no further" in screen.query_one(StatusLine).text
        await press(pilot, "home")
        assert screen.seq == 0
        assert side(screen, "#game-status").startswith(f"#0/{HEAD} coalition genesis")
        assert screen.changes == []
        assert screen.query_one(StatusLine).text == f"packet 0 of {HEAD}: no changes"
        await press(pilot, "left")
        assert screen.seq == 0
        await press(pilot, "end")
        assert screen.seq == HEAD

        await press(pilot, "g")
        dialog_input = app.screen.query_one(Input)
        dialog_input.value = "99"
        await press(pilot, "enter")
        assert f"from 0 to {HEAD}" in str(app.screen.query_one("#packet-error", Static).content)
        await press(pilot, "5", "enter")  # (what was refused is selected: "5" replaces it)
        assert app.screen is screen
        assert screen.seq == 5
        # Packet 5 collects the Klingon income: the engine's doing, no unit moved.
        assert "KLI treasury" in side(screen, "#changes")
        count = len(screen.changes)
        said = f"packet 5 of {HEAD}: {count} change{'s' if count > 1 else ''}"
        assert count and screen.query_one(StatusLine).text == said
        await press(pilot, "g", "escape")
        assert app.screen is screen and screen.seq == 5


async def test_turn_and_phase_jumps(moved: Tutorial) -> None:
    app = app_for(moved.bob)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        await press(pilot, "left_square_bracket")
        assert screen.seq == 4  # set-up over: the coalition's player turn begins
        assert any(row[2] == "player-turn" for row in screen.query_one(EventLog).rows)
        await press(pilot, "left_square_bracket")
        assert screen.seq == 0  # no earlier turn: the first packet
        await press(pilot, "right_square_bracket")
        assert screen.seq == 4
        await press(pilot, "right_curly_bracket")
        assert screen.seq == 5  # phase 2 begins
        await press(pilot, "right_curly_bracket")
        assert screen.seq == 6  # phase 3 begins
        await press(pilot, "left_curly_bracket")
        assert screen.seq == 5
        await press(pilot, "right_square_bracket")
        assert screen.seq == HEAD  # no later turn: the last packet


async def test_the_checklist_is_the_one_after_that_packet(moved: Tutorial) -> None:
    app = app_for(moved.bob)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        tree = screen.query_one(ChecklistTree)
        log = screen.query_one(EventLog)
        assert log.display and not tree.display
        await press(pilot, "c")
        assert tree.display and not log.display
        assert tree.current_step == "3B2"
        await press(pilot, "g")
        app.screen.query_one(Input).value = "5"
        await press(pilot, "enter")
        assert tree.current_step == "2B11"  # the coalition's part done, the alliance's owed
        await press(pilot, "c")
        assert log.display and not tree.display


async def test_the_review_reads_the_unread_packets(moved: Tutorial) -> None:
    assert moved.bob.replica.game(moved.game_id).unread == 1
    app = app_for(moved.bob)
    async with app.run_test(size=SIZE) as pilot:
        await open_review(pilot)
        await press(pilot, "escape")
        assert str(app.screen.query_one(DataTable).get_row_at(0)[4]) == ""
    # Nothing new now: the next review starts at the last packet.
    app = app_for(moved.bob)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        assert screen.seq == HEAD


def test_where_a_review_starts_and_stops() -> None:
    marks = [
        PacketMark(0, "coalition", "genesis", False, False),
        PacketMark(1, "alliance", "join", False, False),
        PacketMark(2, "coalition", "turn", True, True),
        PacketMark(3, "alliance", "turn", False, True),
        PacketMark(4, "coalition", "turn", False, False),
    ]
    assert first_unread(marks, "alliance", 0) == 4
    assert first_unread(marks, "alliance", 1) == 4
    assert first_unread(marks, "alliance", 2) == 2
    assert first_unread(marks, "alliance", 9) == 0
    assert first_unread([], "alliance", 3) == 0
    chain = tuple(marks)
    assert next_mark(chain, 0, phase=False, forward=True) == 2
    assert next_mark(chain, 2, phase=False, forward=True) == 4
    assert next_mark(chain, 4, phase=False, forward=False) == 2
    assert next_mark(chain, 2, phase=True, forward=True) == 3
    assert next_mark(chain, 2, phase=False, forward=False) == 0


# --- the entry points ---------------------------------------------------------------------------


async def test_review_app_opens_straight_into_the_review(moved: Tutorial) -> None:
    from saves.home import Home

    app = cli.review_app(Home(moved.bob.home.path), GAME)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        assert screen.seq == HEAD
        await press(pilot, "escape")
        assert isinstance(app.screen, GamesScreen)


@pytest.mark.usefixtures("on_terminal")
def test_hexpost_review_opens_the_app_on_the_review(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    opened: list[Any] = []

    def fake_run(self: HexpostApp) -> None:
        opened.append(self.get_default_screen())

    monkeypatch.setattr(HexpostApp, "run", fake_run)
    assert cli.main(["--home", str(tmp_path / "home"), "review", GAME]) == 0
    (games,) = opened
    assert isinstance(games, GamesScreen)
    assert (games._open_game, games._review) == (GAME, True)
    assert cli.main(["--home", str(tmp_path / "home"), "play", GAME]) == 0
    assert opened[-1]._review is False
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert "review" in capsys.readouterr().out


async def test_a_step_to_a_packet_read_ahead_is_shown_in_the_keys_own_handling(
    moved: Tutorial,
) -> None:
    """While the player looks at a packet the review reads the next one their way (and the
    one before it, for the diff; back from the last packet): a step there is shown by the
    key itself, with no read in a worker (which shows it a frame or more later). A jump
    elsewhere still reads."""
    app = app_for(moved.bob)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        reads: list[int] = []
        read = screen.load_packet

        def counted(seq: int) -> object:
            reads.append(seq)
            return read(seq)

        screen.load_packet = counted  # type: ignore[assignment, method-assign]
        assert screen.seq == HEAD  # the last packet: the way ahead is back

        def read_ahead(seq: int) -> Callable[[], bool]:
            return lambda: screen.reader.cached(screen.game_id, [seq - 1, seq]) is not None

        for seq in (HEAD - 1, HEAD - 2):
            await settle_until(pilot, read_ahead(seq), f"packets {seq - 1} and {seq} read")
            await pilot.press("left")
            assert screen.seq == seq and reads == []  # shown by the key: no read
        assert not stack_in(screen, 1306)
        await press(pilot, "home")
        assert screen.seq == 0 and reads == [0]


async def test_the_hidden_checklist_is_built_when_shown(moved: Tutorial) -> None:
    """Each step's checklist is built only once the player opens it: the one shown is the
    packet's they are at, however many steps they took with it closed."""
    app = app_for(moved.bob)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        tree = screen.query_one(ChecklistTree)
        built: list[int] = []
        show_items = tree.show_items

        def counted(items: Any, seats: Any = None) -> None:
            built.append(len(items))
            show_items(items, seats)

        tree.show_items = counted  # type: ignore[method-assign]
        for _ in range(HEAD - 5):
            await press(pilot, "left")
        assert screen.seq == 5 and built == []
        await press(pilot, "c")
        assert tree.current_step == "2B11" and len(built) == 1  # packet 5's (as above)
        await press(pilot, "right")
        assert len(built) == 2  # shown: kept up to date at each step


# --- how it opens -------------------------------------------------------------------------------


async def test_the_review_opens_at_its_packet_in_one_repaint(
    moved: Tutorial, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``v`` reads the chain's index and the first packet's records in one hop to the store
    thread, then pushes the review with them: its first repaint is the packet, cell for cell
    the one it settles on (it was an empty map and "reading the game...", then the status
    line, then the packet, then the scrollbars: four repaints a read apart)."""
    shown: list[tuple[int | None, list[tuple[str, Style | None]]]] = []
    real_refresh = Screen._compositor_refresh

    def noted(screen: Screen[Any]) -> None:
        real_refresh(screen)
        if screen.app.screen is screen and isinstance(screen, ReviewScreen):
            shown.append((screen.seq, screen_cells(screen)))

    monkeypatch.setattr(Screen, "_compositor_refresh", noted)
    hops: list[str] = []
    real_call = Session.call

    async def call(session: Session, fn: Callable[..., Any], *args: Any) -> Any:
        hops.append(getattr(fn, "__name__", ""))
        return await real_call(session, fn, *args)

    monkeypatch.setattr(Session, "call", call)
    app = app_for(moved.bob, game=GAME)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        hops.clear()
        await pilot.press("v")
        await settle(pilot)
        await pilot.pause(0.1)
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.seq == HEAD
        assert MOVED in side(screen, "#changes")
        final = screen_cells(screen)
    assert shown and shown[0] == (HEAD, final)
    assert hops[0] == "_opening"  # the index and the records together...
    assert "_index" not in hops  # ...and never apart
    assert hops.count("_build") <= 2  # (only the packets read ahead, after the paint)


@pytest.fixture
def release(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """The review's opening read held on the store thread until the event is set."""
    event = threading.Event()
    real_opening = ReviewReader._opening

    def held(reader: ReviewReader, game_id: str, start_seq: int | None) -> Any:
        event.wait(10)
        return real_opening(reader, game_id, start_seq)

    monkeypatch.setattr(ReviewReader, "_opening", held)
    return event


async def test_a_slow_opening_says_so_and_a_refused_one_says_why(
    moved: Tutorial, release: threading.Event, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read that outlasts `SLOW_READ` says the review is opening; the game screen's line
    says again what it said once the review is up. A read the home refuses says why and
    leaves the player on the game."""
    app = app_for(moved.bob, game=GAME)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        game = app.screen
        said = game.query_one(StatusLine).text
        await pilot.press("v")
        await settle_until(
            pilot, lambda: "opening the review" in game.query_one(StatusLine).text, "the wait"
        )
        assert app.screen is game
        release.set()
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen)
        assert game.query_one(StatusLine).text == said

        def refused(reader: ReviewReader, game_id: str, start: int | None) -> Any:
            raise HexpostError("the game is gone")

        monkeypatch.setattr(ReviewReader, "_opening", refused)
        await press(pilot, "escape", "v")
        assert app.screen is game
        assert game.query_one(StatusLine).text == "the game is gone"


async def test_the_review_is_not_pushed_over_a_screen_opened_meanwhile(
    moved: Tutorial, release: threading.Event
) -> None:
    """The player pressed ``?`` while the review was being read: the help stays up."""
    app = app_for(moved.bob, game=GAME)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("v")
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        release.set()
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        await press(pilot, "escape")
        assert isinstance(app.screen, GameScreen)


async def burst(pilot: Pilot[None], *keys: str) -> None:
    """``keys`` posted at once, as a burst arrives over a laggy link, then let settle."""
    for key in keys:
        char = "\r" if key == "enter" else key if len(key) == 1 else None
        pilot.app.post_message(events.Key(key, char))
    await settle(pilot)


async def test_steps_typed_in_one_burst_each_count(moved: Tutorial) -> None:
    """``home n n n`` in one burst goes to packet 3: each ``n`` steps on from the packet the
    key before it asked for, not from the one on the screen while the packets are read."""
    app = app_for(moved.bob)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        await burst(pilot, "home", "n", "n", "n")
        assert screen.seq == 3
        await burst(pilot, "p", "p")
        assert screen.seq == 1


async def test_a_step_typed_after_the_go_to_dialog_in_one_burst(moved: Tutorial) -> None:
    """``g 5 Enter n`` in one burst ends on packet 6: the ``n`` is for the review, typed
    after the dialog's Enter, not a character for the dialog's field."""
    app = app_for(moved.bob)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        await burst(pilot, "g", "5", "enter", "n")
        assert app.screen is screen
        assert screen.seq == 6
