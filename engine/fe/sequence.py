"""The F&E sequence of play (rule 105) as data: phases, headings and playable steps.

The sequence lives in ``engine/fe/data/sequence.json`` rather than in code so that the rule
references, actors and titles can be checked and corrected without touching game logic, and so
later issues can attach automation to a step id without reshaping the table.

Decisions recorded here:

* Only *leaves* are played. A step that has sub-steps in the rulebook (1A3, 1C, 5-3F, 5-4A7,
  5-4C, 6D, 11C, ...) is a heading: it groups its leaves, is never current and owes nothing.
  5-4C ("combat potential") is a heading too; its first leaf 5-4C1 carries the calculation.
* Lettered groups without an own line in the rulebook (5-4A1..5-4A7, 5-7A1..5-7A5) belong to
  the enclosing step heading (5-4, 5-7).
* ``actor`` follows the wording of rule 105: the phasing player completes a step unless the
  text names the non-phasing player (also "target empire", "defender" in combat), both or all
  players (also "players", "each player", "empires", and roles either seat may hold, such as
  the pursuer), or nobody (things that happen by rule: markers, automatic status changes,
  fixed adjustments, and the Orion pirates, who are not a seat). The phasing seat confirms
  "nobody" steps.
* A step flagged ``obsolete`` (5-8H) stays in the table so ids match the rulebook, and is
  skipped automatically.
* Phases flagged ``orion`` (phase 11) are played once per game turn after every player turn,
  only when the ``orion`` option is on; all other phases make up each player turn.

The file is read with ``importlib.resources`` so the package works from a wheel or a zip and
the engine stays free of ``os``/``open``.
"""

from __future__ import annotations

import functools
from importlib import resources

import msgspec

from engine.core.ruleset import Actor, StepKind

MAX_TITLE = 60
PLAYABLE_KINDS = (StepKind.MANUAL, StepKind.SECRET, StepKind.AUTOMATIC, StepKind.DECISION)


class Phase(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One phase of the sequence of play, e.g. ``5`` Combat (302.0)."""

    id: str
    title: str
    rule: str
    orion: bool = False
    """Played once per game turn after all player turns (with the ``orion`` option)."""


class Heading(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A group of steps (a rulebook step that has sub-steps); never played itself."""

    id: str
    title: str
    phase: str
    parent: str = ""
    rules: tuple[str, ...] = ()


class Step(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One playable step: who owes it, what kind of step it is, and its rule references."""

    id: str
    phase: str
    title: str
    actor: Actor
    kind: StepKind
    rules: tuple[str, ...] = ()
    heading: str = ""
    obsolete: bool = False
    area: str = ""
    """The rules area (`engine.fe.steps`) that runs an automatic step or checks a decision."""
    orders: tuple[str, ...] = ()
    """The order types a decision step takes besides ``done`` (e.g. ``move``, ``batch``)."""


class SequenceData(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The raw file: phases, headings and steps in rulebook order."""

    rule: str
    phases: tuple[Phase, ...]
    headings: tuple[Heading, ...]
    steps: tuple[Step, ...]


class SequenceError(ValueError):
    """The shipped sequence data is inconsistent (a packaging bug, never a player error)."""


class SequenceOfPlay:
    """The checked sequence of play with the lookups the ruleset needs.

    ``player_turn`` holds the steps of phases 1-10 in order, ``orion`` the steps of phase 11.
    """

    def __init__(self, data: SequenceData) -> None:
        _check(data)
        self.data = data
        self.phases: dict[str, Phase] = {p.id: p for p in data.phases}
        self.headings: dict[str, Heading] = {h.id: h for h in data.headings}
        self.steps: dict[str, Step] = {s.id: s for s in data.steps}
        orion_phases = {p.id for p in data.phases if p.orion}
        self.player_turn: tuple[Step, ...] = tuple(
            s for s in data.steps if s.phase not in orion_phases
        )
        self.orion: tuple[Step, ...] = tuple(s for s in data.steps if s.phase in orion_phases)

    def part(self, orion: bool) -> tuple[Step, ...]:
        """The steps of a player turn, or of the Orion phase."""
        return self.orion if orion else self.player_turn

    def heading_chain(self, step: Step) -> tuple[Heading, ...]:
        """The headings enclosing ``step``, outermost first."""
        chain: list[Heading] = []
        current = step.heading
        while current:
            heading = self.headings[current]
            chain.append(heading)
            current = heading.parent
        return tuple(reversed(chain))

    def span(self, name: str, steps: tuple[Step, ...]) -> tuple[int, int] | None:
        """First and last index in ``steps`` covered by a step, heading or phase id.

        Returns None when ``name`` names nothing in ``steps``.
        """
        hits = [i for i, step in enumerate(steps) if self._covers(name, step)]
        if not hits:
            return None
        return hits[0], hits[-1]

    def _covers(self, name: str, step: Step) -> bool:
        if name in (step.id, step.phase):
            return True
        return any(h.id == name for h in self.heading_chain(step))


def _check(data: SequenceData) -> None:
    names: list[str] = [p.id for p in data.phases]
    names += [h.id for h in data.headings]
    names += [s.id for s in data.steps]
    seen: set[str] = set()
    for name in names:
        if not name or name in seen:
            raise SequenceError(f"sequence id {name!r} is empty or not unique")
        seen.add(name)
    phase_order = [p.id for p in data.phases]
    orion_started = False
    for phase in data.phases:
        if orion_started and not phase.orion:
            raise SequenceError(f"phase {phase.id} follows an Orion phase")
        orion_started = orion_started or phase.orion
    headings = {h.id: h for h in data.headings}
    for heading in data.headings:
        if heading.phase not in phase_order:
            raise SequenceError(f"heading {heading.id} names unknown phase {heading.phase}")
        if heading.parent and headings.get(heading.parent, heading).phase != heading.phase:
            raise SequenceError(f"heading {heading.id} has a bad parent {heading.parent!r}")
    last_phase = 0
    for step in data.steps:
        if step.phase not in phase_order:
            raise SequenceError(f"step {step.id} names unknown phase {step.phase}")
        position = phase_order.index(step.phase)
        if position < last_phase:
            raise SequenceError(f"step {step.id} is out of phase order")
        last_phase = position
        if step.heading and step.heading not in headings:
            raise SequenceError(f"step {step.id} names unknown heading {step.heading}")
        if step.heading and headings[step.heading].phase != step.phase:
            raise SequenceError(f"step {step.id} sits under a heading of another phase")
        if not step.title.strip() or len(step.title) > MAX_TITLE:
            raise SequenceError(f"step {step.id} needs a title of 1..{MAX_TITLE} characters")
        if step.kind not in PLAYABLE_KINDS:
            raise SequenceError(f"step {step.id} has kind {step.kind.value}, not yet supported")
        if step.kind == StepKind.SECRET and step.actor != Actor.BOTH:
            raise SequenceError(f"secret step {step.id} must be played by both seats")
        if step.kind in (StepKind.AUTOMATIC, StepKind.DECISION) and not step.area:
            raise SequenceError(f"{step.kind.value} step {step.id} needs a rules area")
        if step.kind == StepKind.DECISION and not step.orders:
            raise SequenceError(f"decision step {step.id} needs the orders it takes")
        if step.kind in (StepKind.MANUAL, StepKind.SECRET) and (step.area or step.orders):
            raise SequenceError(f"{step.kind.value} step {step.id} takes no area or orders")
    if not any(not p.orion for p in data.phases):
        raise SequenceError("the sequence has no player-turn phase")


@functools.cache
def load_sequence() -> SequenceOfPlay:
    """The shipped sequence of play (decoded and checked once per process)."""
    raw = resources.files("engine.fe.data").joinpath("sequence.json").read_bytes()
    return SequenceOfPlay(msgspec.json.decode(raw, type=SequenceData))
