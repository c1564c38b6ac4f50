"""A game whose ruleset this hexpost no longer has (a plug-in uninstalled, or broken by an
upgrade): the home's other games go on, and nothing that arrives for the game is lost.

The toy duel (`tests.engine.toy`) is played with its plug-in installed (`tests.toy_plugin`),
then the plug-in is taken away, as uninstalling it would, while the home holds the duel and
a game of F&E.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import DataTable

from mail.sync import ask_for_damaged
from saves import registry, reminders
from saves.home import Home
from saves.outcome import Outcome
from tests.engine.toy import TOY
from tests.saves.conftest import CHAIN_LENGTH, Player, create_game, now
from tests.toy_plugin import PLUGINS, toy_plugin  # noqa: F401  (a fixture)
from tests.tui.test_app import SIZE, settle, status_text, top
from tests.tui.test_toy_app import duel_homes
from tui.app import HexpostApp
from tui.cli import main
from tui.screens.games import GamesScreen
from tui.screens.pace import PaceScreen
from tui.services import games, pace
from tui.services.sync import owes_automatic_reply

GONE = "ruleset 'toy' is not part of this hexpost"


class Homes:
    def __init__(self, north: Player, south: Player, duel: bytes, wind: bytes) -> None:
        self.north, self.south, self.duel, self.wind = north, south, duel, wind


@pytest.fixture
def homes(tmp_path: Path, toy_plugin: dict[str, str]) -> Iterator[Homes]:  # noqa: F811
    """North and South in a joined duel, South also in a game of F&E it created; then the
    toy plug-in is gone (put back for the fixture's own clean-up)."""
    north, south, duel = duel_homes(tmp_path)
    wind = create_game(south, "carol@example.org", name="wind")
    north.replica.submit(duel, [{"type": "say", "text": "hello"}], now=now())
    north.sync()  # sent: South takes it in with the plug-in gone
    sys.path.remove(str(PLUGINS))
    registry.reload()
    try:
        yield Homes(north, south, duel, wind)
    finally:
        sys.path.append(str(PLUGINS))
        registry.reload()
        north.close()
        south.close()


def test_the_games_list_names_the_missing_ruleset_and_lists_the_others(homes: Homes) -> None:
    listed = {row.name: row for row in games.summaries(homes.south.replica)}
    assert set(listed) == {"duel", "wind"}
    duel = listed["duel"]
    assert duel.turn is None and duel.step is None and duel.waiting_for == ()
    assert any(GONE in note and "waits until hexpost can load it" in note for note in duel.notes)
    assert listed["wind"].step is not None  # F&E as ever
    lines = {line.name: line for line in pace.pace_overview(homes.south.replica)}
    held = homes.south.row(homes.duel).head_seq + 1
    assert (lines["duel"].packets, lines["duel"].parts, lines["wind"].packets) == (held, 0, 1)


def test_a_packet_for_it_is_kept_until_the_ruleset_is_back(homes: Homes) -> None:
    head = homes.south.row(homes.duel).head_seq
    report = homes.south.sync()
    (outcome,) = [o for o in report.received if o.game_id == homes.duel]
    assert outcome.status == "buffered", outcome
    assert GONE in outcome.detail and outcome.attention
    assert report.problems == []  # no automatic reply is owed there that it could write
    assert homes.south.row(homes.duel).head_seq == head  # nothing applied, nothing refused
    again = homes.south.sync()  # a sync with the ruleset still gone keeps it, says nothing new
    assert homes.south.row(homes.duel).head_seq == head
    assert not [o for o in again.received if o.status == "rejected"]

    sys.path.append(str(PLUGINS))
    registry.reload()
    try:
        homes.south.sync()  # the plug-in is back: the kept packet is applied
        assert homes.south.row(homes.duel).head_seq == head + 1
    finally:
        sys.path.remove(str(PLUGINS))
        registry.reload()


def test_a_sync_goes_on_for_the_other_games(homes: Homes) -> None:
    report = homes.south.sync()  # with the duel's ruleset gone, F&E's invitation still goes
    assert report.failed == [] and len(report.sent) == 1
    (wind,) = [row for row in games.summaries(homes.south.replica) if row.name == "wind"]
    assert wind.unsent == 0


class _NoteSender:
    """A transport that sends plain notes (as mail does): `ask_for_damaged` only asks such."""

    def __init__(self) -> None:
        self.sent: list[list[str]] = []

    async def send_text(self, to: list[str], subject: str, body: str, refs: object) -> None:
        self.sent.append(to)


def test_every_look_over_the_games_passes_it_by(homes: Homes) -> None:
    """What a sync or the app reads of every game (damaged copies to ask for, reminders,
    automatic replies owed) reads the games it can, and passes the one it cannot."""
    replica = homes.south.replica
    assert asyncio.run(ask_for_damaged(replica, _NoteSender(), now)) == []  # type: ignore[arg-type]
    assert reminders.due(replica, "2099-01-01T00:00:00Z") == []
    assert owes_automatic_reply(replica) is False
    assert [row.name for row in replica.playable_games()] == ["wind"]
    assert {row.name for row in replica.games()} == {"duel", "wind"}


async def test_the_app_lists_it_and_says_why_it_does_not_open(homes: Homes) -> None:
    homes.south.close()  # the app opens the home itself
    app = HexpostApp(Home(homes.south.home.path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.screen.query_one(DataTable)
        names = [str(table.get_row_at(index)[0]) for index in range(table.row_count)]
        assert sorted(names) == ["duel", "wind"]
        table.move_cursor(row=names.index("duel"))
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(top(app), GamesScreen)
        assert GONE in status_text(app)
        await pilot.press("w")  # its pace still counts its packets
        await settle(pilot)
        assert isinstance(top(app), PaceScreen)


def _north_invites(homes: Homes, name: str) -> None:
    """North, who has the toy plug-in, invites South to a duel named ``name`` and sends it;
    South's hexpost lacks the plug-in."""
    sys.path.append(str(PLUGINS))
    registry.reload()
    try:
        homes.north.replica.create(
            TOY, "duel", "north", homes.south.address, name=name, now=now(),
            chain_length=CHAIN_LENGTH,
        )  # fmt: skip
        homes.north.sync()
    finally:
        sys.path.remove(str(PLUGINS))
        registry.reload()


def test_an_invitation_to_a_game_of_it_waits_for_the_ruleset_without_a_resend(
    homes: Homes,
) -> None:
    """Held, not refused: the player installs the ruleset and syncs, and the invitation is
    there, with no email asking North for it again (a hand-off saved)."""
    _north_invites(homes, "rematch")
    report = homes.south.sync()
    (held,) = [o for o in report.received if o.status == "parked"]
    assert held.attention and GONE in held.detail
    assert held.detail.startswith("invitation from North <north@example.org> to play duel held ")
    assert "install the ruleset or update hexpost, and the next sync takes it in" in held.detail
    south = homes.south.replica
    assert [row.name for row in south.games()] == ["duel", "wind"]  # not a game yet
    (note,) = games.home_notes(south)
    assert note.startswith("invitation from North <north@example.org> to play duel waits")
    assert GONE in note
    rematch = held.game_id

    def about_rematch() -> list[Outcome]:
        return [o for o in homes.south.sync().received if o.game_id == rematch]

    assert about_rematch() == []  # said once; still held, quietly
    assert len(games.home_notes(south)) == 1
    sys.path.append(str(PLUGINS))  # South installs the ruleset and syncs: nothing from North
    registry.reload()
    try:
        taken = about_rematch()
        assert [o.status for o in taken] == ["invitation"], taken
        (row,) = [row for row in south.games() if row.name == "rematch"]
        assert row.status == "invited"
        assert games.home_notes(south) == ()
        assert about_rematch() == []  # taken once
    finally:
        sys.path.remove(str(PLUGINS))
        registry.reload()


def test_a_plugin_that_no_longer_loads_is_named_and_its_packets_held(
    homes: Homes, tmp_path: Path
) -> None:
    """The toy's entry point still installed, but its module gone (an upgrade half done)."""
    broken = tmp_path / "broken"
    info = broken / "hexpost_toy-1.3.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: hexpost-toy\nVersion: 1.3\n")
    (info / "entry_points.txt").write_text("[hexpost.rulesets]\ntoy = no_such_toy_module:PLUGIN\n")
    sys.path.append(str(broken))
    registry.reload()
    try:
        (duel,) = [row for row in games.summaries(homes.south.replica) if row.name == "duel"]
        (note,) = duel.notes
        assert note.startswith("ruleset 'toy' is installed, but its plug-in does not import: ")
        assert "no_such_toy_module" in note
        report = homes.south.sync()
        (held,) = [o for o in report.received if o.game_id == homes.duel]
        assert held.status == "buffered" and "does not import" in held.detail
    finally:
        sys.path.remove(str(broken))
        registry.reload()


def test_decline_drops_an_invitation_held_for_the_ruleset(
    homes: Homes, capsys: pytest.CaptureFixture[str]
) -> None:
    """`hexpost decline NAME` on an invitation held until this hexpost can play its ruleset:
    dropped at once, said plainly that its creator is not told, and gone from the notes."""
    _north_invites(homes, "unwanted")
    homes.south.sync()
    (note,) = games.home_notes(homes.south.replica)
    assert note.endswith("`hexpost decline unwanted` drops it")
    home = ["--home", str(homes.south.home.path)]
    assert main([*home, "decline", "unwanted"]) == 0
    assert "dropped by hand; North is not told" in capsys.readouterr().out
    assert games.home_notes(homes.south.replica) == ()
    assert main([*home, "decline", "unwanted"]) == 1
    assert "no game matches 'unwanted'" in capsys.readouterr().err
