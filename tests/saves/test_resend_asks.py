"""Signed resend asks (`saves.resend_asks`): the other home answers by itself, in bounds.

Bob's copy of Alice's packet comes damaged; Bob's home signs an ask beside its note, and
Alice's home queues that packet again with nobody running ``hexpost resend``. Then the
attacks a modified client or a stranger would try: a forged or altered ask, an ask in
another seat's name, one naming a head this game does not have, one asking for more than a
home sends by itself, the same ask twice.
"""

from __future__ import annotations

import asyncio

import msgspec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine.core.owed import pending
from engine.core.packets import raw_public_key
from engine.core.resend_asks import AskBody, is_ask, peek, sign_ask
from engine.fe import RULESET
from mail.sync import pull
from mail.transport import IncomingPacket
from saves import outbox, quarantine, resend_asks
from saves.outcome import Outcome
from saves.quarantine import ResendRequest
from tests.saves.conftest import Handed, Player, now, owner, play_notes


def hand(player: Player, ref: str, data: bytes) -> Outcome:
    return asyncio.run(pull(player.replica, Handed([IncomingPacket(ref=ref, data=data)]), now))[0]


def queued_asks(player: Player, game: bytes) -> list[bytes]:
    return [e.data for e in outbox.unsent(player.replica.store, game) if is_ask(e.data)]


def damaged(alice: Player, bob: Player, game: bytes) -> int:
    """Alice writes a packet; Bob's only copy of it comes damaged. Returns its position."""
    honest = alice.replica.submit(game, [{"type": "note", "text": "hello"}], now=now())
    data = bytearray(alice.packet(game, honest.seq))
    data[20] ^= 0x01
    assert hand(bob, "bent", bytes(data)).status == "rejected"
    return honest.seq


def bobs_ask(bob: Player, game: bytes, alice: Player) -> bytes:
    """The ask Bob's sync queues beside its note (`mail.sync.ask_for_damaged`)."""
    row = bob.row(game)
    (request,) = quarantine.resend_requests(
        bob.replica.store, [(game, row.name, row.head_seq, "coalition", alice.address)]
    )
    assert resend_asks.queue_ask(bob.replica, request, now())
    (data,) = queued_asks(bob, game)
    return data


def test_a_damaged_copy_is_sent_again_without_anyone_running_resend(
    alice: Player, bob: Player, game: bytes
) -> None:
    seq = damaged(alice, bob, game)
    outbox.mark_sent(alice.replica.store, outbox.unsent(alice.replica.store, game)[-1].id, now())
    assert not outbox.unsent(alice.replica.store, game)
    ask = bobs_ask(bob, game, alice)
    outcome = hand(alice, "ask", ask)
    assert outcome.status == "resend", outcome.detail
    assert f"sending 1 packet ({seq}-{seq})" in outcome.detail
    (again,) = outbox.unsent(alice.replica.store, game)
    assert again.seq == seq and again.resends == 1
    assert hand(bob, "again", again.data).applied == [seq]
    assert hand(alice, "ask twice", ask + b"").status == "duplicate"  # (a new ref, same bytes)
    assert len(outbox.unsent(alice.replica.store, game)) == 1  # nothing queued twice


def test_a_home_behind_gets_every_seat_s_packets_from_its_gap_at_its_own_address(
    alice: Player, bob: Player, game: bytes
) -> None:
    head = alice.row(game).head_seq
    alice.handed_over(game)
    request = ResendRequest(game, "wind", head - 3, "coalition", alice.address, "behind", True)
    assert resend_asks.queue_ask(bob.replica, request, now())
    outcome = hand(alice, "behind", queued_asks(bob, game)[0])
    assert outcome.status == "resend", outcome.detail
    sent = outbox.unsent(alice.replica.store, game)
    assert sorted(e.seq for e in sent) == list(range(head - 3, head + 1))
    relayed = [e for e in sent if e.subject.endswith("sent again")]
    assert relayed and all(e.recipients == (bob.address,) for e in relayed)


def _forged(player: Player, game: bytes, **changes: object) -> bytes:
    """An ask signed by ``player``'s key, in Bob's name unless ``seat`` says otherwise."""
    state = player.replica.state(game)
    body = AskBody(
        game_id=game, seat="alliance", head_seq=state.core.seq, head_id=state.head,
        seq=state.core.seq + 1, every_seat=False, written_at=now(),
    )  # fmt: skip
    return sign_ask(msgspec.structs.replace(body, **changes), player.key)


def test_forged_altered_and_misplaced_asks_send_nothing(
    alice: Player, bob: Player, game: bytes
) -> None:
    seq = damaged(alice, bob, game)
    alice.handed_over(game)
    head = bob.row(game).head_seq
    assert seq == head + 1
    refused = {
        # Alice's key in Bob's name: not the key the game binds to the alliance.
        "forged": (_forged(alice, game, head_seq=head, seq=head + 1), "not signed by the key"),
        # Bob's own ask with one byte of its body changed.
        "altered": (bytes(bobs_ask(bob, game, alice)[:-1]) + b"\x00", "refused"),
        # A head that is not this game's packet there.
        "elsewhere": (
            _forged(bob, game, head_seq=head, head_id=b"\x07" * 32, seq=head + 1),
            "not this game's",
        ),
        # A range that ends before it begins.
        "backwards": (
            _forged(bob, game, head_seq=head, seq=2, every_seat=True, upto=1),
            "ends before it begins",
        ),
    }
    for ref, (data, why) in refused.items():
        outcome = hand(alice, ref, data)
        assert outcome.status == "rejected" and why in outcome.detail, (ref, outcome.detail)
    assert not outbox.unsent(alice.replica.store, game)
    # Alice's own ask, as a shared folder hands it back: nothing to answer.
    mine = _forged(alice, game, seat="coalition")
    assert hand(alice, "mine", mine).status == "ignored"
    # An ask for packets this home does not hold yet: nothing to send, but its writer holds
    # packets past this home's head, which it asks for in its turn.
    beyond = _forged(bob, game, head_seq=head + 50, seq=head + 51)
    outcome = hand(alice, "beyond", beyond)
    ours = alice.row(game).head_seq
    assert outcome.status == "ignored"
    assert outcome.detail.endswith(f"asked for packets {ours + 1} to {head + 50} again")
    assert [is_ask(e.data) for e in outbox.unsent(alice.replica.store, game)] == [True]


def test_an_ask_for_more_than_a_home_sends_by_itself_waits_for_its_player(
    alice: Player, bob: Player, game: bytes, players: dict[str, Player]
) -> None:
    play_notes(players, game, resend_asks.MAX_AUTO_RESEND + 5)
    alice.handed_over(game)
    ask = _forged(bob, game, seq=1, every_seat=True)
    outcome = hand(alice, "everything", ask)
    assert outcome.status == "ignored" and outcome.attention
    assert "hexpost resend wind --from 1 --every-seat" in outcome.detail
    assert not outbox.unsent(alice.replica.store, game)


def test_an_ask_that_names_its_end_is_sent_that_far_only(
    alice: Player, bob: Player, game: bytes, players: dict[str, Player]
) -> None:
    """What a home that lost packets 3 to 5 of a chain longer than `MAX_AUTO_RESEND` asks
    for: those three are sent, by themselves; the rest of the chain is not."""
    play_notes(players, game, resend_asks.MAX_AUTO_RESEND + 5)
    alice.handed_over(game)
    outcome = hand(alice, "three", _forged(bob, game, seq=3, every_seat=True, upto=5))
    assert outcome.status == "resend", outcome.detail
    assert outcome.detail.endswith(
        "asked for packets 3 to 5 of wind again: sending 3 packets (3-5)"
    )
    assert sorted(e.seq for e in outbox.unsent(alice.replica.store, game)) == [3, 4, 5]


def test_an_ask_whose_end_is_past_the_head_sends_to_the_head_and_no_further(
    alice: Player, bob: Player, game: bytes, players: dict[str, Player]
) -> None:
    play_notes(players, game, 4)
    alice.handed_over(game)
    head = alice.row(game).head_seq
    ask = _forged(bob, game, seq=head - 1, every_seat=True, upto=head + 10_000)
    assert hand(alice, "past", ask).status == "resend"
    assert sorted(e.seq for e in outbox.unsent(alice.replica.store, game)) == [head - 1, head]


def test_a_named_end_too_far_from_its_start_waits_for_the_player_with_its_command(
    alice: Player, bob: Player, game: bytes, players: dict[str, Player]
) -> None:
    play_notes(players, game, resend_asks.MAX_AUTO_RESEND + 5)
    alice.handed_over(game)
    last = resend_asks.MAX_AUTO_RESEND + 1
    outcome = hand(alice, "many", _forged(bob, game, seq=1, every_seat=True, upto=last))
    assert outcome.status == "ignored" and outcome.attention
    assert f"that is {last} packets, more than hexpost sends" in outcome.detail
    assert f"hexpost resend wind --from 1 --to {last} --every-seat" in outcome.detail
    assert not outbox.unsent(alice.replica.store, game)


def _hand_at(player: Player, ref: str, data: bytes, when: str) -> Outcome:
    """``hand``, on a clock of whole seconds set to ``when`` (the bounds count hours)."""
    handed = Handed([IncomingPacket(ref=ref, data=data)])
    return asyncio.run(pull(player.replica, handed, lambda: when))[0]


def _day(hour: int) -> str:
    return f"2031-01-{1 + hour // 24:02d}T{hour % 24:02d}:00:00Z"


def test_an_answer_that_may_have_been_lost_is_sent_again_an_hour_on(
    alice: Player, bob: Player, game: bytes, players: dict[str, Player]
) -> None:
    """Bob asks for packets its home lacks; Alice's answers, but that email is lost too.
    Bob's next ask for the same position (its reminder's, a reply window on) is answered
    again: before, the position counted as answered for good and both homes waited until a
    person ran ``hexpost resend``. A copy of an ask within the hour is a duplicate."""
    play_notes(players, game, 3)
    alice.handed_over(game)
    head = alice.row(game).head_seq
    first = _forged(bob, game, seq=head - 1, every_seat=True, written_at=_day(0))
    assert _hand_at(alice, "first", first, _day(0)).status == "resend"
    alice.handed_over(game)  # (the answer's emails: lost)
    again = _forged(bob, game, seq=head - 1, every_seat=True, written_at=_day(1))
    soon = _hand_at(alice, "soon", again, "2031-01-01T00:30:00Z")
    assert soon.status == "duplicate" and not outbox.unsent(alice.replica.store, game)
    later = _hand_at(alice, "later", again + b"", _day(72))
    assert later.status == "resend", later.detail
    assert sorted(e.seq for e in outbox.unsent(alice.replica.store, game)) == [head - 1, head]


def test_a_seat_that_asks_again_and_again_is_answered_a_bounded_number_of_times_a_day(
    alice: Player, bob: Player, game: bytes, players: dict[str, Player]
) -> None:
    """Attack: Bob's modified client asks for a packet again at every position it can name,
    hour after hour. Alice's home answers `MAX_AUTO_ASKS` of them in a day, then leaves the
    rest to Alice; a day after the first, it answers again, within the bound."""
    play_notes(players, game, 2 * quarantine.MAX_AUTO_ASKS)
    head = alice.row(game).head_seq
    assert head > quarantine.MAX_AUTO_ASKS + 2
    answered = []
    for hour, first in enumerate(range(2, 2 + 2 * quarantine.MAX_AUTO_ASKS)):
        data = _forged(bob, game, seq=first, every_seat=True, upto=first)
        answered.append(_hand_at(alice, f"again-{first}", data, _day(hour)).status)
    assert answered.count("resend") == quarantine.MAX_AUTO_ASKS
    assert set(answered[quarantine.MAX_AUTO_ASKS :]) == {"ignored"}
    one_more = _forged(bob, game, seq=1, every_seat=True)
    outcome = _hand_at(alice, "one more", one_more, _day(23))
    assert outcome.status == "ignored" and outcome.attention
    assert f"answered {quarantine.MAX_AUTO_ASKS} asks of this game by itself in the last" in (
        outcome.detail
    )
    assert _hand_at(alice, "next day", one_more + b"", _day(24)).status == "resend"


def test_damaged_records_of_answers_stop_no_answer_for_long(
    alice: Player, bob: Player, game: bytes, players: dict[str, Player]
) -> None:
    """A damaged disk: the time a position was answered reads as nothing, a day's log holds
    a row from no time at all and one with a huge count. Alice's home believes no answer
    sent more than `MAX_AUTO_RESEND` packets, so that row holds answers back for the rest of
    its day only; then it answers the position again, and forgets the row from no time."""
    play_notes(players, game, 3)
    alice.handed_over(game)
    head = alice.row(game).head_seq
    ask = _forged(bob, game, seq=head, every_seat=True)
    assert _hand_at(alice, "first", ask, _day(0)).status == "resend"
    alice.handed_over(game)
    with alice.replica.store.transaction() as db:
        db.execute("UPDATE resend_answers SET answered_at = 'x\x01' WHERE game_id = ?", (game,))
        db.execute("UPDATE resend_log SET sent = 1000000000000 WHERE game_id = ?", (game,))
        db.execute(
            "INSERT INTO resend_log (game_id, answered_at, sent) VALUES (?, 'zzzz', 7)", (game,)
        )
    held = _hand_at(alice, "held", ask, _day(2))
    assert held.status == "ignored" and held.attention
    assert f"hexpost sent {resend_asks.MAX_AUTO_RESEND} of this game" in held.detail
    again = _hand_at(alice, "again", ask, _day(25))
    assert again.status == "resend", again.detail
    assert _hand_at(alice, "copy", ask, _day(25)).status == "duplicate"
    with alice.replica.store.transaction() as db:
        (left,) = db.execute("SELECT COUNT(*) FROM resend_log WHERE answered_at = 'zzzz'")
    assert left == (0,), "a row from no time is forgotten"


def _damage_queued(player: Player, game: bytes, seq: int) -> None:
    """Flip a byte in the middle of the queued copy of packet ``seq`` (a damaged disk)."""
    with player.replica.store.transaction() as db:
        query = "SELECT id, data FROM outbox WHERE game_id = ? AND seq = ?"
        entry, data = db.execute(query, (game, seq)).fetchone()
        bent = bytearray(data)
        bent[len(bent) // 2] ^= 0x01
        db.execute("UPDATE outbox SET data = ? WHERE id = ?", (bytes(bent), entry))


def test_a_damaged_queued_copy_is_not_what_an_answer_sends(
    alice: Player, bob: Player, game: bytes, players: dict[str, Player]
) -> None:
    """Alice's move was lost in the mail and her disk damaged the copy her outbox keeps to
    send again. Before, every answer to Bob's asks sent those damaged bytes, Bob refused
    them, and the game waited for good. Now the chain's copy goes (it opens; the queued one
    does not), and becomes the queued one."""
    play_notes(players, game, 2)
    author, other = owner(players, game)
    lost = author.replica.submit(game, [{"type": "note", "text": "lost"}], now=now())
    author.handed_over(game)
    _damage_queued(author, game, lost.seq)
    before = other.row(game).head_seq
    ours = other.replica.game(game).my_seat
    ask = _forged(other, game, seat=ours, seq=before, every_seat=True)
    assert hand(author, "ask", ask).status == "resend"
    queued = {e.seq: e.data for e in outbox.unsent(author.replica.store, game)}
    assert queued == {before: other.packet(game, before), lost.seq: author.packet(game, lost.seq)}
    assert hand(other, "again", queued[lost.seq]).applied == [lost.seq]
    assert other.row(game).state_hash == author.row(game).state_hash


def test_a_damaged_copy_of_a_relay_sent_before_is_not_sent_again(
    alice: Player, bob: Player, game: bytes, players: dict[str, Player]
) -> None:
    """Alice's home relayed Bob's own packets to him once (he lost them); her disk then
    damaged the queued copy of one of them. Asked again a day later, it sends the chain's
    copy, which opens."""
    play_notes(players, game, 2)
    head = alice.row(game).head_seq
    theirs = next(s for s in range(head, 0, -1) if alice.opened(game, s).body.seat == "alliance")
    ask = _forged(bob, game, seq=theirs, every_seat=True, upto=theirs)
    assert _hand_at(alice, "first", ask, _day(0)).status == "resend"
    alice.handed_over(game)
    _damage_queued(alice, game, theirs)
    assert _hand_at(alice, "again", ask, _day(25)).status == "resend"
    (again,) = outbox.unsent(alice.replica.store, game)
    assert again.seq == theirs and again.data == alice.packet(game, theirs)


def test_asks_that_add_up_to_more_than_a_day_s_packets_wait_for_the_player(
    alice: Player, bob: Player, game: bytes, players: dict[str, Player]
) -> None:
    """Attack: each ask within `MAX_AUTO_RESEND` packets, but together far more. Alice's
    home sends at most that many packets a day by itself for one game."""
    play_notes(players, game, resend_asks.MAX_AUTO_RESEND)
    alice.handed_over(game)
    big = resend_asks.MAX_AUTO_RESEND * 3 // 4
    first = _forged(bob, game, seq=1, every_seat=True, upto=big)
    assert _hand_at(alice, "big", first, _day(0)).status == "resend"
    second = _forged(bob, game, seq=2, every_seat=True, upto=big)
    outcome = _hand_at(alice, "big again", second, _day(2))
    assert outcome.status == "ignored" and outcome.attention
    assert "in the last 24 hours" in outcome.detail
    assert f"hexpost resend wind --from 2 --to {big} --every-seat" in outcome.detail
    assert _hand_at(alice, "big later", second + b"", _day(25)).status == "resend"


def test_an_ask_from_a_home_ahead_makes_this_one_ask_for_what_it_lacks(
    alice: Player, bob: Player, game: bytes, players: dict[str, Player]
) -> None:
    """A move lost in the mail, where only its author's hexpost sends reminders: the
    reminder's ask names the author's head, past this home's, so this home learns it lost
    those packets and asks for them (before, it answered that it held nothing to send, and
    both waited). The author's home sends them by itself, and both hold one game again."""
    author, other = owner(players, game)
    lost = []
    while pending(RULESET, author.replica.state(game))[0].seats[0] == author.row(game).my_seat:
        lost.append(author.replica.submit(game, [{"type": "done"}], now=now()).seq)
    for seq in lost[:-1]:
        assert hand(other, f"move-{seq}", author.packet(game, seq)).status == "applied"
    author.handed_over(game)  # (the last one's email lost)
    head = author.row(game).head_seq
    assert other.row(game).head_seq == head - 1
    reminder = ResendRequest(
        game, "wind", head + 1, other.row(game).my_seat, other.address, "reminder"
    )  # (what `reminders.ask` makes)
    assert resend_asks.queue_ask(author.replica, reminder, now())
    (theirs,) = queued_asks(author, game)
    author.handed_over(game)

    outcome = hand(other, "reminder", theirs)
    assert outcome.status == "ignored"
    assert outcome.detail == (
        f"{author.row(game).my_seat} holds wind up to packet {head}, past this home's "
        f"{head - 1}: asked for packet {head} again"
    )
    (ours,) = queued_asks(other, game)
    twice = hand(other, "reminder again", theirs + b"")
    assert twice.status == "ignored" and twice.detail.endswith("asked already")
    assert queued_asks(other, game) == [ours]  # asked once
    answered = hand(author, "ask back", ours)
    assert answered.status == "resend", answered.detail
    (again,) = outbox.unsent(author.replica.store, game)
    assert again.seq == head
    assert hand(other, "again", again.data).applied == [head]
    assert other.row(game).state_hash == author.row(game).state_hash


def test_a_head_claimed_far_ahead_costs_one_ask(
    alice: Player, bob: Player, game: bytes, players: dict[str, Player]
) -> None:
    """Attack: Alice's modified client names heads far past the game's in ask after ask.
    Bob's home asks back once for its head's next position within the hour, and no
    more."""
    play_notes(players, game, 2)
    head = bob.row(game).head_seq
    for claimed in (head + 1_000_000, head + 5, head + 2):
        ask = _forged(alice, game, seat="coalition", head_seq=claimed, seq=claimed + 1)
        assert hand(bob, f"ahead-{claimed}", ask).status in {"ignored", "duplicate"}
    (ours,) = queued_asks(bob, game)
    body = peek(ours)
    assert (body.seq, body.upto, body.every_seat) == (head + 1, head + 1_000_000, True)


def test_an_ask_back_that_may_have_been_lost_is_made_again_an_hour_on(
    alice: Player, bob: Player, game: bytes, players: dict[str, Player]
) -> None:
    """Bob's home learns from Alice's reminder that it lacks her last packets, and asks for
    them; that ask is lost in the mail. Alice's next reminder, a reply window on, makes Bob's
    home ask again: before, it had asked for that position once for good, and both homes
    waited for a person. Attack: a seat that sends such asks every few minutes gets one ask
    back an hour at most, each to its own bound address."""
    play_notes(players, game, 2)
    head = bob.row(game).head_seq
    for minutes, expected in ((0, "asked for"), (10, "asked already"), (50, "asked already")):
        ask = _forged(alice, game, seat="coalition", head_seq=head + 2, seq=head + 3)
        when = f"2031-01-01T00:{minutes:02d}:00Z"
        outcome = _hand_at(bob, f"ahead-{minutes}", ask, when)
        assert outcome.status == "ignored" and expected in outcome.detail, outcome.detail
    assert len(queued_asks(bob, game)) == 1
    bob.handed_over(game)  # (and lost on its way)
    reminder = _forged(alice, game, seat="coalition", head_seq=head + 2, seq=head + 3)
    outcome = _hand_at(bob, "next reminder", reminder, _day(72))
    assert outcome.detail.endswith(f"asked for packets {head + 1} to {head + 2} again")
    (again,) = queued_asks(bob, game)
    assert (peek(again).seq, peek(again).upto) == (head + 1, head + 2)


def test_no_ask_is_signed_by_a_key_the_game_does_not_bind_to_this_home_s_seat(
    alice: Player, bob: Player, game: bytes
) -> None:
    """A home playing under another key than the one its game binds to its seat (its state
    readable, so this is no damaged row): an ask signed by it would be refused, so only the
    plain note goes."""
    other = Ed25519PrivateKey.from_private_bytes(b"\x09" * 32)
    identity = bob.replica.identity
    assert identity is not None
    bob.replica.identity = msgspec.structs.replace(
        identity, public_key=raw_public_key(other), key=other
    )
    request = ResendRequest(game, "wind", 1, "coalition", alice.address, "behind", True)
    assert not resend_asks.queue_ask(bob.replica, request, now())
    assert queued_asks(bob, game) == []


def test_this_home_s_own_ask_read_back_is_its_own_even_with_its_kept_key_damaged(
    alice: Player, bob: Player, game: bytes
) -> None:
    """A shared folder or a copy hands a home its own ask back: it is signed by this home's
    identity, so it is ignored as its own, not refused because the key kept for its seat was
    damaged. An ask in its seat's name that another key signed is still refused."""
    mine = _forged(alice, game, seat="coalition")
    with alice.replica.store.transaction() as db:
        db.execute(
            "UPDATE game_keys SET public_key = zeroblob(32) WHERE game_id = ? AND seat = ?",
            (game, "coalition"),
        )
    alice.reopen()
    outcome = hand(alice, "mine", mine)
    assert (outcome.status, outcome.detail) == ("ignored", "our own resend ask")
    forged = hand(alice, "forged", _forged(bob, game, seat="coalition"))
    assert forged.status == "rejected"
