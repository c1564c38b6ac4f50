"""One game as it stands (or stood after a given packet): the record behind ``hexpost show``.

`show` builds the `ShowRecord` that ``hexpost show --json`` prints (through `show_builtins`),
the app's game screen draws and the review steps through, so the three cannot drift apart.
Everything in it is typed: what the ruleset says of the game comes from its face
(`engine.core.face`: summary, board, the choices this seat has now, the checklist). The JSON
of ``hexpost show`` adds, at its top level, what the ruleset's client code adds
(`tui.rulesets`; F&E keeps its empires, units, hexes and battles there).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from engine.core.face import Board, Choice, Face, Summary
from engine.core.owed import pending
from engine.core.packets import fingerprint
from engine.core.ruleset import Decision, Event, OptionValue
from engine.core.state import AnyState, state_hash
from engine.core.turn_orders import TURN_ORDER_TYPES
from saves import claims, joins, outbox, seat_key
from saves.registry import face_for
from saves.replica import GameRow, Replica
from tui.services.board import QuickBoard
from tui.services.games import TurnRecord, attention_notes, ended_words
from tui.services.jsonform import json_form
from tui.services.log import EventRow, event_rows


class SeatRecord(msgspec.Struct, frozen=True):
    """One seat of the game; ``fingerprint`` is None until its player joined."""

    seat: str
    name: str
    address: str
    fingerprint: str | None


class DecisionRecord(msgspec.Struct, frozen=True):
    """A decision the game waits for: who owes it, at which step, of what kind."""

    seats: tuple[str, ...]
    step: str
    kind: str
    key: str
    title: str
    rules: tuple[str, ...]


class RollRecord(msgspec.Struct, frozen=True):
    """A die roll resolved in the game (`engine.core.rolls`): who asked, why, and the dice."""

    seq: int
    seat: str
    step: str
    event: str
    purpose: str
    count: int
    sides: int
    dice: tuple[int, ...]
    total: int


class UnsentRecord(msgspec.Struct, frozen=True):
    """One of this home's packets still in the outbox, with why it has not left yet."""

    seq: int
    attempts: int
    last_error: str | None
    next_attempt: str | None
    text: str


class ChecklistLine(msgspec.Struct, frozen=True):
    """One step of the sequence of play as the checklist shows it."""

    step: str
    title: str
    phase: str
    actor: str
    kind: str
    rules: tuple[str, ...]
    status: str
    """``done``, ``current``, ``todo`` or ``skipped``."""
    phase_title: str = ""
    phase_rule: str = ""
    standing: tuple[str, ...] = ()
    """The seats whose standing order completes this step for them (none: empty)."""
    headings: tuple[tuple[str, str], ...] = ()
    """The groups enclosing the step, outermost first, as (id, title)."""
    obsolete: bool = False
    """A step the rules no longer use (shown skipped), which no standing order covers."""
    policy: tuple[str, ...] = ()
    """The seats whose signed policy answers their part of this step as a rule (none: empty)."""
    policy_order: str = ""
    """The order that signs a policy able to answer this step ("" when none can)."""
    orders: tuple[str, ...] = ()
    """The order types the step takes besides ``done``."""


class ShowRecord(msgspec.Struct, frozen=True, omit_defaults=True):
    """A game at one position. Every field is always there except ``checklist`` (only when
    asked for, and only once the game has begun); ``extras`` (the ruleset client's own keys)
    are spliced into the top level of the JSON by `show_builtins`."""

    game: str
    name: str
    ruleset: str
    scenario: str
    options: dict[str, OptionValue]
    my_seat: str
    status: str
    seq: int
    state_hash: str
    seats: tuple[SeatRecord, ...]
    turn: TurnRecord | None
    part: str
    phasing: str | None
    step: str | None
    step_title: str | None
    waiting_for: tuple[str, ...]
    pending: tuple[DecisionRecord, ...]
    frozen: str | None
    over: bool
    ended: str
    """How the game ended, as `hexpost games` words it (``over: Bob resigned``), or ""."""
    resign_asked: str
    """When this seat asked to resign on its next move (`saves.resigning.queue`), or ""."""
    rolls: tuple[RollRecord, ...]
    unsent: tuple[UnsentRecord, ...]
    claim: str | None
    notes: tuple[str, ...]
    summary: Summary | None
    """The ruleset's own summary (None before the game has begun)."""
    board: Board | None
    """The board now, typed (None for a game without one or not begun)."""
    choices: tuple[Choice, ...]
    """The orders this home's seat may give now, with their parameters and menus."""
    extras: dict[str, Any]
    """What the ruleset's client code adds to the JSON (`tui.rulesets`)."""
    checklist: tuple[ChecklistLine, ...] | None = None
    plays: bool = True
    """False in an imported copy of a seat this home does not hold the key of
    (`saves.seat_key`): it shows the game and cannot play in it (in the JSON only then)."""

    @property
    def owed_step(self) -> str | None:
        """The step this home's seat owes now, if the first pending decision is its own (never
        in a copy that cannot play, `plays`)."""
        if self.plays and self.pending and self.my_seat in self.pending[0].seats:
            return self.pending[0].step
        return None


def decision_record(decision: Decision) -> DecisionRecord:
    return DecisionRecord(
        seats=tuple(decision.seats),
        step=decision.step,
        kind=decision.kind.value,
        key=decision.key,
        title=decision.title,
        rules=tuple(decision.rules),
    )


def unsent_records(replica: Replica, game_id: bytes) -> tuple[UnsentRecord, ...]:
    """The game's packets still in the outbox: attempts, last error, next try, in words."""
    return tuple(
        UnsentRecord(
            seq=entry.seq,
            attempts=entry.attempts,
            last_error=entry.last_error,
            next_attempt=entry.next_attempt,
            text=outbox.waiting_text(entry),
        )
        for entry in outbox.waiting(replica.store, game_id)
    )


def checklist_lines(face: Face[Any], rules: Any) -> tuple[ChecklistLine, ...] | None:
    """The sequence of play as a checklist; None before the game has begun or for a ruleset
    without one."""
    if rules is None:
        return None
    items = face.checklist(rules)
    if not items:
        return None
    return tuple(
        ChecklistLine(
            step=item.step,
            title=item.title,
            phase=item.phase,
            actor=item.actor.value,
            kind=item.kind.value,
            rules=tuple(item.rules),
            status=item.status,
            phase_title=item.phase_title,
            phase_rule=item.phase_rule,
            standing=tuple(item.standing),
            headings=tuple(item.headings),
            obsolete=item.obsolete,
            policy=tuple(item.policy),
            policy_order=item.policy_order,
            orders=tuple(item.orders),
        )
        for item in items
    )


def turn_record(summary: Summary | None) -> TurnRecord | None:
    if summary is None:
        return None
    return TurnRecord(summary.turn, summary.turn_label, summary.turn_tag)


def _roll(seq: int, seat: str, step: str, data: dict[str, Any]) -> RollRecord:
    return RollRecord(
        seq=seq,
        seat=seat,
        step=step,
        event=str(data.get("event", "")),
        purpose=str(data.get("purpose", "")),
        count=int(data.get("count", 0)),
        sides=int(data.get("sides", 0)),
        dice=tuple(int(d) for d in data.get("dice", ())),
        total=int(data.get("total", 0)),
    )


def show(
    replica: Replica,
    row: GameRow,
    *,
    at: int | None,
    checklist: bool,
    extras: bool = True,
    quick: bool = False,
    events: Sequence[tuple[int, Event]] | None = None,
    hashed: bool = True,
    state: AnyState | None = None,
    choices: bool = True,
) -> ShowRecord:
    """The game after packet ``at`` (None: as it stands now, with its claim and notes), with
    the sequence-of-play checklist when ``checklist``, and the ruleset client's ``extras``
    (``show --json``'s top-level keys) unless told not to: the game screen never shows them,
    and F&E's work out every unit's supply a second time (issue 16). ``quick``: the face's
    quick board where it has one (`tui.services.board.QuickBoard`), for a first paint.
    ``events``: the game's events as the caller has just read them (every one; the rolls
    are those up to packet ``at``), not read again. Not ``hashed``: ``state_hash`` is left
    empty, for a record that shows none (the game screen; `game_view`). ``state``: the
    game's state after packet ``at`` where the caller has it (`Reader.states`). Without
    ``choices`` the orders the seat may give are left out (the review shows none, and a
    step's menus are worked out from the board: 10-15 ms for F&E's conversions at 2B3)."""
    ruleset = replica.ruleset(row.game_id)
    if state is None:
        state = replica.state(row.game_id, at)
    core = state.core
    decisions = pending(ruleset, state)
    owed = decisions
    if at is None and joins.carried_next(replica, row, state, decisions):
        owed = decisions[1:]  # (the player's next move: its packet carries the acceptance)
    face = face_for(row.ruleset)
    rules = state.rules
    summary = face.summary(rules) if rules is not None else None
    rolls = tuple(
        _roll(seq, event.seat, event.step, event.data)
        for seq, event in (replica.events(row.game_id, core.seq) if events is None else events)
        if event.kind == "roll" and seq <= core.seq
    )
    lines = checklist_lines(face, rules) if checklist else None
    over = bool(core.resigned) or (summary is not None and summary.over)
    return ShowRecord(
        game=row.game_id.hex(),
        name=row.name,
        ruleset=f"{core.ruleset_id}/{core.ruleset_version}",
        scenario=core.scenario_id,
        options=dict(core.options),
        my_seat=row.my_seat,
        status=row.status,
        seq=core.seq,
        state_hash=state_hash(state).hex() if hashed else "",
        seats=tuple(
            SeatRecord(
                seat=seat.seat,
                name=seat.name,
                address=seat.address,
                fingerprint=fingerprint(seat.public_key) if seat.joined else None,
            )
            for seat in core.seats
        ),
        turn=turn_record(summary),
        part=summary.part if summary is not None else "",
        phasing=summary.phasing if summary is not None else None,
        step=summary.step if summary is not None else None,
        step_title=summary.step_title if summary is not None else None,
        waiting_for=tuple(owed[0].seats) if owed else (),
        pending=tuple(decision_record(d) for d in owed),
        frozen=row.frozen,
        over=over,
        ended=ended_words(state, over=over),
        resign_asked=row.resign_at if at is None and not over else "",
        rolls=rolls,
        unsent=unsent_records(replica, row.game_id),
        claim=claims.open_claim_line(replica.store, row.game_id, state) if at is None else None,
        notes=tuple(attention_notes(replica, row, state, decisions)) if at is None else (),
        summary=summary,
        board=_board(face, rules, quick=quick) if rules is not None else None,
        choices=face.choices(rules, row.my_seat) if rules is not None and choices else (),
        extras=_extras(row.ruleset, rules) if extras else {},
        checklist=lines,
        plays=seat_key.foreign_seat(replica.identity, row, state) is None,
    )


def _extras(ruleset: str, rules: Any) -> dict[str, Any]:
    """The ruleset client's top-level keys of ``show --json``; its module is imported here,
    as the game screen (which asks for none) opens without it (issue 16)."""
    from tui.rulesets import client_for

    return client_for(ruleset).record_extras(rules)


def _board(face: Face[Any], rules: Any, *, quick: bool) -> Board | None:
    quick_face = quick_board_of(face) if quick else None
    return quick_face.quick_board(rules) if quick_face is not None else face.board(rules)


def quick_board_of(face: object) -> QuickBoard | None:
    """``face`` where it gives a quick board (`tui.services.board.QuickBoard`), else None."""
    return face if isinstance(face, QuickBoard) else None


def show_builtins(record: ShowRecord) -> dict[str, Any]:
    """The record as ``hexpost show --json`` prints it (`tui.services.jsonform`), with the
    ruleset client's ``extras`` at the top level in place of the ``extras`` key, and no
    ``checklist`` key unless one was built."""
    out: dict[str, Any] = {}
    for key, value in json_form(msgspec.structs.replace(record, extras={})).items():
        if key == "extras":
            out.update(json_form(record.extras))
        else:
            out[key] = value
    return out


class GameView(msgspec.Struct, frozen=True):
    """A game as a game screen shows it: the record (with the checklist, whose lines carry
    their phase titles, and the board), its events, and the order types the pending step takes
    besides the ones every step takes (``done``, ``note``, ``adjust``...)."""

    show: ShowRecord
    events: tuple[EventRow, ...]
    step_orders: tuple[str, ...] = ()
    news: tuple[str, ...] = ()
    """What the other seats did since the player last looked, in words, and what the game
    waits for (`tui.services.news`); empty when nothing new arrived."""
    news_line: str = ""
    """The same in one line, for a status line (`tui.services.news.news_line`)."""
    board_later: bool = False
    """The record's board is the face's quick board: the whole one is still to be read
    (`tui.services.board.current_board`)."""


def game_view(
    replica: Replica, game_id: bytes, *, mark_read: bool, quick: bool = False
) -> GameView:
    """``game_id`` as it stands; ``mark_read``: the player has now seen its new packets
    (their summary is read first, into ``news``); ``quick``: with the face's quick board,
    where it has one (a first paint; the whole board is read after it)."""
    from saves.news import unread_news
    from tui.services.news import news_line, news_lines

    row = replica.game(game_id)
    # The events read once, for the record's rolls and the log; the screen shows no state
    # hash (the review and ``show`` do): neither is worked out before its first paint.
    read = replica.events(row.game_id)
    record = show(
        replica, row, at=None, checklist=True, extras=False, quick=quick, events=read, hashed=False
    )
    later = quick and quick_board_of(face_for(row.ruleset)) is not None and record.board is not None
    events = tuple(event_rows(replica, row.game_id, read))
    unread = unread_news(replica, row) if row.unread and row.status == "active" else None
    news = tuple(news_lines(unread)) if unread is not None else ()
    line = news_line(unread) if unread is not None and news else ""
    if mark_read:
        replica.mark_read(row.game_id)
    return GameView(record, events, step_orders(record.choices), news, line, board_later=later)


EVERY_STEP_ORDERS = frozenset({*TURN_ORDER_TYPES, "adjust", "secret"})
"""Orders the orders panel always offers; `step_orders` names the others."""


def step_orders(choices: tuple[Choice, ...]) -> tuple[str, ...]:
    """The order types this step takes besides ``done``, ``note``, ``adjust`` and the other
    orders the panel always offers (``move`` and ``batch`` at F&E's 3B2...)."""
    return tuple(c.order for c in choices if c.order not in EVERY_STEP_ORDERS)
