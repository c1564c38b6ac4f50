"""A wandering random campaign read through the client's text: the log, ``show`` and the review.

The scripted games show the client a few kinds of events; a wandering random campaign
(`tests.engine.fe_random_campaign`, ``wander``) adds the rest a player meets: capture
attempts and their dice, pursuits, withdrawals before combat, approach battles, repairs,
conversions, supply missions. Imported into a home as the alliance's game, its whole log
must print, ``show`` (text and JSON) must print the game after each packet that made one
of those events, and the review must step over those packets, each showing its events.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from saves.archive import FORMAT, VERSION, Archive, import_game
from saves.home import Home
from tests.engine.fe_random_campaign import play_random_campaign
from tests.saves.conftest import now
from tests.tui.test_app import SIZE, settle
from tests.tui.test_battle_report_views import rendered
from tests.tui.test_hostile_text import run_cli
from tui.cli import review_app
from tui.screens.review import ReviewScreen
from tui.widgets.eventlog import EventLog

SEED, TURNS = 17, 3
"""The wandering game of `tests/engine/fe/test_random_campaign.py` that pursues and repairs."""
RARE = ("capture", "pursuit", "withdrawal", "approach", "repair", "convert", "mission")
"""The event kinds the scripted games never show the client."""
GAME = "wander"


class Imported(msgspec.Struct, frozen=True):
    home: Path
    packets: int
    rare: dict[str, list[int]]
    """Per kind of `RARE`, the seqs of the packets that made such an event."""
    texts: dict[int, list[str]]
    """Those packets' event texts, by seq."""


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Imported:
    table = play_random_campaign(SEED, TURNS, wander=True)
    home = tmp_path_factory.mktemp("random-views") / "home"
    holder = Home(home)
    try:
        data = [packet.data for packet in table.packets]
        archive = Archive(FORMAT, VERSION, GAME, "alliance", "active", packets=data)
        import_game(holder.replica(), msgspec.msgpack.encode(archive), now=now())
    finally:
        holder.close()
    rare: dict[str, list[int]] = {kind: [] for kind in RARE}
    texts: dict[int, list[str]] = {}
    for seq, result in enumerate(table.results):
        for event in result.events:
            if event.kind in rare:
                rare[event.kind].append(seq)
                texts.setdefault(seq, []).append(event.text)
    missing = [kind for kind, seqs in rare.items() if not seqs]
    assert not missing, f"the game made no {missing} event"
    return Imported(home, len(table.packets), rare, texts)


def test_the_whole_log_prints(imported: Imported) -> None:
    code, out, err = run_cli(imported.home, "log", GAME)
    assert code == 0, err
    for seq in sorted(imported.texts)[:40]:
        for text in imported.texts[seq]:
            assert text.splitlines()[0][:60] in out, (seq, text)


def test_show_prints_the_game_after_each_rare_event(imported: Imported) -> None:
    seqs = sorted({seq for seqs in imported.rare.values() for seq in seqs[:3]})
    for seq in seqs:
        code, out, err = run_cli(imported.home, "show", GAME, "--at", str(seq))
        assert code == 0 and out, (seq, err)
        code, out, err = run_cli(imported.home, "show", GAME, "--at", str(seq), "--json")
        assert code == 0, (seq, err)
        assert json.loads(out)["seq"] == seq


async def test_the_review_steps_over_the_rare_events(imported: Imported) -> None:
    wanted = sorted({seqs[0] for seqs in imported.rare.values()})
    app = review_app(Home(imported.home), GAME)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(20):
            await settle(pilot)
            screen = app.screen
            if isinstance(screen, ReviewScreen) and screen.index is not None:
                break
        assert isinstance(screen, ReviewScreen) and screen.index is not None
        for seq in wanted:
            screen.show_packet(seq)
            await settle(pilot)
            assert screen.seq == seq
            shown = rendered(screen.query_one(EventLog))
            for text in imported.texts[seq]:
                assert " ".join(text.split())[:50] in shown, (seq, text)
