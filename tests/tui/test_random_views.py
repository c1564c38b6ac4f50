"""A wandering random campaign read through the client's text: the log, ``show`` and the review.

The scripted games show the client a few kinds of events; a wandering random campaign
(`tests.engine.fe_random_campaign`, ``wander``) adds the rest a player meets: capture
attempts and their dice, pursuits, withdrawals before combat, approach battles, repairs,
conversions, supply missions. Imported into a home as the alliance's game, its whole log
must print, ``show`` (text and JSON) must print the game after each packet that made one
of those events, and the review must step over those packets, each showing its events.
Imported up to a retreat or a capture, ``hexpost choices`` must print that step's menus.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from engine.core.face import Choice
from engine.core.owed import pending
from engine.core.ruleset import DecisionKind
from engine.fe import FACE, RULESET
from saves.archive import FORMAT, VERSION, Archive, import_game
from saves.home import Home
from tests.engine.fe_random_campaign import play_random_campaign
from tests.saves.conftest import now
from tests.tui.test_app import SIZE, settle
from tests.tui.test_battle_report_views import rendered
from tests.tui.test_hostile_text import run_cli
from tui.cli import review_app
from tui.screens.review import ReviewScreen
from tui.services import review
from tui.services.show import show
from tui.widgets.eventlog import EventLog

SEED, TURNS = 16, 3
"""The wandering game of `tests/engine/fe/test_random_campaign.py` that pursues and repairs
(a rules change that makes a choice the engine's changes the course of every random game:
seed 17's did before fe 5.8, seed 7's before fe 5.9, seed 26's before fe 5.10)."""
RARE = ("capture", "pursuit", "withdrawal", "approach", "repair", "convert", "mission")
"""The event kinds the scripted games never show the client."""
GAME = "wander"


class Played(msgspec.Struct, frozen=True):
    packets: list[bytes]
    states: list[Any]
    """The game state after each packet."""
    events: list[list[tuple[str, str]]]
    """Each packet's events, as (kind, text)."""


@pytest.fixture(scope="module")
def played() -> Played:
    return played_game(SEED)


def played_game(seed: int) -> Played:
    """The wandering game of ``seed`` (`TURNS` turns): its packets, states and events."""
    table = play_random_campaign(seed, TURNS, wander=True)
    return Played(
        [p.data for p in table.packets],
        [r.state for r in table.results],
        [[(e.kind, e.text) for e in r.events] for r in table.results],
    )


def _home_at(root: Path, played: Played, seq: int, seat: str) -> Path:
    """A home holding the game up to packet ``seq``, as ``seat``'s."""
    home = root / f"home-{seq}"
    holder = Home(home)
    try:
        packets = played.packets[: seq + 1]
        archive = Archive(FORMAT, VERSION, GAME, seat, "active", packets=packets)
        import_game(holder.replica(), msgspec.msgpack.encode(archive), now=now())
    finally:
        holder.close()
    return home


def _first_menu(played: Played, order: str, param: str = "") -> tuple[int, str, Choice]:
    """The first packet after which a seat owes ``order`` with a menu (of ``param``'s
    values, or ready-made lines)."""
    for seq, state in enumerate(played.states):
        if state.rules is None or state.rules.setup:
            continue
        decision = pending(RULESET, state)[0]
        if decision.kind != DecisionKind.ORDERS:
            continue
        seat = decision.seats[0]
        for choice in FACE.choices(state.rules, seat):
            if choice.order != order:
                continue
            if param and any(p.name == param and p.options for p in choice.params):
                return seq, seat, choice
            if not param and choice.presets:
                return seq, seat, choice
    raise AssertionError(f"no {order} menu in the game")


@pytest.mark.parametrize(("order", "param"), [("retreat", "to"), ("capture", "")])
def test_choices_prints_the_menus_of_the_step(
    played: Played, tmp_path: Path, order: str, param: str
) -> None:
    """``hexpost choices`` at a retreat prints the hexes it may enter, at a capture each
    ship that may be tried with each that may try; ``--json`` carries both."""
    seq, seat, choice = _first_menu(played, order, param)
    home = _home_at(tmp_path, played, seq, seat)
    code, out, err = run_cli(home, "choices", GAME)
    assert code == 0, err
    # Within 80 columns but the JSON templates; a field's line wraps under itself.
    assert all(len(line) <= 80 for line in out.splitlines() if not line.lstrip().startswith("{"))
    if param:
        ((values, words),) = [(p.options, p.help) for p in choice.params if p.name == param]
        said = f" ({words})" if words else ""  # (what the field takes, in the rules' words)
        unwrapped = out.replace("\n" + " " * 8, " ").splitlines()
        assert f"    {param}: {', '.join(values)}{said}" in unwrapped
    else:
        for preset in choice.presets:
            assert f"    - {preset.label}" in out
    code, out, err = run_cli(home, "choices", GAME, "--json")
    (kind,) = [k for k in json.loads(out)["orders"] if k["order"] == order]
    if param:
        assert kind["options"] == [[param, list(values)]]
    else:
        assert [m["label"] for m in kind["menu"]] == [p.label for p in choice.presets]


class Imported(msgspec.Struct, frozen=True):
    home: Path
    packets: int
    rare: dict[str, list[int]]
    """Per kind of `RARE`, the seqs of the packets that made such an event."""
    texts: dict[int, list[str]]
    """Those packets' event texts, by seq."""


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory, played: Played) -> Imported:
    last = len(played.packets) - 1
    home = _home_at(tmp_path_factory.mktemp("random-views"), played, last, "alliance")
    rare: dict[str, list[int]] = {kind: [] for kind in RARE}
    texts: dict[int, list[str]] = {}
    for seq, events in enumerate(played.events):
        for kind, text in events:
            if kind in rare:
                rare[kind].append(seq)
                texts.setdefault(seq, []).append(text)
    missing = [kind for kind, seqs in rare.items() if not seqs]
    assert not missing, f"the game made no {missing} event"
    return Imported(home, len(played.packets), rare, texts)


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


def test_the_review_reads_no_choices_but_show_does(played: Played, tmp_path: Path) -> None:
    """The review never shows what the seat may order, so its records leave the choices
    out (a 2B3 worked out its conversion menu from the board: 10-15 ms a packet); ``show``
    still lists them, menus and all."""
    seq, seat, _ = _first_menu(played, "convert")
    holder = Home(_home_at(tmp_path, played, len(played.packets) - 1, seat))
    try:
        replica = holder.replica()
        row = replica.find(GAME)
        (record,) = review.records(replica, row.game_id, [seq]).values()
        assert record.choices == () and record.checklist
        shown = show(replica, row, at=seq, checklist=False)
        (convert,) = [c for c in shown.choices if c.order == "convert"]
        assert convert.presets
    finally:
        holder.close()
