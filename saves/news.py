"""What arrived in a game and what it waits for, read from the store for sync and the lists.

`engine.core.news` does the summarizing; this module only finds its input: the packets a sync
applied (`arrivals`, from the sync's outcomes) or the packets the player has not looked at yet
(`unread_news`, for a game being opened), with the seat that wrote each, the events each
caused, and the ruleset face's own wording of them when it has one. `waits` says who the game
waits for and for what, by the player's name, for the games list and the line under a sync.

Reading is bounded by what is asked: the events of the packets named, never the whole log.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from engine.core import pace
from engine.core.errors import VersionError
from engine.core.face import headline_of
from engine.core.news import Headline, News, summarize
from engine.core.packets import kept_body
from engine.core.ruleset import Decision, DecisionKind, Event, Seat
from saves import ledger, store_games
from saves.acceptance import carried_next
from saves.outcome import Outcome
from saves.reading import Reader
from saves.registry import face_for
from saves.store_games import GameRow


class Waits(msgspec.Struct, frozen=True):
    """Who the game waits for and for what: ``seat`` and its player's name (``who``),
    ``mine`` when it is this home's seat, the step and the words for what is owed."""

    seat: Seat
    who: str
    mine: bool
    step: str
    kind: str
    what: str


class GameNews(msgspec.Struct, frozen=True):
    """What arrived in one game (``news``), with the player names of its seats, and what the
    game waits for now."""

    game: str
    name: str
    my_seat: Seat
    news: News
    names: dict[str, str]
    """Each seat's player name, as the game binds it (the seat itself when it has none)."""
    waits: Waits | None


def what_is_owed(decision: Decision) -> str:
    """A pending decision in a player's words: the step and its title, or what the protocol
    asks (a reveal, dice, a join)."""
    title = f" {decision.title}" if decision.title else ""
    if decision.kind == DecisionKind.REVEAL:
        return f"reveal for {decision.step}{title}"
    if decision.kind == DecisionKind.ENTROPY:
        return f"dice for {decision.step} (an automatic reply)"
    if decision.kind == DecisionKind.JOIN:
        return "join the game"
    if decision.kind == DecisionKind.ACCEPT:
        return "accept the key that joined"
    if decision.kind == DecisionKind.SECRET:
        return f"secret choice {decision.step}{title}"
    return f"{decision.step}{title}"


def seat_names(state: Any) -> dict[str, str]:
    """Each seat's player name in ``state`` (its seat name when the player gave none)."""
    return {seat.seat: seat.name or seat.seat for seat in state.core.seats}


def waits(decisions: list[Decision], my_seat: Seat, names: dict[str, str]) -> Waits | None:
    """The first pending decision as `Waits`, or None when nothing is owed (game over)."""
    if not decisions:
        return None
    first = decisions[0]
    seat = first.seats[0]
    return Waits(
        seat,
        names.get(seat, seat),
        seat == my_seat,
        first.step,
        first.kind.value,
        what_is_owed(first),
    )


def waits_words(owed: Waits | None) -> str:
    """``waits for you: 3B3 Reaction movement`` or ``waits for Bob (alliance): 2B Build``."""
    if owed is None:
        return "waits for nobody: the game is over"
    who = "you" if owed.mine else f"{owed.who} ({owed.seat})" if owed.who != owed.seat else owed.who
    return f"waits for {who}: {owed.what}"


def headline_for(ruleset_id: str) -> Headline | None:
    """The ruleset face's wording of its events, or None (the plain wording)."""
    try:
        return headline_of(face_for(ruleset_id))
    except VersionError:
        return None


def game_news(reader: Reader, row: GameRow, packets: list[tuple[int, str]]) -> GameNews:
    """The news of ``packets`` (``(seq, seat)`` in chain order) of the game ``row``."""
    state = reader.state(row.game_id)
    names = seat_names(state)
    grouped: list[tuple[Seat, list[Event]]] = []
    if packets:
        first, last = packets[0][0], packets[-1][0]
        by_seq: dict[int, list[Event]] = {seq: [] for seq, _ in packets}
        for seq, data in store_games.events_between(reader.store, row.game_id, first, last):
            if seq in by_seq:
                by_seq[seq].append(ledger.EVENT_DECODER.decode(data))
        grouped = [(seat, by_seq[seq]) for seq, seat in packets]
    news = summarize(grouped, headline_for(row.ruleset))
    decisions = reader.pending(row.game_id)
    if carried_next(reader, row, state, decisions):
        decisions = decisions[1:]  # (the player's next move: its packet carries the acceptance)
    owed = waits(decisions, row.my_seat, names)
    return GameNews(row.game_id.hex(), row.name, row.my_seat, news, names, owed)


def arrivals(
    reader: Reader, outcomes: Iterable[Outcome], replies: Iterable[tuple[bytes, int]] = ()
) -> list[GameNews]:
    """What a sync's received packets did, one `GameNews` per game they advanced, in the
    order the games first came: the packets each outcome applied (a packet and the buffered
    ones it released), with their authors as the store records them; and the automatic
    replies the sync wrote (``replies``: game, sequence number), under this home's seat."""
    applied: dict[bytes, set[int]] = {}
    for outcome in outcomes:
        if outcome.game_id is not None and outcome.applied:
            applied.setdefault(outcome.game_id, set()).update(outcome.applied)
    for game_id, seq in replies:
        applied.setdefault(game_id, set()).add(seq)
    found: list[GameNews] = []
    for game_id, seqs in applied.items():
        row = reader.game(game_id)
        if row.status != "active":
            continue  # an invitation says itself; its genesis is no news
        seats = store_games.packet_seats(reader.store, game_id, min(seqs), max(seqs))
        found.append(game_news(reader, row, [(seq, seat) for seq, seat in seats if seq in seqs]))
    return found


def unread_news(reader: Reader, row: GameRow) -> GameNews:
    """What the other seats did that this home has not looked at yet (the games list's
    unread packets), with the automatic replies this home wrote since the first of them
    (`own_replies`: a round fought in its own reveal or dice is news to its player too),
    and what the game waits for."""
    packets = (
        store_games.latest_not_by(reader.store, row.game_id, row.my_seat, row.unread)
        if row.unread > 0
        else []
    )
    if packets:
        packets = sorted([*packets, *own_replies(reader, row, packets[0][0])])
    return game_news(reader, row, packets)


REPLIES_READ = 50
"""Own packets read for `own_replies` at most (the latest): a bound on the work of a news
line, however long a game went on unlooked at."""


def own_replies(reader: Reader, row: GameRow, after: int) -> list[tuple[int, str]]:
    """``(seq, seat)`` of the automatic replies (`engine.core.pace.automatic`: an entropy
    value, reveals alone) this home wrote after packet ``after``."""
    since = store_games.packet_seats(reader.store, row.game_id, after + 1, row.head_seq)
    mine = [(seq, seat) for seq, seat in since if seat == row.my_seat][-REPLIES_READ:]
    found = []
    for seq, seat in mine:
        data = store_games.packet_data(reader.store, row.game_id, seq)
        if data is not None and pace.automatic(kept_body(data)[1]):
            found.append((seq, seat))
    return found
