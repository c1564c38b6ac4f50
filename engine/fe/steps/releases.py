"""Fleet releases by trigger (600.3x): a starting fleet held back until the enemy comes.

A scenario's order of battle holds some fleets back until a condition is met: the Kzinti
starbase squadron moves once the Klingons reach the starbase, the Marquis' Fleet once a future
belligerent enters Kzinti space. The condition is data (`engine.fe.oob.Release`: a `Trigger`
of actors acting against any of some `Target`\\ s). `fired_releases` reads the board after a
move or a reaction and says which held fleets are free now; `release_fired` records them.
The scripted releases by turn and the "at war, no condition" rule live with the calendar
(`engine.fe.steps.economy`).

Readings, marked as in ``fe-rules-notes.md`` (S sourced, I inferred, C a choice):

- S (600.3x): the trigger's ``actors`` fire it; with ``future_belligerents`` so do the
  owning empire's future belligerents (its scenario list of them).
- I: "occupies" is true while a unit of an actor that can move (not a base) stands in a
  target hex; the board is read after each move and reaction, so standing there means it
  entered. A unit set up there from the start would fire the trigger at the first move.
- I: targets: ``hexes`` the listed hexes; ``fleet-area`` each named fleet's set-up hexes;
  ``empire`` the hexes the listed empires own now (captures included); ``starbase`` a hex
  holding a starbase (SB) of the listed empires, or of the fleet's own empire if none is
  listed.
- C: "destroys" triggers are not fired by movement: destruction is the combat's business,
  left to the players (they release the fleet with an adjustment) until combat is played.
- Each fleet is released once, whichever of its releases fires first; results come sorted
  by empire and fleet so the events read the same everywhere.

Whether a trigger fires in a hex depends only on what stands in that hex, who owns it and
which fleets are released. So the check after a move reads only the hexes the move touched
(`hot_hexes`, carried from board to board, see its docstring): the cost of a move order does
not grow with the units that stayed where they were. Where a board is read in full (the
first check of a turn, the war entries of `engine.fe.steps.economy`), the hexes where a
stand fires something are found from each empire's stands, kept per units tuple, and the
hexes watched for each empire (`firing_lookup`), and only those hexes are read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from operator import attrgetter
from typing import NamedTuple

import msgspec

from engine.core import caches
from engine.core.ruleset import Event
from engine.fe import board_update, board_views
from engine.fe.board_views import STARBASE_SET, class_can_move
from engine.fe.forces import OFF_MAP, PARTS, Board, Unit, taken_hexes
from engine.fe.galaxy import Galaxy, HexId, load_galaxy
from engine.fe.model import FeState
from engine.fe.oob import EmpireSetup, ScenarioSetup, Trigger
from engine.fe.steps import base

RELEASE_RULE = "600.3"
STARBASE_CLASSES = board_views.STARBASE_CLASSES


def _actors(setup: EmpireSetup, trigger: Trigger) -> tuple[str, ...]:
    """The empires whose units fire ``trigger`` of ``setup``'s empire, sorted."""
    found = set(trigger.actors)
    if trigger.future_belligerents:
        found.update(setup.future_belligerents)
    found.discard(setup.empire)
    return tuple(sorted(found))


def _stands(lookup: TriggerBoard, actors: tuple[str, ...]) -> list[Unit]:
    """One unit per actor and hex where the actors have units on the map that can move (a
    base occupies nothing): the smallest id of each, all of them by id. One check per empire
    and hex is enough, as a reason names only the empire and the hex."""
    found = lookup.stands_of.get(actors)
    if found is None:
        firsts = lookup.firsts
        found = sorted((u for e in actors for u in firsts.get(e, ())), key=_unit_id)
        lookup.stands_of[actors] = found
    return found


def _unit_id(unit: Unit) -> str:
    return unit.id


class TriggerBoard:
    """What the triggers look up, computed once per check: starbases by hex, and each
    empire's units on the map that can move.

    The checks read a few hexes of the board (`TriggerBoard.local`: the hot hexes, or those
    `firing_lookup` finds). ``TriggerBoard(state)`` reads the whole board, from each
    empire's part (`engine.fe.board_views.lookup_of`, remembered per units tuple and carried
    over when units move): the reading the tests hold the checks to.
    """

    def __init__(self, state: FeState | None) -> None:
        self.starbases: dict[int, list[Unit]] = {}
        self.firsts: dict[str, list[Unit]] = {}
        self.stands_of: dict[tuple[str, ...], list[Unit]] = {}
        """`_stands` per actors, worked out once per check (releases share their actors)."""
        self.owners: dict[int, str] = {}
        """Who owns each hex asked about (`Board.owner`), once per check: the releases
        watching empires' space ask about the same stands."""
        if state is None:
            return
        self.board = state.board
        for forces in state.forces:
            starbases, firsts = board_views.lookup_on(self.board, forces.empire, forces.units)
            for unit in starbases:
                self.starbases.setdefault(unit.hex, []).append(unit)
            if set(map(_EMPIRE, firsts)) <= {forces.empire}:  # one empire's, as ever: in C
                self.firsts.setdefault(forces.empire, []).extend(firsts)
                continue
            for unit in firsts:
                self.firsts.setdefault(unit.empire, []).append(unit)

    @classmethod
    def local(cls, board: Board, hexes: Iterable[HexId]) -> TriggerBoard:
        """The lookup of ``board`` restricted to ``hexes``: the starbases and stands there
        only, each as the whole lookup has it (the stand the smallest id of its empire that
        can move, `board_views.lookup_of`; starbases in empire order, then id)."""
        lookup = cls(None)
        lookup.board = board
        firsts: dict[tuple[str, HexId], Unit] = {}
        one_empire = board_views.held_empires_by_hex(board) or {}
        for h in hexes:
            if h == OFF_MAP:
                continue
            here = board.at(h)
            bases = sorted((u for u in here if u.cls in STARBASE_SET), key=_BOARD_ORDER)
            if bases:
                lookup.starbases[h] = bases
            if len(one_empire.get(h, ())) == 1:
                # One empire's stack, in id order (the board's order): its first unit that
                # can move is the stand, found without reading the rest.
                first = next(filter(board_views.can_move, here), None)
                if first is not None:
                    firsts[first.empire, h] = first
                continue
            for unit in here:
                key = (unit.empire, h)
                held = firsts.get(key)
                if (held is None or unit.id < held.id) and board_views.can_move(unit):
                    firsts[key] = unit
        for unit in sorted(firsts.values(), key=_unit_id):
            lookup.firsts.setdefault(unit.empire, []).append(unit)
        return lookup


_BOARD_ORDER = attrgetter("empire", "id")
_EMPIRE = attrgetter("empire")


class _Watch(NamedTuple):
    """One target of a trigger, as the check reads it: the kind, the hexes it watches (the
    listed hexes, or the fleets' set-up area), the empires it names, and for a fleet area
    the fleets' names as the reason gives them."""

    kind: str
    hexes: frozenset[int]
    empires: tuple[str, ...]
    names: str


_BY_HEX = ("hexes", "fleet-area")
"""The target kinds `_Watch.hexes` decides alone."""


class _Plan(NamedTuple):
    """A trigger of one empire's scenario set-up, worked out once: the empires whose units
    fire it (`_actors`) and its targets (`_Watch`)."""

    actors: tuple[str, ...]
    watches: tuple[_Watch, ...]


@caches.by_identity(maxsize=64, shipped=True)
def _plan(setup: EmpireSetup, trigger: Trigger, setups: ScenarioSetup) -> _Plan:
    """``trigger`` of ``setup`` in the scenario's set-ups ``setups`` (which give the fleets'
    areas), all three by identity: the scenario's data, loaded once, so the trigger is read
    once, not once per move checked."""
    watches = []
    for target in trigger.any_of:
        hexes: set[int] = set(target.hexes)
        if target.kind == "fleet-area":
            hexes = set()
            for ref in target.fleets:
                owner = setups.empire(ref.empire)
                fleet = owner.fleet(ref.fleet) if owner is not None else None
                if fleet is not None:
                    hexes.update(fleet.hexes)
        names = " or ".join(f"{ref.empire} {ref.fleet}" for ref in target.fleets)
        watches.append(_Watch(target.kind, frozenset(hexes), target.empires, names))
    return _Plan(_actors(setup, trigger), tuple(watches))


def _hit(galaxy: Galaxy, owner: str, watch: _Watch, unit: Unit, lookup: TriggerBoard) -> str:
    """Why ``unit`` standing where it is occupies the target ``watch`` ("" when it does not);
    ``owner`` is the empire whose trigger it is."""
    h = unit.hex
    kind = watch.kind
    if kind == "hexes":
        return f"{unit.empire} entered {base.hex_text(h)}" if h in watch.hexes else ""
    if kind == "fleet-area":
        if h not in watch.hexes:
            return ""
        where = base.hex_text(h)
        return f"{unit.empire} entered the set-up area of {watch.names} at {where}"
    if kind == "empire":
        holder = lookup.owners.get(h)
        if holder is None:
            holder = lookup.owners[h] = lookup.board.owner(galaxy, h)
        if holder not in watch.empires:
            return ""
        return f"{unit.empire} entered {holder} space at {base.hex_text(h)}"
    owners = watch.empires or (owner,)
    for other in lookup.starbases.get(h, ()):
        if other.empire in owners:
            where = base.hex_text(h)
            return f"{unit.empire} entered {where}, the hex of a {other.empire} starbase"
    return ""


def trigger_reason(
    state: FeState, galaxy: Galaxy, setup: EmpireSetup, trigger: Trigger, lookup: TriggerBoard
) -> str:
    """Why ``trigger`` has fired on this board ("" when it has not)."""
    return _reason(galaxy, setup, trigger, base.scenario_setup(state), lookup)


def _reason(
    galaxy: Galaxy,
    setup: EmpireSetup,
    trigger: Trigger,
    setups: ScenarioSetup,
    lookup: TriggerBoard,
) -> str:
    if trigger.action != "occupies":
        return ""
    plan = _plan(setup, trigger, setups)
    owners = lookup.owners
    for unit in _stands(lookup, plan.actors):
        h = unit.hex
        for watch in plan.watches:
            # The common misses, told without a call: a hex not watched, another's space.
            if watch.kind in _BY_HEX and h not in watch.hexes:
                continue
            if watch.kind == "empire":
                holder = owners.get(h)
                if holder is None:
                    holder = owners[h] = lookup.board.owner(galaxy, h)
                if holder not in watch.empires:
                    continue
            reason = _hit(galaxy, setup.empire, watch, unit, lookup)
            if reason:
                return reason
    return ""


# --- the hexes a check has to read -----------------------------------------------------------


class Watchers(NamedTuple):
    """The triggers of the fleets a board holds, turned around: per hex, per owner of a
    hex and per empire with a starbase in a hex, the empires whose stand there fires one
    (the actors of the triggers watching it). A stand fires a trigger by its empire and
    its hex alone, so a hex is hot when an empire standing there is named for the hex, for
    its owner or for a starbase there (`_hit`, `_reason` read the same targets)."""

    actors: frozenset[str]
    """Every empire whose stand fires a held fleet's trigger somewhere."""
    in_hex: dict[HexId, frozenset[str]]
    """The ``hexes`` and ``fleet-area`` targets, by hex."""
    in_space_of: dict[str, frozenset[str]]
    """The ``empire`` targets, by the empire owning the hex."""
    with_base_of: dict[str, frozenset[str]]
    """The ``starbase`` targets, by the empire of a starbase in the hex."""


@caches.by_identity(maxsize=4, identity=1)
def _watchers(setups: ScenarioSetup, released: tuple[tuple[str, str], ...]) -> Watchers:
    """`Watchers` of the scenario's set-ups ``setups`` (by identity) for the fleets not in
    ``released`` (by value): worked out once per set of released fleets, not once per move
    checked."""
    done = set(released)
    return watchers_of(
        setups,
        [
            (setup, release.trigger)
            for setup in setups.empires
            for release in setup.releases
            if (setup.empire, release.fleet) not in done
        ],
    )


def watchers_of(setups: ScenarioSetup, triggers: Iterable[tuple[EmpireSetup, Trigger]]) -> Watchers:
    """`Watchers` of ``triggers`` (each with the set-up of the empire it is for) in the
    scenario's set-ups ``setups``: the held fleets' (`_watchers`), or the war entries' to
    check (`engine.fe.steps.economy`). Triggers not fired by occupying are left out."""
    in_hex: dict[HexId, set[str]] = {}
    in_space_of: dict[str, set[str]] = {}
    with_base_of: dict[str, set[str]] = {}
    for setup, trigger in triggers:
        if trigger.action != "occupies":
            continue
        plan = _plan(setup, trigger, setups)
        for watch in plan.watches:
            if watch.kind in _BY_HEX:
                for h in watch.hexes:
                    in_hex.setdefault(h, set()).update(plan.actors)
            elif watch.kind == "empire":
                for empire in watch.empires:
                    in_space_of.setdefault(empire, set()).update(plan.actors)
            else:  # a starbase of the empires listed, or of the fleet's own (`_hit`)
                for empire in watch.empires or (setup.empire,):
                    with_base_of.setdefault(empire, set()).update(plan.actors)
    actors: set[str] = set()
    for table in (in_hex, in_space_of, with_base_of):
        for named in table.values():
            actors.update(named)
    return Watchers(
        frozenset(actors),
        {h: frozenset(named) for h, named in in_hex.items() if named},
        {e: frozenset(named) for e, named in in_space_of.items() if named},
        {e: frozenset(named) for e, named in with_base_of.items() if named},
    )


@caches.by_identity(maxsize=4)
def hot_hexes(board: Board, setups: ScenarioSetup) -> frozenset[HexId]:
    """The hexes of ``board`` where a stand fires the trigger of a fleet ``board`` holds
    (not in ``board.released``): on most boards none.

    A stand fires a trigger by its empire, its hex, that hex's owner and the starbases
    there, so a change of units leaves every other hex as it was: the board a move makes
    (`engine.fe.board_update`) notes the hexes its units left and entered
    (`board_views.defer_hexes`), and `_hot_hexes` reads those again, not the whole board.
    A check then reads only the hot hexes: stands elsewhere fire nothing, so the first
    reason found there is the first found on the whole board."""
    return _hot(board, setups, [h for h, _ in board.stacks()])


def _hot(board: Board, setups: ScenarioSetup, hexes: Iterable[HexId]) -> frozenset[HexId]:
    """`hot_hexes` among ``hexes``: per hex, the empires there that a held fleet's trigger
    watches it for (`_watchers`), then whether one of them has a unit there that can move
    (a stand, as `TriggerBoard` finds them). Only hexes an actor stands in are read."""
    watchers = _watchers(setups, board.released)
    actors = watchers.actors
    if not actors:
        return frozenset()
    present_of = board_views.held_empires_by_hex(board)
    galaxy = load_galaxy() if watchers.in_space_of else None
    found: set[HexId] = set()
    for h in hexes:
        if h == OFF_MAP or h in found:
            continue
        here = board.at(h)
        present = actors.intersection(
            present_of.get(h, ()) if present_of is not None else {u.empire for u in here}
        )
        if not present:
            continue
        firing = set(watchers.in_hex.get(h, ()))
        if galaxy is not None:
            firing.update(watchers.in_space_of.get(board.owner(galaxy, h), ()))
        if watchers.with_base_of:
            for unit in here:
                if unit.cls in STARBASE_SET:
                    firing.update(watchers.with_base_of.get(unit.empire, ()))
        firing &= present
        if firing and any(u.empire in firing and board_views.can_move(u) for u in here):
            found.add(h)
    return frozenset(found)


def _read_hot(
    board: Board, parts: Sequence[tuple[Unit, ...]], watchers: Watchers
) -> frozenset[HexId]:
    """The hexes of ``board``, joined from the empires' units tuples ``parts`` (a state's
    `FeState.forces`), where a stand fires one of the triggers ``watchers`` stand for: per
    actor, the hexes where it has a stand (`_placed`, kept per empire's units tuple) met
    with the hexes where its stand fires something (`_watched`, kept per set of triggers
    and owners), in C; starbases add their hexes for the actors their empire's are watched
    for (`_bases`). Nothing is read per unit or per hex of the board once the empires'
    stands are held."""
    if not watchers.actors:
        return frozenset()
    watched = _watched(watchers, board.owners)
    if watchers.with_base_of:
        more = {actor: set(hexes) for actor, hexes in watched.items()}
        for units in parts:
            for h, empire in _bases(units):
                for actor in watchers.with_base_of.get(empire, ()):
                    more.setdefault(actor, set()).add(h)
        watched = {actor: frozenset(hexes) for actor, hexes in more.items()}
    found: set[HexId] = set()
    for units in parts:
        for empire, hexes in _placed(units).items():
            fired = watched.get(empire)
            if fired:
                found.update(hexes & fired)
    return frozenset(found)


@caches.by_identity(maxsize=24)
def _placed(units: tuple[Unit, ...]) -> dict[str, frozenset[HexId]]:
    """Of one empire's units (by identity of its `Forces.units` tuple), per empire among
    them the hexes on the map where it has a unit that can move (a stand, as `TriggerBoard`
    finds them), once per tuple: each class tried once (`board_views.unit_classes`, carried
    over moves), then one pass over their kinds (`board_views.kinds_of`, a few hundred
    however many units, held from the board's first reading). Not to be mutated."""
    classes = board_views.unit_classes(units)
    kinds = board_views.kinds_of(units)
    if len({e for e, _, _ in classes}) == 1:  # one empire's, as ever
        moving = {c for e, c, _ in classes if class_can_move(e, c)}
        hexes = {h for h, _, c, _ in kinds if c in moving}
        hexes.discard(OFF_MAP)
        return {next(iter(classes))[0]: frozenset(hexes)} if hexes else {}
    stands: dict[str, set[HexId]] = {}
    for h, empire, cls, _ in kinds:
        if h != OFF_MAP and class_can_move(empire, cls):
            stands.setdefault(empire, set()).add(h)
    return {e: frozenset(hexes) for e, hexes in stands.items()}


@caches.by_identity(maxsize=24)
def _bases(units: tuple[Unit, ...]) -> tuple[tuple[HexId, str], ...]:
    """The hexes on the map and empires of the starbases among one empire's units (by
    identity of its `Forces.units` tuple), read from their kinds when their classes hold
    one: asked only when a held fleet's trigger watches starbases."""
    if all(c not in STARBASE_SET for _, c, _ in board_views.unit_classes(units)):
        return ()
    kinds = board_views.kinds_of(units)
    found = dict.fromkeys([(h, e) for h, e, c, _ in kinds if c in STARBASE_SET])
    return tuple(key for key in found if key[0] != OFF_MAP)


@caches.by_identity(maxsize=8)
def _watched(
    watchers: Watchers, owners: tuple[tuple[HexId, str], ...]
) -> dict[str, frozenset[HexId]]:
    """Per actor of ``watchers`` (by identity: `_watchers` and `watchers_of`'s callers keep
    them), the hexes where its stand fires a trigger, starbases aside: those named for it
    and those of the empires whose space is watched for it, as ``owners`` (a board's
    captured hexes, by identity: each state passes its tuple on) and the map (`_space`)
    make them (`Board.owner`). Not to be mutated."""
    found: dict[str, set[HexId]] = {}
    for h, named in watchers.in_hex.items():
        for actor in named:
            found.setdefault(actor, set()).add(h)
    if watchers.in_space_of:
        taken = taken_hexes(owners)
        space = _space()
        for empire, named in watchers.in_space_of.items():
            hexes = {h for h in space.get(empire, ()) if h not in taken}
            hexes.update(h for h, holder in taken.items() if holder == empire)
            for actor in named:
                found.setdefault(actor, set()).update(hexes)
    return {actor: frozenset(hexes) for actor, hexes in found.items()}


@caches.static
def _space() -> dict[str, frozenset[HexId]]:
    """The map's hexes by the empire owning them at the start (`galaxy.HexInfo.empire`)."""
    found: dict[str, set[HexId]] = {}
    for info in load_galaxy().hexes:
        found.setdefault(info.empire, set()).add(info.hex)
    return {empire: frozenset(hexes) for empire, hexes in found.items()}


def firing_lookup(state: FeState, watchers: Watchers) -> TriggerBoard | None:
    """The lookup `trigger_reason` reads to check the triggers ``watchers`` stand for
    (`watchers_of`, kept by the caller: `_read_hot` keys on it) on the state's board: the
    board's stands and starbases in the hexes where a stand fires one of them, as
    `TriggerBoard.local` reads them; None when there is none (the usual case), so nothing
    fires. Stands elsewhere fire none of them, so each trigger's first reason there is its
    first on the whole board (`TriggerBoard`)."""
    hot = _read_hot(state.board, [forces.units for forces in state.forces], watchers)
    if not hot:
        return None
    return TriggerBoard.local(state.board, sorted(hot))


def _hot_hexes(state: FeState, setups: ScenarioSetup) -> frozenset[HexId]:
    """`hot_hexes` of the state's board: remembered, derived from the board it was made
    from (the same fleets held, the same hexes owned: only the hexes changed since are
    read again, the others keep their answer; that board's own read from its empires'
    stands when they are held, `_parts_hot`, as for a turn's first move), or read from the
    stands of the state's empires (`_read_hot`)."""
    board = state.board
    held = caches.peek(hot_hexes, board, setups)
    if held is not None:
        return held
    since = board_views.hexes_changed_since(board)
    found = None
    if since is not None:
        root, hexes = since
        same_owners = root.owners is board.owners or root.owners == board.owners
        if same_owners and root.released == board.released:
            before = caches.peek(hot_hexes, root, setups)
            if before is None:
                before = _parts_hot(root, setups)
            if before is not None:
                found = (before - hexes if before else before) | _hot(board, setups, hexes)
    if found is None:
        parts = [forces.units for forces in state.forces]
        found = _read_hot(board, parts, _watchers(setups, board.released))
    board_views.forget_changes(board)
    caches.prime(hot_hexes, found, board, setups)
    return found


def _parts_hot(board: Board, setups: ScenarioSetup) -> frozenset[HexId] | None:
    """`hot_hexes` of ``board`` if it was joined from empires' units tuples (`forces.PARTS`:
    a state's board) whose stands are held (`_placed`), as the turn's first check finds the
    board its moves start from: read so and kept, without reading a unit; else None."""
    parts: tuple[tuple[Unit, ...], ...] | None = board.__dict__.get(PARTS)
    if parts is None or any(caches.peek(_placed, units) is None for units in parts):
        return None
    found = _read_hot(board, parts, _watchers(setups, board.released))
    caches.prime(hot_hexes, found, board, setups)
    return found


def fired_releases(state: FeState) -> list[tuple[str, str, str]]:
    """The held fleets whose release trigger has fired: ``(empire, fleet, reason)``, sorted.

    A fleet already in ``state.released`` is never listed again.
    """
    setups = base.scenario_setup(state)
    hot = _hot_hexes(state, setups)
    if not hot:
        return []
    galaxy = base.galaxy()
    released = set(state.released)
    found: dict[tuple[str, str], str] = {}
    lookup = TriggerBoard.local(state.board, sorted(hot))
    for setup in setups.empires:
        for release in setup.releases:
            key = (setup.empire, release.fleet)
            if key in released or key in found:
                continue
            reason = _reason(galaxy, setup, release.trigger, setups, lookup)
            if reason:
                found[key] = reason
    return [(empire, fleet, reason) for (empire, fleet), reason in sorted(found.items())]


def release_fired(state: FeState, step_id: str, events: list[Event]) -> FeState:
    """``state`` with every fleet whose trigger fired released, one event each."""
    fired = fired_releases(state)
    if not fired:
        return state
    for empire, fleet, reason in fired:
        events.append(
            Event(
                "release",
                f"{empire} {fleet} is released ({reason}, {RELEASE_RULE})",
                base.seat_of(state, empire),
                step_id,
                {"empire": empire, "fleet": fleet, "reason": reason, "rule": RELEASE_RULE},
            )
        )
    released = {*state.released, *((empire, fleet) for empire, fleet, _ in fired)}
    after = msgspec.structs.replace(state, released=tuple(sorted(released)))
    # The same units with more fleets released: the units' views stay as they were, and
    # only the hexes hot before can be hot now.
    board = after.board
    board_update.share_unit_views(state.board, board)
    setups = base.scenario_setup(state)
    hot = caches.peek(hot_hexes, state.board, setups)
    if hot is not None:
        caches.prime(hot_hexes, _hot(board, setups, hot), board, setups)
    return after
