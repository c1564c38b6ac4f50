"""What arrived, in words, as the faces show it: the app when a game opens, the games list,
``hexpost sync`` through the shared folder, and ``hexpost games --json``'s new keys."""

from __future__ import annotations

import json

import msgspec

from engine.core.news import PER_KIND, summarize
from engine.core.ruleset import Event
from mail.loopback import LoopbackNetwork, LoopbackTransport
from saves.news import GameNews, Waits
from saves.outcome import Outcome
from tests.tui.conftest import Player, deliver, start_game
from tests.tui.test_app import SIZE, Tutorial, app_for, open_game, settle
from tui.safe_text import safe_text
from tui.screens.game_panels import ROOMY
from tui.screens.games import game_cells
from tui.services.news import news_line, news_lines
from tui.services.sync import LISTED_PER_GROUP, received_lines

BUILDS = [
    {"type": "build", "cls": "FF", "hex": "0408", "empire": "LYR"},
    {"type": "build", "cls": "F5", "hex": "1411", "empire": "KLI"},
    {"type": "done"},
]


async def test_at_80x24_the_status_line_says_what_arrived_and_who_owes(
    tutorial: Tutorial,
) -> None:
    """A toast would cover the hex panel at 80x24: the status line says it instead."""
    app = app_for(tutorial.alice)
    async with app.run_test(size=SIZE) as pilot:
        await open_game(pilot)
        await settle(pilot)
        assert not [n for n in app._notifications if n.title == "What arrived"]
        said = app.screen.status.text  # type: ignore[attr-defined]
        assert said.startswith("your move: 1A1; Bob: KZI sets up Starbase Squadron in 1704"), said


async def test_a_sync_that_brings_nothing_keeps_the_news_in_view(tutorial: Tutorial) -> None:
    """At 80x24 the news of what arrived is on the status line: a sync with nothing new
    says so beside it rather than in its place, as often as it is pressed; once anything
    else is said the line is no longer news, and the sync says its counts."""
    network = LoopbackNetwork()
    app = app_for(tutorial.alice, transport=lambda _home: LoopbackTransport(network, "lo:a"))
    async with app.run_test(size=SIZE) as pilot:
        await open_game(pilot)
        await settle(pilot)
        news = app.screen.status.text  # type: ignore[attr-defined]
        assert news.startswith("your move: 1A1; Bob: "), news
        for _ in range(2):
            await pilot.press("s")
            await settle(pilot)
            said = app.screen.status.text  # type: ignore[attr-defined]
            assert said == f"synced, nothing since: {news}", said
        app.screen.status.say("something else")  # type: ignore[attr-defined]
        await pilot.press("s")
        await settle(pilot)
        said = app.screen.status.text  # type: ignore[attr-defined]
        assert said == "synced: received 0, applied 0, sent 0", said


async def test_opening_a_game_shows_what_arrived_and_that_it_waits_for_you(
    tutorial: Tutorial,
) -> None:
    app = app_for(tutorial.alice)
    async with app.run_test(size=ROOMY) as pilot:
        await open_game(pilot)
        await settle(pilot)
        [note] = [n for n in app._notifications if n.title == "What arrived"]
        lines = note.message.splitlines()
        assert lines[0].endswith("from Bob (alliance)")
        assert lines[-1].startswith("  waits for you: 1A1")
        assert len(lines) <= 12  # bounded, whatever arrived
        app.clear_notifications()
        await pilot.press("escape")
        await settle(pilot)
        await open_game(pilot)  # read now: nothing new to say a second time
        await settle(pilot)
        assert not [n for n in app._notifications if n.title == "What arrived"]


async def test_the_games_list_names_the_player_it_waits_for_and_the_step(
    tutorial: Tutorial,
) -> None:
    app = app_for(tutorial.bob)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        games = app.screen.overview  # type: ignore[attr-defined]
        [game] = games.games
        cells = game_cells(game)
        assert cells[3].startswith("Alice")  # the coalition's player owes 1A1
        assert cells[5].startswith("1A1 ")
        assert game.waits_text.startswith("waits for Alice (coalition): 1A1 ")


def test_sync_prints_what_the_other_side_did_and_the_games_list_who_owes(
    alice: Player, bob: Player
) -> None:
    game, _ = start_game(alice, bob, "news", in_process=True)
    for _ in range(40):  # both sides complete steps until the coalition's builds
        record = json.loads(alice.in_process("show", game[:10], "--json"))  # (scaffolding)
        if record["step"] == "2B3":
            break
        (seat,) = record["waiting_for"]
        deliver({"coalition": alice, "alliance": bob}, game, [(seat, [{"type": "done"}])])
    assert alice.show(game[:10])["waiting_for"] == ["coalition"]
    alice.orders(game[:10], BUILDS)
    alice.sync()
    printed = bob.sync().splitlines()
    head = printed.index("news: 1 packet from Alice (coalition)")
    assert printed[head + 1 : head + 3] == [
        "  LYR built FF at 0408 (2.5 EP)",
        "  KLI built F5 at 1411 (3 EP)",
    ]
    assert any(line.startswith("  waits for Alice (coalition): ") for line in printed)
    [row] = [r for r in bob.json("games") if r["name"] == "news"]
    assert row["waits"]["who"] == "Alice" and row["waits"]["seat"] == "coalition"
    assert row["waits"]["mine"] is False
    assert row["waits_text"] == f"waits for Alice (coalition): {row['waits']['what']}"
    listed = bob.ok("games")
    assert "Alice" in next(line for line in listed.splitlines() if "news" in line)


def test_a_flood_of_received_items_is_listed_in_a_few_lines() -> None:
    game = b"\x01" * 32
    names = {game: "wind"}
    flood = [
        Outcome("applied", f"applied packet {n}", game, n, [n], "coalition") for n in range(1000)
    ]
    junk = [Outcome("rejected", "bad signature", bytes([2 + n % 200]) * 32) for n in range(500)]
    lines = received_lines(names, [*flood, *junk])
    assert len(lines) == 2 * (LISTED_PER_GROUP + 1)
    assert lines[LISTED_PER_GROUP].text == (
        f"received: applied: {1000 - LISTED_PER_GROUP} more items of wind (packets 3-999)"
    )
    assert lines[-1].text == f"received: rejected: {500 - LISTED_PER_GROUP} more items"


def test_news_from_hostile_words_stays_on_its_lines_when_shown() -> None:
    hostile = "Mal\nlory\x1b[2J\x07"
    item = GameNews(
        game="00" * 32,
        name="w\x1b]0;pwn\x07",
        my_seat="alliance",
        news=summarize([("coalition", [Event("chat", f"hi {hostile}")] * 5)]),
        names={"coalition": hostile},
        waits=Waits("coalition", hostile, False, "1A1", "orders", "1A1 Bases"),
    )
    lines = news_lines(item)
    assert len(lines) == 1 + PER_KIND + 2  # heading, two chat lines, the count, the wait
    for line in map(safe_text, [*lines, news_line(item)]):
        assert not any(ch in line for ch in "\x1b\x07\n")


def test_the_news_in_one_line_leads_with_what_was_done() -> None:
    """The game's status line at 80x24: whose move it is and at which step, then per seat
    its player, the last thing listed (the latest) and how many more the log has; the
    game's name, shown above it, is left out."""
    done = [
        Event("declare", "KZI declares war on KLI"),
        Event("move", "KZI moved 18 units 1105->1107"),
        Event("step-done", "alliance completed 1B"),
    ]
    waits = Waits("coalition", "Alice", True, "5-2A3", "orders", "5-2A3 Defender accepts")
    item = GameNews("00" * 32, "w", "coalition", summarize([("alliance", done)]), {}, waits)
    names = {"alliance": "Bob"}
    line = news_line(msgspec.structs.replace(item, names=names))
    assert line == "your move: 5-2A3; Bob: KZI moved 18 units 1105->1107 (+2 more: e)"
    assert "; alliance: KZI moved" in news_line(item)  # a seat with no name
    quiet = summarize([("alliance", done[2:])])
    line = news_line(msgspec.structs.replace(item, names=names, news=quiet))
    assert line == "your move: 5-2A3; Bob: 1 packet (1 routine step)"
    both = summarize([("alliance", done[2:]), ("coalition", done[:1])])
    line = news_line(msgspec.structs.replace(item, names=names, news=both))
    assert line == "your move: 5-2A3; you: KZI declares war on KLI"  # Bob's: routine only
    theirs = msgspec.structs.replace(waits, seat="alliance", who="Bob", mine=False)
    line = news_line(msgspec.structs.replace(item, names=names, news=quiet, waits=theirs))
    assert line == "Bob's move: 5-2A3; Bob: 1 packet (1 routine step)"


def test_a_packet_of_dones_names_the_steps_its_player_ended() -> None:
    """Found in the game by mail: Bob stayed at his retreat option with a ``done``, and
    Alice's status line said "Bob: 1 packet (1 routine step)", which does not say where he
    stayed. The steps a player ended with a ``done`` of its own are named (not those its
    standing order ended, nor another seat's)."""
    done = [
        Event(
            "step-done",
            "alliance completed 5-7A1 Defender's first retreat option",
            "alliance",
            "5-7A1",
            {"note": "", "adjustments": []},
        ),
        Event(
            "step-done",
            "alliance completed 5-7A2 Attacker's retreat option (standing order)",
            "alliance",
            "5-7A2",
            {"standing": True},
        ),
        Event("step-part", "coalition completed its part of 5-6X1", "coalition", "5-6X1"),
    ]
    waits = Waits("coalition", "Alice", True, "5-7A3", "orders", "5-7A3 Defender's last")
    news = summarize([("alliance", done)])
    assert news.seats[0].done_at == ("5-7A1",)
    item = GameNews("00" * 32, "w", "coalition", news, {"alliance": "Bob"}, waits)
    assert news_line(item) == "your move: 5-7A3; Bob: done at 5-7A1 (3 routine steps)"
    assert news_lines(item) == [
        "w: 1 packet from Bob (alliance)",
        "  done at 5-7A1",
        "  3 routine steps",
        "  waits for you: 5-7A3 Defender's last",
    ]


def test_the_one_line_news_leads_with_the_rarest_kind_of_line() -> None:
    """Found in the game by mail: Bob destroyed a D7, and his packet ran on through the
    round's allocations on standing orders; the status line showed the last of them
    ("coalition resolves 1 damage points", the engine allocating for Alice). It leads with
    a line of Bob's own seat from his latest packet, of the kind that came least often (the
    latest among equals): the one thing among the routine many (`SeatNews.lead`)."""
    done = [
        Event("directed", "alliance directs damage in 1107: KLI-0083 destroyed", "alliance"),
        Event("allocate", "alliance resolves 24 damage points", "alliance", "5-6A"),
        Event("allocate", "coalition resolves 1 damage points", "coalition", "5-6B"),
    ]
    waits = Waits("alliance", "Bob", False, "5-7A1", "orders", "5-7A1 Defender's retreat")
    news = summarize([("alliance", done)])
    lead = "alliance directs damage in 1107: KLI-0083 destroyed"
    assert news.seats[0].lead == lead
    item = GameNews("00" * 32, "w", "coalition", news, {"alliance": "Bob"}, waits)
    assert news_line(item) == f"Bob's move: 5-7A1; Bob: {lead} (+2 more: e)"


def test_the_one_line_news_says_dice_owed_are_an_automatic_reply() -> None:
    """Found in the game by mail: the round's dice waited for Bob's entropy, armed at
    5-4A2 while the sequence stood at 5-5B; the status line said "Bob's move: 5-4A2", a
    step already played. Only orders and secret choices are a move: anything else owed is
    said in the words of the games list."""
    dice = Waits(
        "alliance", "Bob", False, "5-4A2", "entropy", "dice for 5-4A2 (an automatic reply)"
    )
    item = GameNews("00" * 32, "w", "coalition", summarize([]), {"alliance": "Bob"}, dice)
    assert news_line(item) == "waits for Bob (alliance): dice for 5-4A2 (an automatic reply)"
    secret = msgspec.structs.replace(dice, kind="secret", step="5-3X2", what="secret choice")
    assert news_line(msgspec.structs.replace(item, waits=secret)) == "Bob's move: 5-3X2"


def test_a_done_through_the_end_is_bookkeeping_and_a_war_leads_the_line() -> None:
    """Found in the game by mail: Bob's done through the end played his whole turn, and the
    scenario's next turn had the Hydrans declare war; Alice's status line led with "alliance's
    done through the end completed its steps to the end of the part". Where the walk stopped
    is what the game waits for (said first); the walk's own event is counted as routine."""
    done = [
        Event("through-stopped", "alliance's done through the end completed its steps to the "
              "end of the part", "alliance"),
        Event("war", "HYD declares war on KLI", "alliance"),
        Event("war", "HYD declares war on LYR", "alliance"),
        *[Event("release", f"HYD fleet {n} is released", "alliance") for n in range(4)],
    ]  # fmt: skip
    news = summarize([("alliance", done)])
    assert news.seats[0].routine == 1
    assert news.seats[0].lead == "HYD declares war on LYR"
