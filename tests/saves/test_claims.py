"""Late claims: refused before the reply window passes, signed, kept and queued after it, sent
through a real folder sync to the other home, which checks and keeps it; never a change to the
game's state. Claims that do not hold (wrong key, by the seat that owes the move, another game,
tampered, oversized, the window not passed by their own clock, another step) are refused with
a clear reason and leave nothing behind. Times are strings passed in: nothing sleeps."""

from __future__ import annotations

import asyncio
import email
from datetime import UTC, datetime
from email.message import Message
from pathlib import Path
from typing import Any

import msgspec
import pytest

from engine.core.claims import MAX_CLAIM_SIZE, ClaimBody, ClaimEnvelope, open_claim, sign_claim
from engine.core.errors import GameFrozen, HexpostError
from engine.core.owed import pending
from engine.core.packets import raw_public_key
from engine.core.state import encode_state
from engine.fe import RULESET
from mail.folder import FolderTransport
from mail.mime import build_message
from mail.sync import outgoing, push
from saves import claims, inbox, outbox
from saves.archive import Archive, export_game, import_game
from saves.home import Home
from saves.keys import generate_identity
from saves.replica import Identity, Replica
from tests.saves.conftest import Player, create_game, exchange, now, start_game

EARLY = "2030-01-02T00:00:00Z"
"""Inside the default reply window (72 hours) of any packet the fixtures store on 2030-01-01."""
LATE = "2030-01-05T00:00:00Z"
"""Past that window."""


def _key(player: Player) -> Any:
    identity = player.home.identity(unlock=True)
    assert identity is not None and identity.key is not None
    return identity.key


def _waiting(players: dict[str, Player], game: bytes) -> tuple[Player, Player]:
    """(the seat that waits, the seat that owes the next move) of ``game``."""
    state = players["coalition"].replica.state(game)
    late = pending(RULESET, state)[0].seats[0]
    claimant = next(s for s in players if s != late)
    return players[claimant], players[late]


def _fingerprint(player: Player, game: bytes) -> tuple[int, bytes, bytes, int, int]:
    """What a claim must never change: head, state hash, state bytes, packets, outbox."""
    row = player.row(game)
    return (
        row.head_seq,
        row.state_hash,
        encode_state(player.replica.state(game)),
        player.count("packets", game),
        player.count("events", game),
    )


def _honest_body(claimant: Player, game: bytes, **changes: Any) -> ClaimBody:
    """The claim ``claimant`` would write at `LATE`, with ``changes``."""
    replica = claimant.replica
    state = replica.state(game)
    row = replica.game(game)
    owed = pending(RULESET, state)[0]
    body = ClaimBody(
        game_id=game,
        seat=row.my_seat,
        late=owed.seats[0],
        head_seq=state.core.seq,
        head_id=state.head,
        step=owed.step,
        key=owed.key,
        window_hours=state.core.reply_window_hours,
        waiting_since=row.waiting_since,
        claimed_at=LATE,
    )
    return msgspec.structs.replace(body, **changes)


# --- writing a claim ---------------------------------------------------------------------------


def test_a_claim_waits_for_the_reply_window_then_is_signed_kept_and_queued(
    game: bytes, players: dict[str, Player]
) -> None:
    claimant, late = _waiting(players, game)
    before = _fingerprint(claimant, game)
    unsent = claimant.count("outbox")
    row = claimant.row(game)

    with pytest.raises(HexpostError) as caught:
        claims.make_claim(claimant.replica, game, EARLY)
    message = caught.value.message
    assert f"since {row.waiting_since}" in message
    assert "reply window of 72 hours passes at 2030-01-04T" in message
    assert "no late claim before then" in message
    assert claimant.count("claims") == 0
    assert claimant.count("outbox") == unsent

    made = claims.make_claim(claimant.replica, game, LATE, note="are you still there?")
    state = claimant.replica.state(game)
    owed = pending(RULESET, state)[0]
    body = open_claim(made.data, claimant.public_key).body
    assert body == made.body
    assert (body.seat, body.late, body.head_seq, body.head_id) == (
        row.my_seat,
        owed.seats[0],
        row.head_seq,
        state.head,
    )
    assert (body.step, body.key, body.window_hours) == (owed.step, owed.key, 72)
    assert (body.waiting_since, body.claimed_at, body.note) == (
        row.waiting_since,
        LATE,
        "are you still there?",
    )
    kept = claimant.replica.store.all(
        "SELECT claim_id, seat, late, head_seq, data, mine FROM claims WHERE game_id = ?", (game,)
    )
    assert kept == [(made.claim_id, row.my_seat, owed.seats[0], row.head_seq, made.data, 1)]
    (entry,) = [e for e in outbox.unsent(claimant.replica.store, game) if e.data == made.data]
    assert (entry.seq, entry.packet_id, entry.recipients, entry.automatic) == (
        row.head_seq,
        made.claim_id,
        (late.address,),
        False,
    )
    assert entry.subject.startswith("[hexpost] wind ")
    assert entry.subject.endswith(f"{row.my_seat}: late claim (packet {row.head_seq})")
    assert entry.summary[0] == f"{claimant.name} ({row.my_seat}) says that {late.name} " + (
        f"({owed.seats[0]}) is late:"
    )
    assert f"step {owed.step}" in entry.summary[1] and "are you still there?" in entry.summary[1]
    assert _fingerprint(claimant, game) == before
    assert claimant.replica.verify(game) == before[1]

    # One claim per reply window at the same position.
    with pytest.raises(HexpostError, match="already claimed"):
        claims.make_claim(claimant.replica, game, "2030-01-06T00:00:00Z")
    claims.make_claim(claimant.replica, game, "2030-01-08T00:00:01Z")
    assert claimant.count("claims", game) == 2


def test_only_the_waiting_seat_of_an_active_game_may_claim(
    game: bytes, players: dict[str, Player]
) -> None:
    claimant, late = _waiting(players, game)
    with pytest.raises(HexpostError, match="you owe the next move of wind yourself"):
        claims.make_claim(late.replica, game, LATE)
    with pytest.raises(HexpostError, match="needs the identity key"):
        claims.make_claim(claimant.home.replica(), game, LATE)
    for note, needle in (("a\x1b[2Jb", "control"), ("x" * 201, "at most 200")):
        with pytest.raises(HexpostError, match=needle):
            claims.make_claim(claimant.replica, game, LATE, note=note)
    stranger = generate_identity()
    impostor = Replica(
        claimant.replica.store,
        Identity("Carol", "carol@example.org", raw_public_key(stranger), stranger),
    )
    with pytest.raises(HexpostError, match="does not sign for seat"):
        claims.make_claim(impostor, game, LATE)
    claimant.replica.store.db.execute(
        "UPDATE games SET frozen = 'equivocation: test' WHERE game_id = ?", (game,)
    )
    with pytest.raises(GameFrozen, match="hexpost evidence"):
        claims.make_claim(claimant.replica, game, LATE)
    assert claimant.count("claims") == late.count("claims") == 0


def test_an_invited_game_has_nobody_late(alice: Player, bob: Player) -> None:
    game = create_game(alice, name="pending")
    alice.sync()
    bob.sync()
    with pytest.raises(HexpostError, match="invitation not accepted"):
        claims.make_claim(bob.replica, game, LATE)


# --- sending and receiving --------------------------------------------------------------------


def test_the_other_home_takes_a_claim_in_through_a_folder_sync(
    tmp_path: Path, game: bytes, players: dict[str, Player]
) -> None:
    claimant, late = _waiting(players, game)
    folder = tmp_path / "shared"
    folder.mkdir()
    for player in players.values():
        player.transport = FolderTransport(folder)  # type: ignore[assignment]
    before = _fingerprint(late, game)
    made = claims.make_claim(claimant.replica, game, LATE, note="tick tock")
    seq = made.body.head_seq

    report = claimant.sync()
    assert report.failed == [] and seq in report.sent
    files = [p for p in folder.iterdir() if p.read_bytes() == made.data]
    assert [p.name for p in files] == [
        f"hexpost-{game.hex()}-{seq:08d}-{made.claim_id.hex()[:16]}.hxp"
    ]

    received = late.sync().received
    claimed = [o for o in received if o.status == "claim"]
    assert len(claimed) == 1, received
    outcome = claimed[0]
    assert (outcome.game_id, outcome.seq) == (game, seq)
    for needle in (
        "game wind",
        f"{made.body.seat} says {made.body.late} has owed the move at packet {seq}",
        f"(step {made.body.step})",
        f"since {made.body.waiting_since}",
        "note: tick tock",
    ):
        assert needle in outcome.detail, (needle, outcome.detail)
    kept = late.replica.store.all(
        "SELECT claim_id, data, mine FROM claims WHERE game_id = ?", (game,)
    )
    assert kept == [(made.claim_id, made.data, 0)]
    assert _fingerprint(late, game) == before
    names = {"coalition": "Alice", "alliance": "Bob"}
    line = f"late claim: {names[made.body.late]} owes {made.body.step} since 2030-01-01"
    for player in players.values():
        state = player.replica.state(game)
        assert claims.open_claim_line(player.replica.store, game, state) == line

    # Read again (the claimant's own file, the same file once more): kept once.
    assert [o.status for o in claimant.sync().received if o.status == "claim"] == []
    assert claimant.count("claims", game) == late.count("claims", game) == 1
    again = late.replica.receive(made.data, source="again", now=now())
    assert again.status == "duplicate"

    # The late seat moves: the claim is closed but stays in the log.
    late.replica.submit(game, [{"type": "note", "text": "sorry, here"}], now=now())
    exchange(late, claimant)
    for player in players.values():
        state = player.replica.state(game)
        assert claims.open_claim_line(player.replica.store, game, state) is None
        assert [c.claim_id for c in claims.claims_of(player.replica.store, game)] == [made.claim_id]


def test_a_claim_verifies_as_a_copy_of_an_email(game: bytes, players: dict[str, Player]) -> None:
    claimant, late = _waiting(players, game)
    made = claims.make_claim(claimant.replica, game, LATE)
    store = late.replica.store
    assert inbox.verdict(store, made.data) == "verified"
    broken = made.data[:-1] + bytes([made.data[-1] ^ 1])
    assert inbox.verdict(store, broken) == "bad"
    assert inbox.pick_copy(store, broken, [made.data]) == made.data
    stranger = sign_claim(_honest_body(claimant, game, game_id=bytes(16)), _key(claimant))
    assert inbox.verdict(store, stranger) == "unknown key"


def test_push_and_the_mail_transport_send_a_claim_unchanged(
    tmp_path: Path, game: bytes, players: dict[str, Player]
) -> None:
    claimant, late = _waiting(players, game)
    made = claims.make_claim(claimant.replica, game, LATE)
    (entry,) = [e for e in outbox.unsent(claimant.replica.store) if e.packet_id == made.claim_id]
    packet = outgoing(claimant.replica, entry)
    assert (packet.data, packet.seq, packet.packet_id, packet.to) == (
        made.data,
        made.body.head_seq,
        made.claim_id,
        (late.address,),
    )
    raw = build_message(
        packet,
        sender=claimant.address,
        subject=packet.subject,
        message_id="<claim@example.org>",
        date=datetime(2030, 1, 5, tzinfo=UTC),
        summary=packet.summary,
    )
    parsed = email.message_from_bytes(raw)
    parts = [p for p in parsed.walk() if isinstance(p, Message) and p.get_filename()]
    assert [p.get_payload(decode=True) for p in parts] == [made.data]
    assert "late claim" in str(parsed["Subject"])

    sent, failed, _ = asyncio.run(push(claimant.replica, FolderTransport(tmp_path / "out"), now))
    assert failed == [] and made.body.head_seq in sent
    assert made.data in [p.read_bytes() for p in (tmp_path / "out").iterdir()]
    assert outbox.unsent(claimant.replica.store, game) == []


# --- claims that do not hold ----------------------------------------------------------------------


def test_received_claims_that_do_not_hold_are_refused(
    tmp_path: Path, alice: Player, bob: Player, game: bytes, players: dict[str, Player]
) -> None:
    claimant, late = _waiting(players, game)
    before = _fingerprint(late, game)
    rejected = late.count("rejected")
    other = start_game(alice, bob, setup=False)  # same players and keys, another game

    def refused(data: bytes, status: str, *needles: str) -> None:
        outcome = late.replica.receive(data, source="hostile", now=now())
        assert outcome.status == status, outcome
        for needle in needles:
            assert needle in outcome.detail, (needle, outcome.detail)

    honest = _honest_body(claimant, game)
    seat_key = _key(claimant)
    refused(
        sign_claim(honest, generate_identity()),
        "rejected",
        f"late claim by {honest.seat} at packet {honest.head_seq} of wind refused",
        "not signed by the key bound to its seat",
    )
    # The seat that owes the move says the other one is late (signed with its own key).
    turned = msgspec.structs.replace(honest, seat=honest.late, late=honest.seat)
    refused(
        sign_claim(turned, _key(late)),
        "rejected",
        f"{honest.late} owed the move, not {honest.seat}",
    )
    refused(
        sign_claim(msgspec.structs.replace(honest, game_id=bytes(16)), seat_key),
        "ignored",
        "does not hold",
    )
    refused(
        sign_claim(msgspec.structs.replace(honest, game_id=other, head_seq=1), seat_key),
        "rejected",
        "that is not this game's",
    )
    refused(
        sign_claim(msgspec.structs.replace(honest, claimed_at=EARLY), seat_key),
        "rejected",
        "by its own clock the reply window had not passed",
    )
    refused(
        sign_claim(msgspec.structs.replace(honest, step="9Z9", key="9Z9"), seat_key),
        "rejected",
        "it names step 9Z9",
    )
    refused(
        sign_claim(msgspec.structs.replace(honest, window_hours=1), seat_key),
        "rejected",
        "reply window of 1 hours; the game's is 72",
    )
    refused(
        sign_claim(msgspec.structs.replace(honest, late="nobody"), seat_key),
        "rejected",
        "does not have ('nobody')",
    )
    oversized = msgspec.msgpack.encode(
        ClaimEnvelope(1, b"\x00" * 8, b"\x00" * 64, b"\x00" * MAX_CLAIM_SIZE)
    )
    refused(oversized, "rejected", f"larger than {MAX_CLAIM_SIZE}")

    genuine = sign_claim(honest, seat_key)
    for index in range(len(genuine)):
        changed = genuine[:index] + bytes([genuine[index] ^ 0x01]) + genuine[index + 1 :]
        outcome = late.replica.receive(changed, source="flip", now=now())
        assert outcome.status in ("rejected", "ignored"), (index, outcome)

    assert late.count("claims") == 0
    assert _fingerprint(late, game) == before
    assert late.count("rejected") > rejected
    assert late.replica.receive(genuine, source="t", now=now()).status == "claim"


def test_claims_kept_per_game_are_bounded(game: bytes, players: dict[str, Player]) -> None:
    claimant, late = _waiting(players, game)
    key = _key(claimant)
    first = None
    for day in range(claims.MAX_CLAIMS_PER_GAME + 5):
        stamp = f"2030-02-{1 + day // 24:02d}T{day % 24:02d}:00:00Z"
        data = sign_claim(_honest_body(claimant, game, claimed_at=stamp), key)
        first = first or data
        assert late.replica.receive(data, source="t", now=stamp).status == "claim"
    kept = claims.claims_of(late.replica.store, game)
    assert len(kept) == claims.MAX_CLAIMS_PER_GAME
    assert first not in [c.data for c in kept], "the oldest go first"


# --- in an archive ----------------------------------------------------------------------------


def test_export_and_import_carry_the_claims(
    tmp_path: Path, game: bytes, players: dict[str, Player]
) -> None:
    claimant, _ = _waiting(players, game)
    made = claims.make_claim(claimant.replica, game, LATE)
    data = export_game(claimant.replica, game, public=True)
    archive = msgspec.msgpack.decode(data, type=Archive)
    assert [c.data for c in archive.claims] == [made.data]

    home = Home(tmp_path / "third")
    try:
        replica = home.replica()
        import_game(replica, data, now=now())
        assert [(c.claim_id, c.mine) for c in claims.claims_of(replica.store, game)] == [
            (made.claim_id, True)
        ]
    finally:
        home.close()

    forged = sign_claim(msgspec.structs.replace(made.body, late="nobody"), generate_identity())
    tampered = msgspec.structs.replace(
        archive, claims=[msgspec.structs.replace(archive.claims[0], data=forged)]
    )
    home = Home(tmp_path / "fourth")
    try:
        replica = home.replica()
        with pytest.raises(HexpostError, match=r"archive claim 1: .*not signed by the key"):
            import_game(replica, msgspec.msgpack.encode(tampered), now=now())
        assert replica.games() == []
    finally:
        home.close()
