"""Automatic replies: the packets a home writes without its player, after a pull.

What needs no decision is answered at once: this seat's entropy for a roll another seat
armed, and the reveal of a choice this seat committed earlier (it is bound already). Both can
only be what they are, so writing them costs the other player no wait for a person. So is a
decision the player made before it was owed: a resignation asked for off their move
(`saves.resigning`), signed as soon as the move is theirs.
"""

from __future__ import annotations

from engine.core import author, pace
from engine.core.errors import HexpostError, RulesError
from engine.core.owed import pending
from engine.core.packets import EntropyOnly, Turn, kept_body
from engine.core.ruleset import DecisionKind
from saves import behind, resigning, store_backup, store_games, store_keys, vault
from saves.registry import ruleset_for
from saves.secrets import owed_reveals
from saves.signing import Signer
from saves.store_games import GameRow


def auto_replies(replica: Signer, now: str) -> tuple[list[tuple[bytes, int]], list[str]]:
    """Answer at once what needs no decision: entropy for a roll, the reveal of a commitment.

    Runs after a whole pull, never in the middle of one, so a home restored from an old
    backup first catches up with the packets it already signed instead of signing new,
    conflicting ones. Games this home cannot sign for (an imported public archive, or
    another player's game) are skipped, and a game whose reply fails (say its kept secret
    was damaged) is reported, so neither stops the other games' replies. Returns the
    ``(game, seq)`` of every packet written and one line per problem.
    """
    if replica.identity is None or replica.identity.key is None:
        return [], []
    copied = store_backup.copy_taken_at(replica.store)  # (a copy signs nothing: `saves.behind`)
    written: list[tuple[bytes, int]] = []
    problems: list[str] = []
    for row in replica.playable_games():
        if row.status != "active" or row.frozen or replica.has_buffered_own(row):
            continue
        if behind.first_ahead(replica.store, row.game_id, row.head_seq) is not None:
            continue  # (behind the game: it signs nothing there, `saves.behind`)
        try:
            if not _signs_for(replica, row):
                continue
            if copied is not None:
                if _owes_reply(replica, row):
                    why = behind.unconfirmed_text(copied)
                    problems.append(f"{row.name}: no automatic reply written: {why}")
                continue
            written.extend(_reply(replica, row, now))
        except HexpostError as exc:
            problems.append(f"{row.name}: no automatic reply written: {exc}")
    return written, problems


MAX_AUTOMATIC_RUN = 100
"""Automatic replies in a row, from both homes, after which this home writes no more: the
game's rules have run that long with nobody deciding anything. A battle fought by both
sides' policies takes one of them per twenty rounds or so (`engine.core.rolls`), so a run
this long is a loop the rules never end (F&E before 5.6 had one: a battle at an undefended
planet, `engine.fe.steps.combat_policy.STALLED_ROUNDS`); left to itself, the two homes would
mail each other until a seat's entropy chain ran out and the game could never go on."""


def _runaway_text() -> str:
    return (
        f"the game's last {MAX_AUTOMATIC_RUN} packets were all automatic replies (dice, "
        "reveals), with nobody deciding anything: its rules seem caught in a loop that never "
        "asks a player. This home writes no more of them: report it, with the game from "
        "`hexpost export GAME -o FILE --public`"
    )


def _runaway(replica: Signer, game_id: bytes, head: int) -> bool:
    """Whether the game's last `MAX_AUTOMATIC_RUN` packets up to ``head`` are all automatic
    replies (read newest first: an ordinary game stops at its first packet)."""
    first = head - MAX_AUTOMATIC_RUN + 1
    if first < 1:
        return False
    for seq in range(head, first - 1, -1):
        data = store_games.packet_data(replica.store, game_id, seq)
        if data is None or not pace.automatic(kept_body(data)[1]):
            return False
    return True


def _owes_reply(replica: Signer, row: GameRow) -> bool:
    """Whether the game waits for an automatic packet of this home's seat now."""
    if resigning.due(replica, row):
        return True
    decisions = pending(ruleset_for(row.ruleset), replica.state(row.game_id))
    return (
        bool(decisions)
        and decisions[0].seats[0] == row.my_seat
        and decisions[0].kind
        in (
            DecisionKind.ENTROPY,
            DecisionKind.REVEAL,
        )
    )


def _reply(replica: Signer, row: GameRow, now: str) -> list[tuple[bytes, int]]:
    """The automatic packets one game owes now (each stored in its own transaction)."""
    written: list[tuple[bytes, int]] = []
    ruleset = ruleset_for(row.ruleset)
    while True:
        state = replica.state(row.game_id)
        decisions = pending(ruleset, state)
        if not decisions or decisions[0].seats[0] != row.my_seat:
            break
        if decisions[0].kind not in (DecisionKind.ENTROPY, DecisionKind.REVEAL):
            break
        if _runaway(replica, row.game_id, state.core.seq):
            raise RulesError(_runaway_text())  # (reported, as any reply that cannot be written)
        reveals = owed_reveals(
            replica.store, row.game_id, ruleset, state, row.my_seat, replica.signing_key()
        )
        body = author.new_body(
            ruleset,
            state,
            game_id=row.game_id,
            seat=row.my_seat,
            kind=Turn() if reveals else EntropyOnly(),
            entropy_value=replica.next_value(row.game_id, state, row.my_seat),
            reveals=reveals,
            written_at=now,
        )
        packet, _ = replica.sign_and_store(ruleset, state, body, automatic=True, now=now)
        written.append((row.game_id, packet.body.seq))
    resigned = resigning.sign_due(replica, row, now)  # once any reply of ours went first
    if resigned is not None:
        written.append((row.game_id, resigned.seq))
    return written


def _signs_for(replica: Signer, row: GameRow) -> bool:
    """Whether this home holds the key bound to its seat in the game, and the seat's seed."""
    me = replica.me()
    seat = replica.state(row.game_id).core.seat_state(row.my_seat)
    if seat.public_key != me.public_key:
        return False
    if me.key is not None:
        vault.seal_plain_rows(replica.store, me.key)  # rows an older version kept plain
    return store_keys.has_seed(replica.store, row.game_id, row.my_seat)
