"""Starting and joining a game without leaving the app: ``n`` on the games list opens the
new-game form (`tui.screens.new_game`), and Enter on an invitation asks to join it.

Driven headless at 80x24 on real homes (`tests.saves.conftest.Player`, a loopback network).
What the app makes is read back from the homes: the game's scenario, seats and options as
its genesis holds them, the join as the inviter receives it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Checkbox, Input, Select, Static

from engine.fe import RULESET
from mail.sync import sync
from saves.home import Home
from tests.saves.conftest import CHAIN_LENGTH, Player, now
from tests.tui.test_app import SIZE, app_for, settle, status_text, top
from tui.app import HexpostApp
from tui.screens.games import GamesScreen, invitation_lines
from tui.screens.new_game import NewGameForm, NewGameScreen
from tui.screens.session_signing import NO_IDENTITY
from tui.services.start import Invitation
from tui.widgets.confirm import ConfirmDialog
from tui.widgets.passphrase import PassphraseDialog


@asynccontextmanager
async def new_game_form(
    player: Player,
) -> AsyncIterator[tuple[HexpostApp, Pilot[None], NewGameScreen]]:
    """The app on ``player``'s home with the new-game form open (``n``)."""
    app = app_for(player)
    async with app.run_test(size=SIZE) as pilot:
        yield app, pilot, await open_form(pilot)


async def open_form(pilot: Pilot[None]) -> NewGameScreen:
    await settle(pilot)
    await pilot.press("n")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, NewGameScreen)
    return screen


def field(screen: NewGameScreen, option: str) -> object:
    """The form's field of the optional rule ``option``."""
    form = screen.query_one(NewGameForm)
    assert form.scenario is not None
    index = [o.id for o in form.scenario.options].index(option)
    return screen.query_one(f"#option-{index}")


async def test_a_game_is_created_with_the_scenario_seat_and_rules_chosen(
    two_homes: tuple[Player, Player],
) -> None:
    alice, _ = two_homes
    async with new_game_form(alice) as (app, pilot, screen):
        assert app.focused is screen.query_one("#opponent", Input)
        screen.query_one("#scenario", Select).value = "tutorial"
        await settle(pilot)
        screen.query_one("#seat", Select).value = "alliance"
        screen.query_one("#opponent", Input).focus()
        await pilot.press(*"bob@example.org", "enter")  # typed, as a player would
        assert app.focused is screen.query_one("#name", Input)  # Enter: the next field
        assert alice.replica.games() == []
        screen.query_one("#name", Input).value = "border"
        screen.query_one("#hours", Input).value = "48"
        orion = field(screen, "orion")
        assert isinstance(orion, Checkbox) and orion.value is False
        orion.focus()
        await pilot.press("space")
        assert orion.value is True and str(orion.label) == "orion: yes"
        rounding = field(screen, "damage-rounding")
        assert isinstance(rounding, Select)
        rounding.value = "down"
        share = field(screen, "peace-income-permille")
        assert isinstance(share, Input) and share.value == "500"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(top(app), GamesScreen)
        assert status_text(app) == (
            "game border created: s sends the invitation to bob@example.org"
        )
    (game,) = alice.replica.games()
    core = alice.replica.state(game.game_id).core
    assert (core.scenario_id, game.my_seat, core.reply_window_hours) == ("tutorial", "alliance", 48)
    options = dict(core.options)
    assert options["orion"] is True and options["damage-rounding"] == "down"
    assert options["peace-income-permille"] == 500  # (left at its default)
    assert [s.address for s in core.seats if s.seat == "coalition"] == ["bob@example.org"]


@pytest.mark.parametrize(
    ("opponent", "share", "words"),
    [
        ("", "500", "the opponent's email address is needed"),
        ("bob@example.org", "", "optional rule 'peace-income-permille' takes a whole number"),
        (
            "bob",
            "500",
            "not created: the opponent's address 'bob' is not an email address: give the "
            "address alone, such as bob@example.org",
        ),
        (
            "bob@example.org",
            "5000",
            "optional rule 'peace-income-permille' takes a whole number from 0 to 1000, not 5000",
        ),
    ],
)
async def test_a_form_the_rules_refuse_stays_open_says_why_and_makes_nothing(
    two_homes: tuple[Player, Player], opponent: str, share: str, words: str
) -> None:
    alice, _ = two_homes
    async with new_game_form(alice) as (app, pilot, screen):
        screen.query_one("#opponent", Input).value = opponent
        box = field(screen, "peace-income-permille")
        assert isinstance(box, Input)
        box.value = share
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert top(app) is screen
        assert status_text(app) == words
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(top(app), GamesScreen)
    assert alice.replica.games() == []


async def test_each_rule_shows_its_help_and_the_values_it_takes(
    two_homes: tuple[Player, Player],
) -> None:
    alice, _ = two_homes
    async with new_game_form(alice) as (_, _, screen):
        helps = [str(s.content) for s in screen.query(".help").results(Static)]
        form = screen.query_one(NewGameForm)
        assert form.scenario is not None and len(helps) == len(form.scenario.options)
        assert any("(0 to 1000) [rule" in text for text in helps)
        rounding = field(screen, "damage-rounding")
        assert isinstance(rounding, Select)
        offered = [value for _, value in rounding._options]
        assert offered == ["nearest-half-up", "nearest-half-down", "down", "up"]


async def test_a_number_is_checked_beside_its_field_as_it_is_typed(
    two_homes: tuple[Player, Player],
) -> None:
    alice, _ = two_homes
    async with new_game_form(alice) as (_, pilot, screen):
        box = field(screen, "peace-income-permille")
        assert isinstance(box, Input)
        line = screen.query_one(f"#{box.id}-help", Static)
        helped = str(line.content)
        assert helped.startswith("Share of income on a peace economy") and "(0 to 1000)" in helped
        box.focus()
        await pilot.press("end", "0")  # 5000
        await settle(pilot)
        assert str(line.content) == (
            "optional rule 'peace-income-permille' takes a whole number from 0 to 1000, not 5000"
        )
        assert line.has_class("problem")
        await pilot.press("backspace")
        await settle(pilot)
        assert str(line.content) == helped and not line.has_class("problem")


async def test_enter_on_an_invitation_shows_it_and_joins_it(
    two_homes: tuple[Player, Player],
) -> None:
    alice, bob = two_homes
    game_id = alice.replica.create(
        RULESET, "tutorial", "coalition", bob.address, name="border", now=now(),
        options={"orion": True}, chain_length=CHAIN_LENGTH,
    )  # fmt: skip
    await sync(alice.replica, alice.transport, now)
    await sync(bob.replica, bob.transport, now)
    app = app_for(bob, transport=lambda _home: bob.transport)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog)
        text = str(dialog.query_one("#confirm-lines", Static).content)
        assert "border (tutorial), you play alliance" in text
        assert "invited by Alice <alice@example.org>" in text
        assert "rules changed from the defaults: orion=True" in text
        await pilot.press("n")
        await settle(pilot)
        assert bob.row(game_id).status == "invited"  # no: nothing signed

        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(top(app), GamesScreen)
        assert "sent 1" in status_text(app)  # (the join packet: sent at once)
    assert bob.row(game_id).status == "active"
    await sync(alice.replica, alice.transport, now)
    joined = alice.replica.state(game_id).core.seat_state("alliance")
    assert joined.public_key == bob.public_key


async def test_a_locked_key_asks_for_its_passphrase_then_creates_the_game(tmp_path: Path) -> None:
    home = Home(tmp_path / "locked")
    home.create_identity("Dana", "dana@example.org", b"secret words", scrypt_n=2)
    home.close()
    app = HexpostApp(Home(tmp_path / "locked"))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_form(pilot)
        screen.query_one("#opponent", Input).value = "erin@example.org"
        await pilot.press("ctrl+s")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, PassphraseDialog)
        dialog.query_one(Input).value = "secret words"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(top(app), GamesScreen)
        assert status_text(app).endswith("created: s sends the invitation to erin@example.org")
    home = Home(tmp_path / "locked")
    try:
        assert [g.status for g in home.replica().games()] == ["active"]
    finally:
        home.close()


def test_an_invitation_shows_the_inviters_texts_escaped() -> None:
    """The name, the inviter and the rules' values are the inviter's to choose."""
    offer = Invitation(
        name="[b]war[/b]\x1b[2J",
        scenario="tutorial",
        my_seat="alliance",
        inviter="Eve\x07 <eve@example.org>",
        reply_window_hours=72,
        changed=(("damage-rounding", "up\x1b]0;x\x07"),),
    )
    text = "\n".join(invitation_lines(offer))
    assert "\x1b" not in text and "\x07" not in text
    assert "[b]war[/b]" in text  # shown as typed: the dialog does not read markup


async def test_a_home_without_an_identity_is_told_so_before_the_form(tmp_path: Path) -> None:
    """A game is signed by the home's key: with none yet, ``n`` says where to make one
    rather than open a form that can only be refused at its end."""
    app = HexpostApp(Home(tmp_path / "bare"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(top(app), GamesScreen)
        assert status_text(app) == NO_IDENTITY
