"""The hotseat demo (`tui.demo_app`), driven headless at 80x24, and `hexpost demo --text`.

The demo homes are built as `hexpost demo` builds them (`tui.demo.start_game`, real clock,
loopback transport). Every check reads what a screen loaded from its own home (the game
record's seq and pending step) or the homes' stores afterwards, so a switch that does not
deliver Alice's packet to Bob, or shows Alice's home again, fails.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot

from saves.home import Home
from tests.tui.conftest import describe, hexpost
from tests.tui.test_app import SIZE, settle
from tui.demo_app import DemoApp
from tui.rulesets import DemoSeat
from tui.rulesets.fe.demo import GAME_NAME, FeDemo
from tui.screens.game import GameScreen
from tui.screens.hand_over import HandOverScreen
from tui.services.show import ShowRecord
from tui.widgets.confirm import ConfirmDialog
from tui.widgets.orders import OrdersPanel


@pytest.fixture
def seats(tmp_path: Path) -> Iterator[tuple[DemoSeat, DemoSeat]]:
    yield FeDemo().seats(tmp_path)


async def game_screen(pilot: Pilot[None]) -> GameScreen:
    """The game screen the seat shows once its games list has opened the demo game."""
    for _ in range(10):
        await settle(pilot)
        screen = pilot.app.screen
        if isinstance(screen, GameScreen) and screen.data is not None:
            return screen
    raise AssertionError(f"no game screen: {pilot.app.screen!r}")


async def hand_over(pilot: Pilot[None]) -> HandOverScreen:
    """The hand-over screen that is up before a seat is played."""
    for _ in range(10):
        await settle(pilot)
        screen = pilot.app.screen
        if isinstance(screen, HandOverScreen):
            return screen
    raise AssertionError(f"no hand-over: {pilot.app.screen!r}")


async def take_seat(pilot: Pilot[None]) -> tuple[str, GameScreen]:
    """What the hand-over said, and the game screen Enter opened."""
    text = (await hand_over(pilot)).text
    await pilot.press("enter")
    return text, await game_screen(pilot)


def record(screen: GameScreen) -> ShowRecord:
    assert screen.data is not None
    return screen.data.show


def head(path: Path | str) -> int:
    """The game's head seq in the store at ``path`` (read after the app closed it)."""
    home = Home(Path(path))
    try:
        replica = home.replica()
        (game,) = replica.games()
        return replica.game(game.game_id).head_seq
    finally:
        home.close()


async def switch(pilot: Pilot[None]) -> tuple[str, GameScreen]:
    await pilot.press("ctrl+t")
    for _ in range(10):
        await settle(pilot)
        if not pilot.app.switching:  # type: ignore[attr-defined]
            break
    return await take_seat(pilot)


async def test_alice_sends_done_and_bob_sees_it(seats: tuple[DemoSeat, DemoSeat]) -> None:
    alice, bob = seats
    app = DemoApp(seats, GAME_NAME)
    async with app.run_test(size=SIZE) as pilot:
        greeting, screen = await take_seat(pilot)
        assert app.seat == 0 and str(app.session.home.path) == alice.path
        assert "Alice" in app.title and "Klingons" in app.sub_title
        assert "share one keyboard" in greeting and "hand the keyboard to Bob" in greeting
        assert "Press Enter to play Alice's seat." in greeting
        first = record(screen)
        assert first.name == GAME_NAME
        assert first.my_seat == "coalition"
        assert first.pending[0].step == "1A1"
        assert first.pending[0].seats == ("coalition",)
        before = first.seq

        # Alice: o (orders), d (done), S (send), y (confirm).
        await pilot.press("o")
        panel = screen.query_one(OrdersPanel)
        await pilot.press("d")
        await settle(pilot)
        assert panel.check_text.startswith(f"legal: would be packet {before + 1}")
        await pilot.press("S")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("y")
        await settle(pilot)
        assert record(screen).seq == before + 1
        after = record(screen)

        # ctrl+t: Bob's home, which received the packet through the loopback transport.
        said, bobs = await switch(pilot)
        assert app.seat == 1 and str(app.session.home.path) == bob.path
        assert bobs is not screen
        assert "Bob" in app.title and "Kzinti" in app.sub_title
        assert "Alice has handed over. Pass the keyboard to Bob" in said
        # What is new for Bob, as the game screen's news says it: Alice's packets since he
        # last looked (never: from the game's creation to her done), and whom the game waits
        # for now.
        assert "demo-tutorial: 4 packets from Alice (coalition)" in said, said
        assert said.split("\n\n")[1].splitlines()[-1].startswith("  waits for "), said
        assert "hand the keyboard to Alice" in said
        theirs = record(bobs)
        assert theirs.my_seat == "alliance"
        assert theirs.seq == after.seq == before + 1
        assert theirs.pending == after.pending  # whoever owes the next step, both agree

        # And back: Alice's home again, its game read afresh.
        _, again = await switch(pilot)
        assert app.seat == 0 and str(app.session.home.path) == alice.path
        assert again is not bobs
        assert "Alice" in app.title
        assert record(again).my_seat == "coalition"
        assert record(again).seq == theirs.seq
    assert head(alice.path) == head(bob.path) == before + 1


async def test_no_switch_while_one_is_syncing(seats: tuple[DemoSeat, DemoSeat]) -> None:
    app = DemoApp(seats, GAME_NAME)
    async with app.run_test(size=SIZE) as pilot:
        await take_seat(pilot)
        app.switching = True  # as during a switch's two syncs
        assert app.check_action("switch_seat", ()) is None
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert app.seat == 0
        app.switching = False
        await switch(pilot)
        assert app.seat == 1


async def test_the_hand_over_hides_the_seat_left(seats: tuple[DemoSeat, DemoSeat]) -> None:
    """Between two players at one keyboard, nothing of the seat left is on the screen (its
    game screen, its orders panel) until the next player presses Enter; ctrl+t does nothing
    there (nobody sits to hand over), and no toast of the last seat is left over."""
    app = DemoApp(seats, GAME_NAME)
    async with app.run_test(size=SIZE) as pilot:
        await take_seat(pilot)
        await pilot.press("o")
        await pilot.press("ctrl+t")
        screen = await hand_over(pilot)
        assert app.seat == 1
        assert [type(s) for s in app.screen_stack[1:]] == [HandOverScreen]
        assert not app._notifications
        assert app.check_action("switch_seat", ()) is None
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert app.screen is screen and app.seat == 1
        await pilot.press("enter")
        bobs = await game_screen(pilot)
        assert bobs.data is not None and bobs.data.show.my_seat == "alliance"


def test_demo_text_still_runs() -> None:
    done = hexpost("demo", "--text")
    assert done.returncode == 0, describe(done)
    assert "Both players hold the same game." in done.stdout


def test_demo_help_names_the_text_option() -> None:
    done = hexpost("demo", "--help")
    assert done.returncode == 0, describe(done)
    assert "--text" in done.stdout


async def send(pilot: Pilot[None], *keys: str) -> GameScreen:
    """``keys`` pressed one at a time in the orders panel, then S and y: signed and sent."""
    for key in (*keys, "S", "y"):
        await pilot.press(key)
        await settle(pilot)
    return await game_screen(pilot)


async def test_a_policy_drafted_after_a_standing_order_is_signed_ahead_of_it(
    seats: tuple[DemoSeat, DemoSeat],
) -> None:
    """O (a standing order), then P and ctrl+s (a combat policy), as the send dialog suggests
    them: at a step the standing order completes at once, the policy after it was refused
    (the seat's part was over). The panel drafts the policy ahead of it; u still takes back
    the policy, the order last added."""
    app = DemoApp(seats, GAME_NAME)
    async with app.run_test(size=SIZE) as pilot:
        await take_seat(pilot)
        await send(pilot, "o", "O", "enter", "P", "ctrl+s")  # Alice, 1A1: then 1B is hers
        await send(pilot, "o", "d")  # 1B
        await send(pilot, "o", "d")  # 2B7; 2B11 is both seats' step, and Bob's part is owed
        _, bobs = await switch(pilot)
        assert record(bobs).pending[0].step == "2B11"
        panel = bobs.query_one(OrdersPanel)
        for key in ("o", "O", "enter", "P", "ctrl+s"):
            await pilot.press(key)
            await settle(pilot)
        assert [item["type"] for item in panel.items] == ["policy", "standing"]
        assert panel.check_text.startswith("legal: would be packet"), panel.check_text
        await pilot.press("u")
        await settle(pilot)
        assert [item["type"] for item in panel.items] == ["standing"]
