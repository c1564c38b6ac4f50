"""A side's carrier groups, flagship and battle force as one secret choice, from F&E 5.10.

Rule 105 has each side secretly form its carrier groups (5-3C), secretly choose its flagship
(5-3D) and secretly choose its battle force (5-3E); the forces are revealed together (5-3F1:
"before revealing Battle Forces"), and the protocol's worked example (``protocol.md``) has
one commitment for force and flagship. Before 5.10 hexpost committed and revealed each of the
three steps on its own, which told each side the other's flagship (so its command limit)
before it chose its own force, and cost each step asked two human hand-offs. From 5.10
(`TOGETHER_FROM`) 5-3C and 5-3D pass (`skip`), and 5-3E takes the three choices at once:

    {"units": ["KLI-0001", "KLI-0002"], "flagship": "KLI-0001",
     "command_points": 1, "groups": [{"carrier": ..., "escorts": [...]}],
     "forward": {"KLI-0012": 6}}

- ``units``: the battle force, flagship included (``[]`` when no flagship is named), as 5-3E
  took it before;
- ``flagship``: as 5-3D took it; it may be left out where the rules leave one choice (the
  only eligible unit with no command point to spend, the flagship an opposed withdrawal
  fixed, ``""`` with nothing able to command: `forced_choices`);
- ``command_points`` (round 1, 308.9) and ``forward`` (302.563): optional, as before;
- ``groups``: as 5-3C took them (or, as the app's form writes them, each carrier's escorts
  under the carrier's id: ``"KLI-0010": ["KLI-0011"]``); left out, the groups the first
  round formed (515.15) or, in the first round, none.

Each part is checked by its old step's own rules, in the old order, each on the board as the
parts before it leave it (`problems`), and applied the same way (`apply`): a game of 5.10
records on its rounds' logs what a game of 5.9 recorded. The choices reach the log only at
the reveal, when both sides are bound.

Not played yet: `FeRuleset.version` is still 5.9, so no game is begun at 5.10 outside the
tests. Before it moves, the app's secret form of 5-3E (`engine.fe.face`) must offer the
flagship, command points and groups beside the units, and the protocol tests that commit at
5-3D (`tests.saves.conftest`) and the demo must commit at 5-3E.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from engine.core.ruleset import Event, RollRequest, Seat, Violation
from engine.fe.combat import forces
from engine.fe.model import FeState
from engine.fe.steps import combat, combat_groups, combat_round, forced_choices

TOGETHER_FROM = forced_choices.JOINED_FROM
"""The version from which 5-3C and 5-3D are chosen with the battle force at 5-3E."""
FOLDED_STEPS = (combat_round.GROUPS_STEP, combat_round.FLAGSHIP_STEP)
"""The secret steps whose choices 5-3E takes from `TOGETHER_FROM`."""
RULE = "302.3"
KEYS = frozenset({"units", "flagship", "command_points", "groups", "forward"})


class Parts(msgspec.Struct, frozen=True):
    """One side's choice split into the three choices 5-3C, 5-3D and 5-3E took before."""

    groups: object
    flagship: object
    force: object


def together(state: FeState) -> bool:
    """Whether this game chooses groups, flagship and force at once (from 5.10)."""
    return state.plays_at_least(TOGETHER_FROM)


def skip(state: FeState, step_id: str) -> str:
    """Why 5-3C or 5-3D passes in a battle of a 5.10 game ("" otherwise)."""
    if step_id not in FOLDED_STEPS or not together(state) or combat.current(state) is None:
        return ""
    return f"chosen with the battle force at {combat_round.FORCE_STEP} ({RULE})"


def shape_text() -> str:
    return (
        f"the secret choice of {combat_round.FORCE_STEP} is an object: "
        '{"units": [your battle force\'s ids], "flagship": ID}, with "command_points", '
        '"groups" and "forward" if you use them'
    )


def split(state: FeState, seat: Seat, choice: object) -> Parts | str:
    """``choice`` as the three old choices, parts left out filled in by the rules; or what
    is wrong with its shape."""
    if not isinstance(choice, dict):
        return shape_text()
    if "units" not in choice:
        return 'name your battle force\'s "units", the flagship included (302.3)'
    escorts = {key: value for key, value in choice.items() if key not in KEYS}
    if escorts and "groups" in choice:
        return 'name the carrier groups once: as "groups", or each carrier\'s escorts by its id'
    if escorts:  # the form's way: each carrier's escorts under its id
        groups: object = escorts
    else:
        groups = choice["groups"] if "groups" in choice else _groups_kept(state, seat)
    points = choice.get("command_points", 0)
    if "flagship" in choice:
        flagship: object = {"flagship": choice["flagship"], "command_points": points}
    else:
        made = forced_choices.forced(state, combat_round.FLAGSHIP_STEP, seat)
        if made is None:
            offered = ", ".join(combat_round.eligible_flagships(state, seat))
            return f'name your "flagship": one of {offered}'
        # (the points as given, so that 5-3D's rules refuse what is not a count)
        named = "command_points" in choice
        flagship = {"flagship": made, "command_points": points} if named else made
    units = choice["units"]
    force = {"units": units, "forward": choice["forward"]} if "forward" in choice else units
    return Parts(groups, flagship, force)


def _groups_kept(state: FeState, seat: Seat) -> object:
    """The groups a choice that names none keeps: those round 1 formed (515.15), else none."""
    record = combat.current(state)
    kept = combat_round.kept_groups(state, seat, record) if record is not None else None
    return combat_groups.as_choice(kept or ())


def problems(state: FeState, seat: Seat, choice: object) -> list[Violation]:
    """Why ``choice`` is not ``seat``'s legal choice at 5-3E of a 5.10 game: each part by
    its old step's rules, on the board as the parts before it leave it."""
    parts = split(state, seat, choice)
    if isinstance(parts, str):
        return [Violation(parts, forces.FORCE_RULE)]
    for step_id, part in _steps(parts):
        found = combat_round.secret_problems(state, step_id, seat, part)
        if found:
            return found
        state, _ = combat_round.apply_choices(state, step_id, {seat: part}, [])
    return []


def apply(
    state: FeState, choices: Mapping[Seat, object], events: list[Event]
) -> tuple[FeState, list[RollRequest]]:
    """Both sides' revealed choices on the round's log, part by part as the old steps did."""
    parts: dict[Seat, Parts] = {}
    for seat, choice in choices.items():
        split_up = split(state, seat, choice)
        assert isinstance(split_up, Parts), split_up  # (checked before it was revealed)
        parts[seat] = split_up
    rolls: list[RollRequest] = []
    for index, step_id in enumerate((*FOLDED_STEPS, combat_round.FORCE_STEP)):
        made = {seat: _steps(p)[index][1] for seat, p in parts.items()}
        state, rolls = combat_round.apply_choices(state, step_id, made, events)
    return state, rolls


def _steps(parts: Parts) -> tuple[tuple[str, object], ...]:
    return (
        (combat_round.GROUPS_STEP, parts.groups),
        (combat_round.FLAGSHIP_STEP, parts.flagship),
        (combat_round.FORCE_STEP, parts.force),
    )


def join(groups: object, flagship: object, force: object) -> dict[str, object]:
    """The three old choices as one choice of 5-3E (what a policy or a script makes)."""
    chosen = dict(force) if isinstance(force, dict) else {"units": force}
    named = flagship if isinstance(flagship, dict) else {"flagship": flagship}
    chosen["flagship"] = named["flagship"]
    if named.get("command_points"):
        chosen["command_points"] = named["command_points"]
    chosen["groups"] = groups
    return chosen


def forced(state: FeState, seat: Seat) -> object | None:
    """``seat``'s only legal choice at 5-3E of a 5.10 game, when the board leaves one for
    each part (groups, flagship, force: `forced_choices`); else None."""
    if not together(state) or combat.current(state) is None:
        return None
    groups = forced_choices.forced(state, combat_round.GROUPS_STEP, seat)
    flagship = forced_choices.forced(state, combat_round.FLAGSHIP_STEP, seat)
    if groups is None or not isinstance(flagship, str):
        return None
    record = combat.current(state)
    assert record is not None
    here = [unit.id for unit in combat_round.available(state, seat, record)]
    if flagship and here != [flagship]:
        return None
    choice = join(groups, flagship, [flagship] if flagship else [])
    return choice if problems(state, seat, choice) == [] else None


def _folded(state: FeState, step_id: str) -> bool:
    return (
        step_id == combat_round.FORCE_STEP and together(state) and combat.current(state) is not None
    )


def secret_problems(
    state: FeState, step_id: str, seat: Seat, choice: object
) -> list[Violation] | None:
    """`combat_round.secret_problems`, but 5-3E of a 5.10 game by `problems`."""
    if _folded(state, step_id):
        return problems(state, seat, choice)
    return combat_round.secret_problems(state, step_id, seat, choice)


def apply_choices(
    state: FeState, step_id: str, choices: Mapping[Seat, object], events: list[Event]
) -> tuple[FeState, list[RollRequest]]:
    """`combat_round.apply_choices`, but 5-3E of a 5.10 game by `apply`."""
    if _folded(state, step_id):
        return apply(state, choices, events)
    return combat_round.apply_choices(state, step_id, choices, events)


def forced_choice(state: FeState, step_id: str, seat: Seat) -> object | None:
    """`forced_choices.forced`, but 5-3E of a 5.10 game by `forced`."""
    if _folded(state, step_id):
        return forced(state, seat)
    return forced_choices.forced(state, step_id, seat)
