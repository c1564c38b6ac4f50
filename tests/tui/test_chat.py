"""Chat at any time from the command line and from the game screen, and the passphrase dialog.

A chat message travels beside the game's chain (`saves.chat_messages`): the seat that does
not owe the move writes one as easily as the one that does, and no packet is made.

The command-line test runs the real `hexpost chat` in a child process (the homes of
`tests.tui.conftest`); the app tests drive the tutorial homes of `tests.tui.test_app` at
80x24. For the dialog, Alice's key file is written again encrypted (same key, cheap scrypt),
so a wrong passphrase really fails to open it.
"""

from __future__ import annotations

import json

from textual.widgets import Input, Static

from mail.loopback import LoopbackTransport
from mail.sync import sync
from saves import chat_messages
from saves.keys import read_key_file, write_key_file
from tests.saves.conftest import Player as HomePlayer
from tests.saves.conftest import now
from tests.tui.conftest import Player, assert_refused, exchange, hexpost, start_game
from tests.tui.test_app import (
    SIZE,
    Tutorial,
    app_for,
    open_game,
    settle,
    sign_a_done,
    status_text,
    top,
)
from tui.app import HexpostApp
from tui.services.log import event_rows
from tui.widgets.eventlog import EventLog
from tui.widgets.orders import OrdersPanel
from tui.widgets.passphrase import LineDialog, PassphraseDialog

SECRET = "seven sleepy dragons"


# --- the command line ------------------------------------------------------------------------


def test_chat_from_the_command_line_at_any_time_reaches_the_other_side(
    alice: Player, bob: Player
) -> None:
    game, _ = start_game(alice, bob, "chatty", setup=False, in_process=True)  # Alice owes
    before = [d for d in alice.show(game)["pending"] if d["kind"] != "accept"]
    heads = [json.loads(p.ok("log", game[:10], "--json"))[-1]["seq"] for p in (alice, bob)]
    out = bob.ok("chat", game[:10], "Take", "your", "time")  # not Bob's move
    assert "chat message 1 signed and queued" in out
    assert "chat message 1 signed and queued" in alice.ok("chat", game[:10], "Thanks,", "Bob")
    exchange(bob, alice)
    exchange(alice, bob)
    for player, seq in zip((alice, bob), heads, strict=True):
        records = json.loads(player.ok("log", game[:10], "--json"))
        chats = [
            (r["kind"], r["seat"], r["seq"], r["events"])
            for r in records
            if r["kind"] == "chat-message"
        ]
        assert sorted(chats) == sorted(
            [
                (
                    "chat-message",
                    "alliance",
                    seq,
                    ["chat message (not part of the game record): Take your time"],
                ),
                (
                    "chat-message",
                    "coalition",
                    seq,
                    ["chat message (not part of the game record): Thanks, Bob"],
                ),
            ]
        )
        assert records[-1]["kind"] == "chat-message"  # after the packet both writers had
        pending = [d for d in player.show(game)["pending"] if d["kind"] != "accept"]
        assert pending == before  # the game did not move
        listed = json.loads(player.ok("chat", game[:10], "--json"))
        assert [(m["seat"], m["seq"], m["text"]) for m in listed] == [
            ("alliance", 1, "Take your time"),
            ("coalition", 1, "Thanks, Bob"),
        ]  # by the writers' clocks: Bob wrote first
        text = player.ok("chat", game[:10])
        assert "not part of the game record" in text and "Take your time" in text
    assert_refused(alice.run("chat", game[:10], "   "), "needs some text")
    assert "chat" in hexpost("--help").stdout


# --- the app ---------------------------------------------------------------------------------


def lock_key(player: HomePlayer) -> None:
    """Write the player's key file again, the same key sealed with `SECRET`."""
    path = player.home.key_path
    key = read_key_file(path, None)
    path.unlink()
    write_key_file(path, key, SECRET.encode(), name=player.name, address=player.address, scrypt_n=2)


def head(game: Tutorial) -> int:
    return game.alice.replica.game(game.game_id).head_seq


async def type_line(pilot: object, text: str) -> None:
    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    dialog = pilot.app.screen
    assert isinstance(dialog, LineDialog)
    dialog.query_one(Input).value = text
    await pilot.press("enter")
    await settle(pilot)


def dialog_error(app: HexpostApp) -> str:
    return str(app.screen.query_one("#line-error", Static).content)


def chat_count(player: HomePlayer, game_id: bytes) -> int:
    return len(chat_messages.messages_of(player.replica.store, game_id))


async def test_a_chat_line_is_sent_and_shows_in_both_logs(tutorial: Tutorial) -> None:
    """Signed and sent at once (the app syncs): Bob's next sync has it."""
    transport = LoopbackTransport(tutorial.network, "loopback:alice")
    app = app_for(tutorial.alice, transport=lambda _home: transport)
    before = head(tutorial)
    async with app.run_test(size=SIZE) as pilot:
        app.session._clock = now
        screen = await open_game(pilot)
        await pilot.press("t")
        assert isinstance(app.screen, LineDialog)
        assert not isinstance(app.screen, PassphraseDialog)
        assert app.screen.query_one(Input).password is False
        await type_line(pilot, "Shall we play on?")
        assert top(app) is screen
        await settle(pilot)
        assert "sent 1" in status_text(app)
        rows = screen.query_one(EventLog).rows
        said = "chat message (not part of the game record): Shall we play on?"
        assert rows[-1] == (before, "coalition", "chat-message", said)
    assert head(tutorial) == before  # beside the chain: no packet
    bob = tutorial.bob
    await sync(bob.replica, bob.transport, now)  # (Alice's app sent it: no sync of hers)
    assert [
        m.body.text for m in chat_messages.messages_of(bob.replica.store, tutorial.game_id)
    ] == ["Shall we play on?"]
    assert event_rows(bob.replica, tutorial.game_id)[-1] == (
        before,
        "coalition",
        "chat-message",
        said,
    )


async def exchange_homes(game: Tutorial) -> None:
    """Alice's outbox to Bob, inside the test's event loop (`Player.sync` starts its own)."""
    for player in (game.alice, game.bob):
        await sync(player.replica, player.transport, now)


async def test_a_chat_off_ones_move_is_sent_and_escape_sends_nothing(
    tutorial: Tutorial,
) -> None:
    app = app_for(tutorial.bob)  # 1A1 is the coalition's step: Bob does not owe the move
    async with app.run_test(size=SIZE) as pilot:
        app.session._clock = now
        screen = await open_game(pilot)
        await pilot.press("t")
        await pilot.press("escape")  # cancelled: nothing signed
        await settle(pilot)
        assert not isinstance(app.screen, LineDialog)
        assert chat_count(tutorial.bob, tutorial.game_id) == 0
        await pilot.press("t")
        await type_line(pilot, "hello")
        assert "chat message 1 signed and queued" in status_text(app)
        await settle(pilot)
        assert screen.query_one(EventLog).rows[-1][1:3] == ("alliance", "chat-message")
    assert tutorial.bob.replica.game(tutorial.game_id).head_seq == head(tutorial)
    await exchange_homes(tutorial)
    await exchange_homes(tutorial)  # Alice syncs before Bob in one round: once more
    alice = tutorial.alice
    assert [
        m.body.text for m in chat_messages.messages_of(alice.replica.store, tutorial.game_id)
    ] == ["hello"]


async def test_the_passphrase_dialog_wrong_cancel_then_right(tutorial: Tutorial) -> None:
    lock_key(tutorial.alice)
    before = head(tutorial)
    app = app_for(tutorial.alice)
    async with app.run_test(size=SIZE) as pilot:
        app.session._clock = now
        await open_game(pilot)
        await pilot.press("t")
        await type_line(pilot, "Are you there?")
        assert isinstance(app.screen, PassphraseDialog)
        assert app.screen.query_one(Input).password is True

        await type_line(pilot, "not the words")  # wrong: asked again, nothing signed
        assert isinstance(app.screen, PassphraseDialog)
        assert "wrong passphrase" in dialog_error(app)
        assert chat_count(tutorial.alice, tutorial.game_id) == 0

        await pilot.press("escape")  # cancel: nothing signed
        await settle(pilot)
        assert not isinstance(app.screen, LineDialog)
        assert "not sent" in status_text(app)
        assert chat_count(tutorial.alice, tutorial.game_id) == 0

        await pilot.press("t")
        await type_line(pilot, "Are you there?")
        await type_line(pilot, SECRET)  # right: the chat goes out
        assert not isinstance(app.screen, LineDialog)
        assert "chat message 1 signed and queued" in status_text(app)
        assert chat_count(tutorial.alice, tutorial.game_id) == 1

        await pilot.press("t")  # unlocked for the session: no second question
        await type_line(pilot, "Still here.")
        assert not isinstance(app.screen, LineDialog)
        assert chat_count(tutorial.alice, tutorial.game_id) == 2
        assert head(tutorial) == before


async def test_orders_ask_for_the_passphrase_and_keep_the_drafts_on_cancel(
    tutorial: Tutorial,
) -> None:
    lock_key(tutorial.alice)
    before = head(tutorial)
    app = app_for(tutorial.alice)
    async with app.run_test(size=SIZE) as pilot:
        app.session._clock = now
        screen = await open_game(pilot)
        panel = screen.query_one(OrdersPanel)
        await sign_a_done(pilot)
        assert isinstance(app.screen, PassphraseDialog)
        await pilot.press("escape")
        await settle(pilot)
        assert panel.items == [{"type": "done"}]
        assert "needs its passphrase" in panel.check_text
        assert head(tutorial) == before

        await pilot.press("S")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        await type_line(pilot, "wrong words")
        assert "wrong passphrase" in dialog_error(app)
        await type_line(pilot, SECRET)
        await settle(pilot)
        assert not isinstance(app.screen, LineDialog)
        assert head(tutorial) == before + 1
        assert panel.items == []


async def test_a_sync_owing_a_roll_asks_for_the_passphrase_and_syncs_again(
    tutorial: Tutorial,
) -> None:
    """Alice asks for dice; Bob's locked home receives the roll, which waits for his
    entropy: the games list asks for his passphrase and a second sync sends the reply."""
    alice, bob = tutorial.alice, tutorial.bob
    lock_key(bob)
    roll = {"type": "roll", "dice": "1d6", "purpose": "a test"}
    alice.replica.submit(tutorial.game_id, [roll], now=now())
    await sync(alice.replica, alice.transport, now)
    before = bob.replica.game(tutorial.game_id).head_seq
    app = app_for(bob, transport=lambda _home: LoopbackTransport(tutorial.network, "loopback:bob"))
    async with app.run_test(size=SIZE) as pilot:
        app.session._clock = now
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, PassphraseDialog)
        await type_line(pilot, SECRET)
        await settle(pilot)
        assert not isinstance(app.screen, LineDialog)
        assert "sent 1" in status_text(app)
    assert bob.replica.game(tutorial.game_id).head_seq == before + 2  # the roll, the reply
