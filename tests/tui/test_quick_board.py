"""The game screen's first paint shows the face's quick board, and the whole board once it
has been read on the store thread (asked for once the quick board is painted; issue 16, item 5):
F&E's quick board is its board without the supply (`engine.fe.face_board`), which takes most
of a board's time to work out.

Before the whole board lands, nothing on the screen says a piece is in supply: the pieces
carry no supply mark and the hex panel says the supply is being read. Once it lands, the
screen is exactly the screen opened with the whole board from the start. Here every piece
on the map of the whole board is out of supply (the face's `board` is wrapped to say so), so
the two boards differ wherever a piece stands: the map's ``!`` and the panel's legend.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any, NamedTuple

import msgspec
import pytest
from textual.screen import Screen

from engine.core.face import Board
from engine.fe.face import FeFace
from tests.tui.test_app import GAME, SIZE, Tutorial, app_for, settle
from tui.screens.game import GameScreen
from tui.screens.game_orders import OrdersSlot
from tui.screens.hexinfo import READING, hex_lines
from tui.screens.session import Session
from tui.services import news, show
from tui.widgets.hexmap import HexMap

real_board = FeFace.board


def cut_off_board(face: FeFace, state: Any) -> Board | None:
    """The whole board with every piece on the map out of supply."""
    board = real_board(face, state)
    if board is None:
        return None
    pieces = tuple(
        msgspec.structs.replace(p, marks=(*p.marks, "supply-none")) if p.hex else p
        for p in board.pieces
    )
    return msgspec.structs.replace(board, pieces=pieces)


def says_supply(board: Board | None) -> bool:
    return board is not None and any(m.startswith("supply-") for p in board.pieces for m in p.marks)


@pytest.fixture
def cut_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(FeFace, "board", cut_off_board)


@pytest.fixture
def paints(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[bool, bool, bool]]]:
    """Every paint of the game screen: (quick board, its hex panel says the supply is being
    read, its map's board says anything of supply)."""
    seen: list[tuple[bool, bool, bool]] = []
    real = Screen._compositor_refresh

    def noted(screen: Screen[Any]) -> None:
        real(screen)
        on_top = screen.app.screen is screen
        if on_top and isinstance(screen, GameScreen) and screen.data:
            hexmap = screen.query_one(HexMap)
            panel = hex_lines(screen.board, hexmap.cursor)
            seen.append((screen.data.board_later, READING in panel, says_supply(hexmap.board)))

    monkeypatch.setattr(Screen, "_compositor_refresh", noted)
    yield seen


class Opened(NamedTuple):
    picture: str
    board: Board | None
    """The board of the game's data."""
    drawn: Board | None
    """The map's."""
    panel: list[str]
    """The hex panel's lines."""


async def opened(tutorial: Tutorial) -> Opened:
    """The game named on the command line, once every worker is done."""
    app = app_for(tutorial.alice, game=GAME)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen) and screen.data is not None
        hexmap = screen.query_one(HexMap)
        return Opened(
            app.export_screenshot(),
            screen.data.show.board,
            hexmap.board,
            hex_lines(screen.board, hexmap.cursor),
        )


@pytest.fixture
def board_after_a_paint(
    paints: list[tuple[bool, bool, bool]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole board's read held on the store thread until the game screen has painted:
    it is asked for once the quick board has been painted, so this only guards against a
    change that would ask for it earlier (on a quick enough machine it could land before
    that paint: one paint, the whole board)."""
    real_board = Session._board

    def held(session: Session, game_id: str) -> Any:
        deadline = time.monotonic() + 10
        while not paints and time.monotonic() < deadline:
            time.sleep(0.005)
        return real_board(session, game_id)

    monkeypatch.setattr(Session, "_board", held)


@pytest.mark.usefixtures("cut_off", "board_after_a_paint")
async def test_the_first_paint_has_the_quick_board_then_the_whole_one(
    tutorial: Tutorial, paints: list[tuple[bool, bool, bool]], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The news of the first opening (what arrived since the player last looked, on the
    # status line) would be gone at the second.
    monkeypatch.setattr(news, "news_lines", lambda summary: [])
    landed = await opened(tutorial)
    assert paints[0] == (True, True, False)  # the quick board, said to be one
    assert paints[-1] == (False, False, True)  # the whole board, nothing said of reading
    assert says_supply(landed.board) and landed.drawn == landed.board
    assert READING not in landed.panel
    # The screen opened with the whole board from the start (a face without a quick board).
    monkeypatch.setattr(show, "quick_board_of", lambda face: None)
    paints.clear()
    direct = await opened(tutorial)
    assert paints[0] == (False, False, True)
    assert landed == direct


@pytest.mark.usefixtures("cut_off")
async def test_a_reload_reads_the_whole_board(
    tutorial: Tutorial, paints: list[tuple[bool, bool, bool]]
) -> None:
    """A reload (a sync, orders sent, ``r``) shows the whole board at once: the marks the
    player saw do not go away and come back."""
    app = app_for(tutorial.alice, game=GAME)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        paints.clear()
        await pilot.press("r")
        await settle(pilot)
    assert paints and all(seen == (False, False, True) for seen in paints)


async def test_a_whole_board_for_another_packet_is_left(tutorial: Tutorial) -> None:
    """A whole board read for another packet than the screen's (the game moved on between
    the two reads) is not shown over it: the reload of that move brings its own."""
    app = app_for(tutorial.alice, game=GAME)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen) and screen.data is not None
        before = screen.data
        screen.data = msgspec.structs.replace(before, board_later=True)
        screen.post_message(GameScreen.BoardCompleted(before.show.seq + 1, None))
        await settle(pilot)
        assert screen.data.board_later and screen.data.show.board is before.show.board


async def test_the_whole_board_is_asked_for_once_the_first_paint_is_done(
    tutorial: Tutorial, paints: list[tuple[bool, bool, bool]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store thread reads the whole board after the first paint, so that paint does not
    share the CPU with it, and before the hidden panels are built then, so it does not wait
    for them."""
    asked: list[tuple[int, bool]] = []
    real = GameScreen.complete_board

    def noted(screen: GameScreen) -> Any:
        # The game screen's paints so far, and whether its orders panel was built yet.
        asked.append((len(paints), screen.orders.panel is not None))
        return real(screen)

    built: list[bool] = []  # whether the whole board had landed when a panel was built
    real_build = OrdersSlot.build

    def noted_build(slot: OrdersSlot) -> Any:
        screen = slot._screen
        assert isinstance(screen, GameScreen) and screen.data is not None
        built.append(not screen.data.board_later)
        return real_build(slot)

    monkeypatch.setattr(GameScreen, "complete_board", noted)
    monkeypatch.setattr(OrdersSlot, "build", noted_build)
    landed = await opened(tutorial)
    [(paints_before, panel_built)] = asked
    assert paints_before >= 1 and not panel_built
    assert built and all(built)  # the hidden panels: built, once the whole board was shown
    assert landed.drawn == landed.board and READING not in landed.panel  # and it landed
