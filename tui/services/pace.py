"""A game's pace: where its weeks went, read from its chain alone.

By email a game's time goes in hand-offs, each an email round trip (`engine.core.pace`).
`pace_report` counts a stored game's hand-offs per part of play (a player turn, a round: the
ruleset's landmarks), tells those that waited for a player from those a hexpost answered
alone, times them by the stamps the writers put in their packets, and names the steps where
the players were waited for most: the steps where a standing order or a policy signed in
advance would save the most days.

Nothing is replayed: the packets are read as the store kept them and the parts found from
the events stored with them, so a months-long campaign is counted in the time its log takes.
The stamps are the writers' own clocks (informational, `engine.core.packets.Body.written_at`):
a stamp that does not read as a time leaves its wait out, and a stamp earlier than the one
before it (clocks that disagree) counts as no wait at all.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import Any, NamedTuple

import msgspec

from engine.core import pace
from engine.core.errors import VersionError
from engine.core.face import Face, past_steps_of
from engine.core.owed import JOIN_STEP
from engine.core.packets import kept_body
from saves.registry import face_for
from saves.replica import GameRow, Replica
from tui.when import stamp_seconds

STEPS_SHOWN = 8
"""The steps `PaceReport.steps` names: those that waited for a player most."""

FIRST_PART = "Start of the game"
"""What the packets before the first landmark (the genesis, the joins, a set-up) are called."""


class SeatPace(msgspec.Struct, frozen=True):
    """The hand-offs to one seat: how many its player answered and how many its hexpost did
    alone, with the waits the stamps tell (seconds; None when no wait could be timed)."""

    seat: str
    human: int
    machine: int
    human_timed: int
    """How many of the human hand-offs have a readable stamp on both sides."""
    human_median: int | None
    human_total: int
    machine_median: int | None


class PartPace(msgspec.Struct, frozen=True):
    """One part of play, from the packet after the one that opened it to the one that opened
    the next: its packets and the hand-offs whose first packet lies in it."""

    label: str
    first: int
    last: int
    packets: int
    human: int
    machine: int
    took: int | None
    """Seconds from the last packet before the part to its own last one, or None."""


class StepPace(msgspec.Struct, frozen=True):
    """A step where the game waited for a player, and how often for each seat."""

    step: str
    title: str
    total: int
    seats: dict[str, int]
    kind: str = ""
    """What the step is (`engine.core.ruleset.StepKind`: ``manual``, ``decision``,
    ``secret``, ``automatic``), "" for one the checklist does not list (joining the game)."""
    actor: str = ""
    """Who acts in the step (`engine.core.ruleset.Actor`), "" when the checklist does not say."""
    standing: tuple[str, ...] = ()
    """The seats whose standing order, as it stands at the head, completes the step for them:
    the waits there are past ones."""
    policy: tuple[str, ...] = ()
    """The seats whose signed policy, as it stands at the head, answers the step for them:
    the waits there are past ones too."""
    policy_order: str = ""
    """The order that signs a policy able to answer the step ("" when none can)."""


class PaceReport(msgspec.Struct, frozen=True):
    """What ``hexpost pace GAME`` prints."""

    game: str
    name: str
    my_seat: str
    packets: int
    human: int
    machine: int
    seats: tuple[SeatPace, ...]
    parts: tuple[PartPace, ...]
    steps: tuple[StepPace, ...]


class StepFacts(NamedTuple):
    """What the checklist at the head says of one step."""

    title: str
    kind: str = ""
    actor: str = ""
    standing: tuple[str, ...] = ()
    policy: tuple[str, ...] = ()
    policy_order: str = ""


class GamePace(msgspec.Struct, frozen=True):
    """One game's line of ``hexpost pace`` without a game: its hand-offs and how long its
    players take to answer, to compare a home's games."""

    game: str
    name: str
    packets: int
    human: int
    machine: int
    parts: int
    """The parts of play begun (each player turn, each round): the start not counted."""
    my_median: int | None
    """Seconds: the median wait for this home's player, None when none was timed."""
    their_seat: str
    """The other seat whose player's median wait is the longest ("" when none was timed)."""
    their_median: int | None


class Written(NamedTuple):
    """One stored packet as the count reads it."""

    seq: int
    seat: str
    automatic: bool
    stamp: int | None
    """Its writer's stamp in seconds since the epoch, or None when it does not read."""
    step: str
    """The step of the first of its events that names one, "" when none does."""


def pace_overview(replica: Replica) -> tuple[GamePace, ...]:
    """Every game of the home, in the store's order, as one line each."""
    return tuple(game_pace(pace_report(replica, row, titles=False)) for row in replica.games())


def game_pace(report: PaceReport) -> GamePace:
    """``report`` summed up in one line: the slowest other seat stands for the others."""
    mine = [seat.human_median for seat in report.seats if seat.seat == report.my_seat]
    timed = [s for s in report.seats if s.seat != report.my_seat and s.human_median is not None]
    slowest = max(timed, key=lambda seat: seat.human_median or 0, default=None)
    return GamePace(
        game=report.game,
        name=report.name,
        packets=report.packets,
        human=report.human,
        machine=report.machine,
        parts=max(0, len(report.parts) - 1),  # the first is always the start
        my_median=mine[0] if mine else None,
        their_seat=slowest.seat if slowest else "",
        their_median=slowest.human_median if slowest else None,
    )


def pace_report(replica: Replica, row: GameRow, *, titles: bool = True) -> PaceReport:
    """The pace of the stored game ``row`` (without ``titles``, the steps' titles and kinds
    are not looked up: the overview does not show them). A game whose ruleset this hexpost
    does not have is counted from its packets alone: no parts of play, no steps."""
    try:
        face: Face[Any] | None = face_for(row.ruleset)
    except VersionError:  # a plug-in uninstalled: the packets still count, not the parts
        face = None
    opening = set(face.landmarks().parts) if face is not None else set()
    steps: dict[int, str] = {}
    labels: dict[int, str] = {}
    for seq, event in replica.events(row.game_id):
        if event.step and seq not in steps:
            steps[seq] = event.step
        if event.kind in opening:
            labels[seq] = event.text  # a packet that opens two parts opens the last one
    written = []
    for seq, data in replica.packets(row.game_id):
        _, body = kept_body(data)
        written.append(
            Written(
                seq, body.seat, pace.automatic(body), stamp_seconds(body.written_at),
                steps.get(seq, ""),
            )
        )  # fmt: skip
    state = replica.state(row.game_id) if row.head_seq >= 0 and face is not None else None
    facts = _step_facts(face, state.rules) if face is not None and state and titles else {}
    roster = tuple(seat.seat for seat in state.core.seats) if state is not None else ()
    return count(
        written,
        labels,
        facts,
        game=row.game_id.hex(),
        name=row.name,
        me=row.my_seat,
        roster=roster,
    )


def count(
    written: Sequence[Written],
    labels: dict[int, str],
    facts: dict[str, StepFacts],
    *,
    game: str = "",
    name: str = "",
    me: str = "",
    roster: Sequence[str] = (),
) -> PaceReport:
    """The report for the packets ``written`` (in chain order), where the packet ``seq`` of
    each entry of ``labels`` opens the part of play it names and ``facts`` tells of steps.
    The seats are listed in the order they first wrote, then those of ``roster`` (the game's
    seats) that never did: an invited seat not yet joined."""
    found = pace.hand_offs([(packet.seat, packet.automatic) for packet in written])
    waits: dict[int, int | None] = {
        hand_off.at: _wait(written[hand_off.at - 1].stamp, written[hand_off.at].stamp)
        for hand_off in found
    }
    machine = sum(hand_off.machine for hand_off in found)
    seats = list(dict.fromkeys([*(packet.seat for packet in written), *roster]))
    return PaceReport(
        game=game,
        name=name,
        my_seat=me,
        packets=len(written),
        human=len(found) - machine,
        machine=machine,
        seats=_seats(seats, found, waits),
        parts=_parts(written, found, labels),
        steps=_steps(seats, written, found, facts),
    )


def _seats(
    seats: list[str], found: list[pace.HandOff], waits: dict[int, int | None]
) -> tuple[SeatPace, ...]:
    result = []
    for seat in seats:
        mine = [hand_off for hand_off in found if hand_off.seat == seat]
        human = [waits[h.at] for h in mine if not h.machine]
        machine = [waits[h.at] for h in mine if h.machine]
        timed = [wait for wait in human if wait is not None]
        result.append(
            SeatPace(
                seat=seat,
                human=len(human),
                machine=len(machine),
                human_timed=len(timed),
                human_median=_median(timed),
                human_total=sum(timed),
                machine_median=_median([wait for wait in machine if wait is not None]),
            )
        )
    return tuple(result)


def _parts(
    written: Sequence[Written], found: list[pace.HandOff], labels: dict[int, str]
) -> tuple[PartPace, ...]:
    """The parts of play: a new one begins after each packet that opened one."""
    bounds: list[tuple[int, int, str]] = []  # (first index, last index, label)
    label, begin = FIRST_PART, 0
    for index, packet in enumerate(written):
        if packet.seq in labels:
            bounds.append((begin, index, label))
            label, begin = labels[packet.seq], index + 1
    if begin < len(written):
        bounds.append((begin, len(written) - 1, label))
    starts = [first for first, _, _ in bounds]
    inside: list[list[pace.HandOff]] = [[] for _ in bounds]
    for hand_off in found:  # each in the part its first packet lies in
        inside[bisect_right(starts, hand_off.at) - 1].append(hand_off)
    parts = []
    for (first, last, text), theirs in zip(bounds, inside, strict=True):
        since = written[first - 1].stamp if first else written[first].stamp
        parts.append(
            PartPace(
                label=text,
                first=written[first].seq,
                last=written[last].seq,
                packets=last - first + 1,
                human=sum(not hand_off.machine for hand_off in theirs),
                machine=sum(hand_off.machine for hand_off in theirs),
                took=_wait(since, written[last].stamp),
            )
        )
    return tuple(parts)


def _steps(
    seats: list[str],
    written: Sequence[Written],
    found: list[pace.HandOff],
    facts: dict[str, StepFacts],
) -> tuple[StepPace, ...]:
    """The steps the human hand-offs' first packets acted at, most waited for first."""
    seen: dict[str, dict[str, int]] = {}
    for hand_off in found:
        step = written[hand_off.at].step
        if hand_off.machine or not step:
            continue
        per_seat = seen.setdefault(step, {})
        per_seat[hand_off.seat] = per_seat.get(hand_off.seat, 0) + 1
    ranked = sorted(seen.items(), key=lambda item: -sum(item[1].values()))  # stable: first seen
    order = {seat: index for index, seat in enumerate(seats)}
    result = []
    for step, per_seat in ranked[:STEPS_SHOWN]:
        known = facts.get(step) or StepFacts("")
        result.append(
            StepPace(
                step,
                known.title,
                sum(per_seat.values()),
                dict(sorted(per_seat.items(), key=lambda item: order[item[0]])),
                kind=known.kind,
                actor=known.actor,
                standing=known.standing,
                policy=known.policy,
                policy_order=known.policy_order,
            )
        )
    return tuple(result)


JOINING = StepFacts("Join the game, accept the key that joined", "join")
"""The protocol's step before a ruleset's first (`engine.core.owed.JOIN_STEP`): in no
ruleset's checklist, and made by each player, never by anything signed in advance."""


def _step_facts(face: Face[Any], rules: object) -> dict[str, StepFacts]:
    """Each step's title, kind, standing orders, policies and policy order from the
    ruleset's checklist at the head, with the steps it let go (`past_steps_of`: a set-up
    over); only the join's before the ruleset's state exists."""
    facts = {JOIN_STEP: JOINING}
    if rules is not None:
        for item in (*past_steps_of(face, rules), *face.checklist(rules)):
            facts[item.step] = StepFacts(
                item.title,
                str(item.kind),
                str(item.actor),
                item.standing,
                item.policy,
                item.policy_order,
            )
    return facts


def _wait(since: int | None, until: int | None) -> int | None:
    if since is None or until is None:
        return None
    return max(0, until - since)


def _median(values: list[int]) -> int | None:
    """The median in whole seconds (of an even count, the mean of the middle two, rounded
    down)."""
    if not values:
        return None
    ordered = sorted(values)
    middle = len(ordered) // 2
    return (ordered[(len(ordered) - 1) // 2] + ordered[middle]) // 2
