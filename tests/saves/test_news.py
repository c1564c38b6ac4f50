"""What arrived, read from a home's store after a real sync over loopback (`saves.news`)."""

from __future__ import annotations

from engine.core.news import PER_SEAT
from saves import news
from tests.saves.conftest import Player, advance, now, owner
from tui.services.news import news_lines
from tui.services.sync import arrival_lines

BUILDS = [
    {"type": "build", "cls": "FF", "hex": "0408", "empire": "LYR"},
    {"type": "build", "cls": "F5", "hex": "1411", "empire": "KLI"},
    {"type": "done"},
]


def test_a_sync_says_what_the_other_side_built_and_who_moves_next(
    players: dict[str, Player], game: bytes
) -> None:
    alice, bob = players["coalition"], players["alliance"]
    advance(players, game, "2B3")
    assert owner(players, game)[0] is alice
    alice.replica.submit(game, BUILDS, now=now())
    alice.sync()
    report = bob.sync()
    [item] = news.arrivals(bob.replica, report.received)
    assert item.game == game.hex() and item.my_seat == "alliance"
    [coalition] = item.news.seats
    assert coalition.seat == "coalition" and coalition.packets == 1
    assert coalition.lines[:2] == ("LYR built FF at 0408 (2.5 EP)", "KLI built F5 at 1411 (3 EP)")
    assert item.names == {"coalition": "Alice", "alliance": "Bob"}
    waits = item.waits
    assert waits is not None and waits.seat == "coalition" and not waits.mine
    assert waits.who == "Alice"
    lines = news_lines(item)
    assert lines[0] == "wind: 1 packet from Alice (coalition)"
    assert lines[1:3] == ["  LYR built FF at 0408 (2.5 EP)", "  KLI built F5 at 1411 (3 EP)"]
    assert lines[-1].startswith("  waits for Alice (coalition): ")
    assert arrival_lines(bob.replica, report) == lines
    assert arrival_lines(bob.replica, report, game="00" * 32) == []


def test_the_game_says_when_it_waits_for_you(players: dict[str, Player], game: bytes) -> None:
    alice, bob = players["coalition"], players["alliance"]
    state = bob.replica.state(game)
    decisions = bob.replica.pending(game)
    owed = news.waits(decisions, "coalition", news.seat_names(state))
    assert owed is not None and owed.mine and owed.who == "Alice"
    assert news.waits_words(owed) == f"waits for you: {decisions[0].step} {decisions[0].title}"
    assert news.waits_words(None) == "waits for nobody: the game is over"
    assert alice.replica.game(game).head_seq == bob.replica.game(game).head_seq


def test_unread_news_covers_only_what_the_other_seats_sent_since_the_last_look(
    players: dict[str, Player], game: bytes
) -> None:
    alice, bob = players["coalition"], players["alliance"]
    bob.replica.mark_read(game)
    assert news.unread_news(bob.replica, bob.row(game)).news.packets == 0
    advance(players, game, "2B3")
    alice.replica.submit(game, BUILDS, now=now())
    alice.sync()
    bob.sync()
    row = bob.row(game)
    unread = news.unread_news(bob.replica, row)
    assert unread.news.packets == row.unread > 0
    assert {seat.seat for seat in unread.news.seats} == {"coalition"}
    coalition = unread.news.seats[0]
    assert "LYR built FF at 0408 (2.5 EP)" in coalition.lines
    assert len(coalition.lines) <= PER_SEAT


def test_a_sync_says_what_its_own_automatic_replies_did(
    players: dict[str, Player], game: bytes
) -> None:
    """Found in the game by mail: Bob's sync answered Alice's packet with the dice the round
    waited for, and his reply's packet fought the round; his sync said only "waits for
    Alice: 5-5B". The replies a sync wrote are news too, under "you"."""
    alice, bob = players["coalition"], players["alliance"]
    owed, _ = owner(players, game)
    roll = [{"type": "roll", "dice": "2d6", "purpose": "planetary assault"}]
    owed.replica.submit(game, roll, now=now())
    owed.sync()
    other = bob if owed is alice else alice
    report = other.sync()
    assert report.written and report.written[0][0] == game
    lines = arrival_lines(other.replica, report)
    mine = lines.index("wind: 1 packet from you")
    rolled = lines[mine + 1]
    assert rolled.startswith(f"  {owed.row(game).my_seat} rolled 2d6 for planetary assault: ")
    assert lines[-1].startswith("  waits for ")


def test_unread_news_has_the_automatic_replies_written_since(
    players: dict[str, Player], game: bytes
) -> None:
    """The app's status line reads the unread news: a round fought in this home's own
    automatic reply (its reveal, its dice) was news to nobody there. The replies written
    after the first unread packet are read with it, under this home's seat; its other
    packets (orders the player wrote, read when written) are not."""
    owed, other = owner(players, game)
    roll = [{"type": "roll", "dice": "2d6", "purpose": "planetary assault"}]
    owed.replica.submit(game, roll, now=now())
    owed.sync()
    report = other.sync()
    assert report.written
    row = other.row(game)
    unread = news.unread_news(other.replica, row)
    seats = [seat.seat for seat in unread.news.seats]
    assert seats == [owed.row(game).my_seat, row.my_seat]
    (mine,) = [seat for seat in unread.news.seats if seat.seat == row.my_seat]
    assert mine.packets == 1 and mine.lines[0].startswith(f"{owed.row(game).my_seat} rolled 2d6")
    owed.sync()  # the reply arrives; the roller's own orders after it are no news to it
    owed.replica.submit(game, [{"type": "note", "text": "my own words"}], now=now())
    theirs = news.unread_news(owed.replica, owed.row(game)).news.seats
    assert [seat.seat for seat in theirs] == [row.my_seat]  # not its own note
