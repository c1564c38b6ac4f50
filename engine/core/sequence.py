"""A sequence of play as data: phases, headings and the steps players go through.

Board wargames print their turn as a numbered list of steps ("1A2: check supply", "3B3:
reaction movement"). A ruleset that has such a list ships it as JSON in this shape, and the
driver in `engine.core.turns` plays it: who owes each step, which steps the engine does
itself, standing orders, "done through", and going back to repeat a stretch of steps. The
data is checked once on load, so a typo in a ruleset's table is a packaging error raised at
start-up rather than a game that stalls months in.

Decisions recorded here:

* Only *steps* are played. A *heading* groups steps (a rulebook step that has sub-steps); it
  is never current and owes nothing, but names a range for ``done through`` and standing
  orders.
* A phase belongs to a *part*. Phases without a part make up the main part, played once per
  player turn (or round); a named part (e.g. one played once per game turn after every player
  turn) is entered only when the ruleset says so. Named parts come after the main part in
  the table.
* A step flagged ``obsolete`` stays in the table so ids keep matching the rulebook, and is
  passed automatically with an event.
* A step may say when it ``applies`` (opaque conditions the ruleset evaluates): a step about
  an empire or a kind of unit that is not in the game passes by itself, so no seat spends an
  email on it.
"""

import msgspec

from engine.core.ruleset import Actor, StepKind

MAX_TITLE = 60
PLAYABLE_KINDS = (StepKind.MANUAL, StepKind.SECRET, StepKind.AUTOMATIC, StepKind.DECISION)
MAIN_PART = ""
"""The part played every player turn."""
MANUAL_NAME = "manual"
"""A name a standing order may use besides the table's ids: every manual step
(`engine.core.standing`). No step, heading or phase may take it as its id."""


class Phase(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One phase of the sequence of play, e.g. ``5`` Combat."""

    id: str
    title: str
    rule: str
    part: str = MAIN_PART
    """The part of the game this phase is played in; empty for every player turn."""


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
    """The ruleset's rules area that runs an automatic step or checks a decision (on a
    secret step: the area that may say it needs nobody)."""
    orders: tuple[str, ...] = ()
    """The order types a decision step takes besides ``done`` (e.g. ``move``, ``batch``)."""
    applies: tuple[str, ...] = ()
    """When the step applies at all: conditions in the ruleset's own words (e.g.
    ``"empire:THO"``), every one of which must hold; the core never reads them, it asks the
    ruleset (`engine.core.turn_host.TurnHost.unmet`). A step whose conditions fail passes by itself
    with an event, whatever its kind, and nobody is asked. Empty: it always applies."""


class SequenceData(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The raw table: phases, headings and steps in rulebook order."""

    rule: str
    phases: tuple[Phase, ...]
    headings: tuple[Heading, ...]
    steps: tuple[Step, ...]


class SequenceError(ValueError):
    """The shipped sequence data is inconsistent (a packaging bug, never a player error)."""


class SequenceOfPlay:
    """The checked sequence of play with the lookups a driver needs.

    ``main`` holds the steps of the main part in order; ``parts`` every part by name (the
    main part under ``""``).
    """

    def __init__(self, data: SequenceData) -> None:
        _check(data)
        self.data = data
        self.phases: dict[str, Phase] = {p.id: p for p in data.phases}
        self.headings: dict[str, Heading] = {h.id: h for h in data.headings}
        self.steps: dict[str, Step] = {s.id: s for s in data.steps}
        names: list[str] = []
        for phase in data.phases:
            if phase.part not in names:
                names.append(phase.part)
        self.parts: dict[str, tuple[Step, ...]] = {
            name: tuple(s for s in data.steps if self.phases[s.phase].part == name)
            for name in names
        }
        self.main: tuple[Step, ...] = self.parts[MAIN_PART]
        covering: dict[str, list[Step]] = {}
        for step in data.steps:
            own = (step.id, step.phase, *(h.id for h in self.heading_chain(step)))
            for name in dict.fromkeys(own):
                covering.setdefault(name, []).append(step)
        self._covered: dict[str, tuple[Step, ...]] = {
            name: tuple(steps) for name, steps in covering.items()
        }
        """Per step, heading and phase id, the steps it covers (`covers`), in table order:
        a standing order of hundreds of names is expanded name by name, not by reading every
        step of the table for each (which a hostile packet of them made cost minutes)."""

    def part(self, name: str = MAIN_PART) -> tuple[Step, ...]:
        """The steps of one part ("" for the main part); empty for a part the table lacks."""
        return self.parts.get(name, ())

    def every_step(self) -> tuple[Step, ...]:
        """Every step of every part, in table order."""
        return self.data.steps

    def heading_chain(self, step: Step) -> tuple[Heading, ...]:
        """The headings enclosing ``step``, outermost first."""
        chain: list[Heading] = []
        current = step.heading
        while current:
            heading = self.headings[current]
            chain.append(heading)
            current = heading.parent
        return tuple(reversed(chain))

    def covers(self, name: str, step: Step) -> bool:
        """True when ``name`` is ``step``'s id, its phase or one of its headings."""
        if name in (step.id, step.phase):
            return True
        return any(h.id == name for h in self.heading_chain(step))

    def covered(self, name: str) -> tuple[Step, ...]:
        """Every step ``name`` covers (`covers`), in table order; empty for no such name."""
        return self._covered.get(name, ())

    def written_as(self, name: str) -> str | None:
        """The step, heading or phase id ``name`` is with other capitals (``1c5`` for
        ``1C5``), or None: ids are matched exactly, so a refusal can name the one meant."""
        wanted = name.strip().casefold()
        return next((known for known in self._covered if known.casefold() == wanted), None)

    def unknown_name(self, name: str) -> str:
        """What a refusal of ``name``, which names nothing here, adds: the id it is with
        other capitals, or nothing."""
        written = self.written_as(name)
        if written is not None:
            return f"; its id is written {written!r}"
        return ""

    def span(self, name: str, steps: tuple[Step, ...]) -> tuple[int, int] | None:
        """First and last index in ``steps`` covered by a step, heading or phase id.

        Returns None when ``name`` names nothing in ``steps``.
        """
        ids = {step.id for step in self.covered(name)}
        hits = [i for i, step in enumerate(steps) if step.id in ids]
        if not hits:
            return None
        return hits[0], hits[-1]


def decode_sequence(raw: bytes) -> SequenceOfPlay:
    """A ruleset's sequence table from its JSON bytes, checked."""
    try:
        data = msgspec.json.decode(raw, type=SequenceData)
    except msgspec.DecodeError as exc:
        raise SequenceError(f"the sequence table does not decode: {exc}") from None
    return SequenceOfPlay(data)


def _check(data: SequenceData) -> None:
    names: list[str] = [p.id for p in data.phases]
    names += [h.id for h in data.headings]
    names += [s.id for s in data.steps]
    seen: set[str] = set()
    for name in names:
        if not name or name in seen or name == MANUAL_NAME:
            raise SequenceError(f"sequence id {name!r} is empty, not unique or reserved")
        seen.add(name)
    _check_phases(data)
    headings = {h.id: h for h in data.headings}
    phase_order = [p.id for p in data.phases]
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
        _check_step(step)


def _check_phases(data: SequenceData) -> None:
    if not any(p.part == MAIN_PART for p in data.phases):
        raise SequenceError("the sequence has no phase of the main part")
    other_started = False
    for phase in data.phases:
        if other_started and phase.part == MAIN_PART:
            raise SequenceError(f"phase {phase.id} of the main part follows a named part")
        other_started = other_started or phase.part != MAIN_PART


def _check_step(step: Step) -> None:
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
    if step.kind == StepKind.MANUAL and (step.area or step.orders):
        raise SequenceError(f"{step.kind.value} step {step.id} takes no area or orders")
    if step.kind == StepKind.SECRET and step.orders:
        raise SequenceError(f"secret step {step.id} takes no orders (its area may pass it)")
    if any(not condition.strip() for condition in step.applies):
        raise SequenceError(f"step {step.id} has an empty condition in applies")
