"""The settings screen (``,`` on the games list): make the identity, choose the transport.

Driven headless at 80x24 on bare homes in ``tmp_path``. What the screen makes is read back
from the home itself (the key file, config.toml) and compared with what the command line
makes, since both must go through the same code.
"""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Button, Checkbox, Input, RadioButton, Static

from saves.backup import back_up
from saves.home import Home
from tests.tui.test_app import SIZE, settle, status_text
from tui import cli
from tui.app import HexpostApp
from tui.screens.base import StatusLine
from tui.screens.games import GamesScreen
from tui.screens.settings import SettingsScreen


async def open_settings(pilot: Pilot[None]) -> SettingsScreen:
    await settle(pilot)
    await pilot.press("comma")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, SettingsScreen)
    return screen


def fill(screen: SettingsScreen, **values: str) -> None:
    for field, value in values.items():
        screen.query_one(f"#{field.replace('_', '-')}", Input).value = value


def card(screen: SettingsScreen) -> str:
    return str(screen.query_one("#identity-info", Static).content)


async def test_the_key_shows_in_the_footer_and_escape_goes_back(tmp_path: Path) -> None:
    app = HexpostApp(Home(tmp_path / "bare"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        keys = {b.binding.key for b in app.screen.active_bindings.values() if b.binding.show}
        assert "comma" in keys
        await open_settings(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, GamesScreen)


async def test_an_identity_is_made_with_a_passphrase_typed_twice(tmp_path: Path) -> None:
    home = Home(tmp_path / "new")
    app = HexpostApp(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_settings(pilot)
        assert "No identity yet" in card(screen)
        fill(screen, id_name="Erin", id_address="erin@example.org")
        fill(screen, id_pass="one two three", id_pass2="one two tree")
        await screen.query_one("#id-pass2", Input).action_submit()
        await settle(pilot)
        assert "differ" in status_text(app)
        assert home.identity_info() is None

        fill(screen, id_pass="one two three", id_pass2="one two three")
        await screen.query_one("#id-pass2", Input).action_submit()
        await settle(pilot)
        assert "identity created for Erin <erin@example.org>" in status_text(app)
        info = home.identity_info()
        assert info is not None and info.encrypted
        assert "Fingerprint:" in card(screen)
        assert "encrypted, unlocked for now" in card(screen)
        assert not screen.query_one("#identity-form").display
        # The form and the focus in it went: the next thing to set up, the transport, has it
        # (the keys typed next, a folder's path, once went nowhere, and its "s" synced).
        assert screen.query_one("#folder-path", Input).has_focus, app.focused
        assert not app.session.locked  # the passphrase just typed unlocks this session
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, GamesScreen)
        assert "Erin <erin@example.org>" in str(app.screen.sub_title)


async def test_an_identity_without_passphrase_and_a_bad_address(tmp_path: Path) -> None:
    home = Home(tmp_path / "plain")
    app = HexpostApp(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_settings(pilot)
        fill(screen, id_name="Finn", id_address="not an address")
        screen.query_one("#id-no-pass", Checkbox).value = True
        await settle(pilot)
        assert screen.query_one("#id-pass", Input).disabled
        await screen.query_one("#id-address", Input).action_submit()
        await settle(pilot)
        # The command line's own check, in words that fit a form as well as a command line.
        assert "your address 'not an address' is not an email address" in status_text(app)
        assert "--address" not in status_text(app)
        assert home.identity_info() is None
        # Longer than the 80 columns: the status line takes a second line rather than cut
        # off what to do ("give the address alone, ...").
        fill(screen, id_address="Finn Finnegan <finn@example.org>")
        await screen.query_one("#id-address", Input).action_submit()
        await settle(pilot)
        status = screen.query_one(StatusLine)
        assert status_text(app).endswith("give the address alone, such as bob@example.org")
        assert status.size.height == 2, status.size
        assert status.query_one("#status-text", Static).size.height == 2

        fill(screen, id_address="finn@example.org")
        await screen.query_one("#id-address", Input).action_submit()
        await settle(pilot)
        info = home.identity_info()
        assert info is not None and not info.encrypted
        assert "NOT encrypted" in card(screen)
        # The mail account is most often the identity's address: the form starts from it.
        assert screen.query_one("#mail-address", Input).value == "finn@example.org"


async def test_the_folder_transport_is_checked_and_written_as_the_cli_writes_it(
    tmp_path: Path,
) -> None:
    home = Home(tmp_path / "app-home")
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder")
    shared = tmp_path / "shared" / "packets"
    app = HexpostApp(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_settings(pilot)
        assert not screen.query_one("#kind-mail", RadioButton).value
        assert screen.query_one("#kind-folder", RadioButton).value
        assert "Now: none" in str(screen.query_one("#transport-info", Static).content)

        fill(screen, folder_path=str(a_file))
        await screen.query_one("#folder-path", Input).action_submit()
        await settle(pilot)
        assert "it is a file, not a folder" in status_text(app)
        assert home.config() == {}

        fill(screen, folder_path="   ")
        await screen.query_one("#folder-path", Input).action_submit()
        await settle(pilot)
        assert "give the path" in status_text(app)
        assert home.config() == {}

        fill(screen, folder_path=str(shared))
        await screen.query_one("#folder-path", Input).action_submit()
        await settle(pilot)
        assert f"through the folder {shared}" in status_text(app)
        assert f"Now: folder {shared}" in str(screen.query_one("#transport-info", Static).content)
    assert shared.is_dir()
    cli_home = tmp_path / "cli-home"
    assert cli.main(["--home", str(cli_home), "transport", "folder", str(shared)]) == 0
    assert (cli_home / "config.toml").read_bytes() == home.config_path.read_bytes()


async def test_a_backup_is_made_from_the_settings_as_the_command_line_makes_it(
    tmp_path: Path,
) -> None:
    made = Home(tmp_path / "app-home")
    made.create_identity("Erin", "erin@example.org", None, scrypt_n=2)
    made.close()  # (its store was opened on this thread; the app opens its own)
    home = Home(tmp_path / "app-home")
    taken = tmp_path / "taken"
    (taken / "old").mkdir(parents=True)
    app = HexpostApp(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_settings(pilot)
        screen.query_one("#back-up", Button).press()  # no folder typed yet
        await settle(pilot)
        assert "type the folder to back up into" in status_text(app)

        fill(screen, backup_path=str(taken))
        await screen.query_one("#backup-path", Input).action_submit()
        await settle(pilot)
        assert f"no backup made: {taken} is not empty" in status_text(app)

        copy = tmp_path / "copy"
        fill(screen, backup_path=str(copy))
        screen.query_one("#back-up", Button).press()
        await settle(pilot)
        assert f"backed up the identity key, 0 games (0 packets) to {copy}" in status_text(app)
        screen.query_one("#back-up", Button).press()  # the same folder again
        await settle(pilot)
        assert "when asked to" in status_text(app)
        screen.query_one("#backup-replace", Checkbox).value = True
        screen.query_one("#back-up", Button).press()
        await settle(pilot)
        assert f"backed up the identity key, 0 games (0 packets) to {copy}" in status_text(app)
    assert Home(copy).identity_info() == home.identity_info()
    assert (copy / "identity.key").read_bytes() == home.key_path.read_bytes()


async def test_a_backup_copy_is_confirmed_from_the_settings(tmp_path: Path) -> None:
    """The games list says above its games that the copy signs nothing until confirmed,
    with no game waiting for the player (this copy has none); the settings confirm it."""
    made = Home(tmp_path / "original")
    made.create_identity("Erin", "erin@example.org", None, scrypt_n=2)
    back_up(made, tmp_path / "copy", now="2030-01-02T03:04:05Z")
    made.close()
    app = HexpostApp(Home(tmp_path / "copy"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        games = app.screen
        assert isinstance(games, GamesScreen)
        home_note = games.query_one("#home-note", Static)
        assert home_note.display
        assert str(home_note.content).startswith("This home is a backup copy taken 2030-01-02")
        assert "signs nothing" in str(home_note.content)
        screen = await open_settings(pilot)
        note = screen.query_one("#copy-note", Static)
        assert note.display and "backup copy taken 2030-01-02T03:04:05Z" in str(note.content)
        screen.query_one("#confirm-copy", Button).press()
        await settle(pilot)
        assert "is now the home you play from" in status_text(app)
        assert not screen.query_one("#copy-note").display
        assert not screen.query_one("#confirm-copy").display
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is games and not home_note.display
    app = HexpostApp(Home(tmp_path / "original"))
    async with app.run_test(size=SIZE) as pilot:  # an original shows none of them
        await settle(pilot)
        assert not app.screen.query_one("#home-note").display
        screen = await open_settings(pilot)
        assert not screen.query_one("#copy-note").display


async def test_the_backup_is_kept_current_after_each_sync_when_the_box_says_so(
    tmp_path: Path,
) -> None:
    made = Home(tmp_path / "app-home")
    made.create_identity("Erin", "erin@example.org", None, scrypt_n=2)
    made.close()
    home = Home(tmp_path / "app-home")
    kept = tmp_path / "kept"
    app = HexpostApp(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_settings(pilot)
        assert not screen.query_one("#backup-keep", Checkbox).value
        fill(screen, backup_path=str(kept))
        screen.query_one("#backup-keep", Checkbox).value = True
        screen.query_one("#back-up", Button).press()
        await settle(pilot)
        assert status_text(app).endswith("; again after each sync")
        assert home.config()["backup"] == {"folder": str(kept)}
        await pilot.press("escape")
        await settle(pilot)
        screen = await open_settings(pilot)  # the settings show it
        assert screen.query_one("#backup-keep", Checkbox).value
        assert screen.query_one("#backup-path", Input).value == str(kept)
        screen.query_one("#backup-keep", Checkbox).value = False
        screen.query_one("#backup-replace", Checkbox).value = True
        screen.query_one("#back-up", Button).press()
        await settle(pilot)
        assert status_text(app).endswith("; no backup after each sync any more")
        assert "backup" not in home.config()
