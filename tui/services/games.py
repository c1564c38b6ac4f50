"""The games of a home: one summary per game, and what each needs from its player.

`summaries` is what ``hexpost games --json`` prints and the app's games list shows, so the
two read the same record (what each game waits for, from whom, in words: `saves.news.waits`);
`attention_notes` is the one wording of what a game needs beyond its next move (a joined key
to accept, a packet that came damaged), which `tui.services.show` repeats on a game's own page;
`home_notes` is what concerns every game at once (a backup copy not yet confirmed).
"""

from __future__ import annotations

import msgspec

from engine.core.errors import HexpostError, VersionError
from engine.core.owed import pending
from engine.core.ruleset import Decision, DecisionKind
from engine.core.state import AnyState
from saves import (
    behind,
    claims,
    drafts,
    invitations,
    joins,
    outbox,
    quarantine,
    seat_key,
    store_backup,
)
from saves.news import Waits, seat_names, waits, waits_words
from saves.registry import face_for
from saves.replica import GameRow, Replica


class TurnRecord(msgspec.Struct, frozen=True):
    """The turn as the ruleset names it: its number, its label, and a short tag."""

    number: int
    label: str
    tag: str


class GameSummary(msgspec.Struct, frozen=True, kw_only=True):
    """One game of the home in a line: who owes what since when, and what needs looking at.
    The fields with defaults are those the game's state tells (left so when this hexpost
    cannot read it: its ruleset is not installed)."""

    game: str
    name: str
    scenario: str
    my_seat: str
    status: str
    seq: int
    turn: TurnRecord | None = None
    """The turn as the ruleset names it, None before the start."""
    step: str | None = None
    waiting_for: tuple[str, ...] = ()
    since: str
    unread: int
    frozen: str | None
    unsent: int
    drafts: int = 0
    """Draft orders the app keeps for the game, not signed yet (`saves.drafts`)."""
    claim: str | None = None
    notes: tuple[str, ...] = ()
    waits: Waits | None = None
    """Who the game waits for (seat, player name, whether it is you) and for what, in words;
    None when it waits for nobody (`saves.news.waits`)."""
    waits_text: str = ""
    """The same in one line: ``waits for you: 3B3 Reaction movement``."""
    ended: str = ""
    """How the game ended, in words (empty while it goes on): ``over: Bob declined the
    invitation``, ``over: Ann resigned``, ``over`` for an end the rules reached."""
    archived: str = ""
    """When the player archived the game ("" when not): the list leaves it out while it
    needs nothing from them (`tucked`)."""


def summary(replica: Replica, row: GameRow) -> GameSummary:
    """``row`` as the games list shows it; a game whose ruleset this hexpost does not have
    (a plug-in uninstalled) as its row alone tells, with a note that says so."""
    listed = GameSummary(
        game=row.game_id.hex(),
        name=row.name,
        scenario=row.scenario,
        my_seat=row.my_seat,
        status=row.status,
        seq=row.head_seq,
        since=row.waiting_since,
        unread=row.unread,
        frozen=row.frozen,
        unsent=len(outbox.waiting(replica.store, row.game_id)),
        drafts=len(drafts.kept(replica.store, row.game_id)),
        archived=row.archived,
    )
    try:
        ruleset = replica.ruleset(row.game_id)
    except VersionError as exc:
        return msgspec.structs.replace(
            listed, notes=(f"{exc}: the game waits until hexpost can load it",)
        )
    try:
        state = replica.state(row.game_id)
        decisions = pending(ruleset, state)
    except HexpostError as exc:  # this game alone: the list goes on
        return msgspec.structs.replace(
            listed,
            notes=(f"cannot be read: {exc} (`hexpost verify {row.name}` checks the whole game)",),
        )
    facts = face_for(row.ruleset).summary(state.rules) if state.rules is not None else None
    notes = tuple(attention_notes(replica, row, state, decisions))
    if joins.carried_next(replica, row, state, decisions):
        decisions = decisions[1:]  # (the player's next move: its packet carries the acceptance)
    me = (
        "" if seat_key.foreign_seat(replica.identity, row, state) else row.my_seat
    )  # (not its move)
    owed = waits(decisions, me, seat_names(state))
    return msgspec.structs.replace(
        listed,
        turn=None if facts is None else TurnRecord(facts.turn, facts.turn_label, facts.turn_tag),
        step=decisions[0].step if decisions else None,
        waiting_for=tuple(decisions[0].seats) if decisions else (),
        claim=claims.open_claim_line(replica.store, row.game_id, state),
        notes=notes,
        waits=owed,
        waits_text=waits_words(owed) if decisions else "",
        ended=ended_words(state, over=facts is not None and facts.over),
    )


def ended_words(state: AnyState, *, over: bool) -> str:
    """How the game ended (`GameSummary.ended`): a seat that declined its invitation (the game
    never began) or resigned, by its player's name; empty while the game goes on."""
    seat = state.core.resigned
    if seat:
        who = seat_names(state).get(seat, seat)
        what = "declined the invitation" if state.rules is None else "resigned"
        return f"over: {who} {what}"
    return "over" if over else ""


def summaries(replica: Replica) -> list[GameSummary]:
    """Every game of the home: first those that need their player (`list_group`), then those
    waiting for another player, then the ended ones; the oldest first within each, so that a
    row moves only when whose move it is changes."""
    return sorted((summary(replica, row) for row in replica.games()), key=list_group)


def list_group(game: GameSummary) -> int:
    """Where ``game`` goes in the list: 0 when its player is to act (their move, an invitation
    to answer, a frozen game to look into), 1 while it waits for another player, 2 once it
    has ended."""
    if game.frozen or game.status == "invited" or (game.waits is not None and game.waits.mine):
        return 0
    return 2 if game.ended else 1


def tucked(game: GameSummary) -> bool:
    """Whether the games list leaves ``game`` out: archived, and needing nothing from its
    player (not their move, no invitation to answer, not frozen, nothing unread). So an
    archived game comes back by itself the moment it needs them, and goes again after."""
    return bool(game.archived) and list_group(game) != 0 and not game.unread


def shown(games: list[GameSummary], *, every: bool = False) -> tuple[list[GameSummary], int]:
    """The games the list shows (every one with ``every``), and how many it leaves out."""
    kept = games if every else [game for game in games if not tucked(game)]
    return kept, len(games) - len(kept)


def hidden_line(hidden: int, how: str) -> str:
    """The line under a list that leaves archived games out; ``how`` names what shows them."""
    games = "game" if hidden == 1 else "games"
    return f"{hidden} archived {games} not listed: {how} lists them too"


def archive(replica: Replica, row: GameRow, when: str, *, undo: bool = False) -> str:
    """Archive the game at ``when`` (or, ``undo``, bring it back to the list): what was
    done, in one line. Only this home's filing changes: nothing is signed or sent."""
    name = row.name
    if undo:
        if not row.archived:
            return f"{name} is not archived: nothing to do"
        replica.set_archived(row.game_id, "")
        return f"{name} is back in the games list"
    if row.archived:
        return f"{name} was archived already, at {row.archived}"
    replica.set_archived(row.game_id, when)
    listed = summary(replica, replica.game(row.game_id))
    if tucked(listed):
        return f"archived {name}: the games list leaves it out until it needs you"
    return f"archived {name}; it stays in the list while it needs you"


def home_notes(replica: Replica) -> tuple[str, ...]:
    """What the whole home needs from its player, one line each, shown above its games (what
    reading found damaged and rebuilt since the home was opened: `saves.store.Store.repairs`;
    a backup copy not yet confirmed: `saves.behind.copy_note`; an invitation held until this
    hexpost can play it: `saves.invitations.waiting_notes`)."""
    taken_at = store_backup.copy_taken_at(replica.store)
    copy = () if taken_at is None else (behind.copy_note(taken_at),)
    return tuple(replica.store.repairs) + copy + invitations.waiting_notes(replica.store)


def attention_notes(
    replica: Replica, row: GameRow, state: AnyState, decisions: list[Decision]
) -> list[str]:
    """What this game needs from the player beyond its next move, one line each: a joined key
    to accept (`saves.joins`), a packet whose last copy came damaged (`saves.quarantine`), a
    home behind the game on its own move (`saves.behind`), a resignation asked for and not
    signed yet (`saves.resigning`)."""
    notes: list[str] = []
    foreign = seat_key.foreign_seat(replica.identity, row, state)
    if foreign is not None:  # (an imported copy: nothing below is the player's to do)
        return [foreign]
    damage = quarantine.damage_ahead(replica.store, row.game_id, row.head_seq)
    if damage is not None:  # first: it says what to ask for, where "waiting" alone would not
        owing = decisions[0].seats[0] if decisions and damage.seq == row.head_seq + 1 else ""
        notes.append(quarantine.damage_text(damage, row.name, damage.seat or owing))
    ahead = behind.first_ahead(replica.store, row.game_id, row.head_seq)
    if ahead is not None and decisions and row.my_seat in decisions[0].seats:
        notes.append(behind.behind_text(row.name, row.head_seq, ahead, row.my_seat))
    taken_at = store_backup.copy_taken_at(replica.store)
    if taken_at is not None and decisions and row.my_seat in decisions[0].seats:
        notes.append(behind.unconfirmed_text(taken_at))
    if row.resign_at and decisions:
        notes.append(
            f"you asked to resign: signed on your next move (`hexpost resign {row.name} "
            "--cancel`, or R, takes it back)"
        )
    if decisions and decisions[0].kind == DecisionKind.ACCEPT:
        who = "; ".join(joins.describe(s) for s in joins.awaiting_any(state))
        if joins.carried_next(replica, row, state, decisions):
            notes.append(
                f"you accepted {who}: your next packet ({decisions[1].step}) carries the acceptance"
            )
        elif row.my_seat in decisions[0].seats:
            notes.append(
                f"{who} joined: compare the fingerprint with them, then "
                f"`hexpost accept {row.name}` (or `hexpost decline {row.name}`)"
            )
        else:
            notes.append(f"waiting for {decisions[0].seats[0]} to accept your key")
    return notes
