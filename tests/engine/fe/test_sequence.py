"""The sequence of play data: complete, in rulebook order, and consistent."""

from __future__ import annotations

import ast
from importlib import resources
from pathlib import Path

import msgspec
import pytest

from engine.core.ruleset import Actor, StepKind
from engine.core.sequence import MAX_TITLE, SequenceData, SequenceError, SequenceOfPlay
from engine.fe.sequence import load_sequence
from engine.fe.steps import AREAS, order_area

# Transcribed by hand from the sequence of play (rule 105), in order: every playable step.
EXPECTED_PLAYER_TURN = [
    "1A1", "1A2", "1A3A", "1A3B", "1A3C", "1A3D", "1B", "1C1", "1C2", "1C3", "1C4", "1C5",
    "1D", "1E", "1F", "1G", "1H",
    "2A1", "2A2", "2A3", "2A4", "2B1", "2B2", "2B3", "2B4", "2B5", "2B6", "2B7", "2B8", "2B9",
    "2B10", "2B11",
    "3A-1A", "3A-1B",
    "3A-2A", "3A-2B", "3A-2C", "3A-2D", "3A-2E", "3A-2F", "3A-2G", "3A-2H", "3A-2J",
    "3A-3A", "3A-3B", "3A-3C", "3A-3D", "3A-3E", "3A-3F", "3A-3G", "3A-3H", "3A-3J", "3A-3K",
    "3A-4A", "3A-4B", "3A-4C", "3A-4D", "3A-4E", "3A-4F", "3A-4G", "3A-4H", "3A-4J", "3A-4K",
    "3A-4L", "3A-4M", "3A-4N", "3A-4P", "3A-4Q",
    "3A-5A", "3A-5B", "3A-5C",
    "3A-6A", "3A-6B", "3A-6C", "3A-6D",
    "3B1", "3B2", "3B3", "3B4", "3B5", "3B6",
    "4A", "4B",
    "5-1A", "5-1B", "5-1C", "5-1D", "5-1E", "5-1F",
    "5-2A1", "5-2A2", "5-2A3", "5-2A4", "5-2B1", "5-2B2",
    "5-3A", "5-3B", "5-3C", "5-3D", "5-3E", "5-3F1", "5-3F2", "5-3F3", "5-3F4",
    "5-3X1", "5-3X2", "5-3X3", "5-3X4", "5-3X5",
    "5-4A1", "5-4A2", "5-4A3", "5-4A4", "5-4A5", "5-4A6",
    "5-4A7A", "5-4A7B", "5-4A7C", "5-4A7D", "5-4A7E", "5-4A7F", "5-4A7G",
    "5-4B", "5-4C1", "5-4C2",
    "5-5A", "5-5B", "5-5C", "5-5D", "5-5E",
    "5-6A", "5-6B", "5-6C", "5-6D", "5-6E", "5-6F", "5-6G", "5-6H",
    "5-6X1", "5-6X2", "5-6X3", "5-6X4", "5-6X5", "5-6X6", "5-6X7", "5-6X8", "5-6X9", "5-6X10",
    "5-7A1", "5-7A2", "5-7A3", "5-7A4", "5-7A5", "5-7B", "5-7C", "5-7D",
    "5-8A", "5-8B", "5-8C", "5-8D", "5-8E", "5-8F", "5-8G", "5-8H", "5-8J", "5-8K", "5-8L",
    "6A", "6B", "6C", "6D1", "6D2", "6D3", "6E", "6F", "6G",
    "7A", "7B", "7C", "7D",
    "8A", "8B", "8C",
    "9A", "9B",
    "10A", "10B", "10C", "10D",
]  # fmt: skip
EXPECTED_ORION = ["11A", "11B", "11C1", "11C2", "11D", "11E", "11F", "11G", "11H"]
PARENTS = ["1A", "1A3", "1C", "2A", "2B", "3A", "3B", "5-2A", "5-3F", "5-4A7", "5-4C", "6D", "11C"]
SECRET = {"5-3C", "5-3D", "5-3E", "5-3X2", "5-4A2", "5-8D"}

SEQ = load_sequence()


def test_every_step_is_there_in_order() -> None:
    assert [s.id for s in SEQ.main] == EXPECTED_PLAYER_TURN
    assert [s.id for s in SEQ.part("orion")] == EXPECTED_ORION


def test_ids_are_unique_across_phases_headings_and_steps() -> None:
    ids = [p.id for p in SEQ.data.phases] + list(SEQ.headings) + list(SEQ.steps)
    assert len(ids) == len(set(ids))


def test_parents_are_headings_not_playable_steps() -> None:
    for parent in PARENTS:
        assert parent in SEQ.headings
        assert parent not in SEQ.steps


def test_secret_steps_are_exactly_the_six() -> None:
    """A battle round's five, and the pursuit battle's set-up (5-8D, 307.3)."""
    secret = {s.id for s in SEQ.data.steps if s.kind == StepKind.SECRET}
    assert secret == SECRET
    for step_id in SECRET:
        assert SEQ.steps[step_id].actor == Actor.BOTH


def test_steps_are_well_formed() -> None:
    for step in SEQ.data.steps:
        assert step.title.strip(), step.id
        assert len(step.title) <= MAX_TITLE, step.id
        assert step.actor in set(Actor)
        assert step.kind in set(StepKind)
        if step.kind in (StepKind.AUTOMATIC, StepKind.DECISION) or step.area:
            assert step.area in AREAS, step.id
        for order in step.orders:  # adjust is every step's, listed where a step takes it only
            if order != "adjust":
                assert order_area(step, order) is AREAS[step.area], (step.id, order)
        assert step.phase in SEQ.phases
        for rule in step.rules:
            assert rule[0].isdigit() and "." in rule, (step.id, rule)


def test_only_5_8h_is_obsolete() -> None:
    assert [s.id for s in SEQ.data.steps if s.obsolete] == ["5-8H"]


@pytest.mark.parametrize(
    ("step_id", "actor"),
    [
        ("1A1", Actor.NOBODY),
        ("1A2", Actor.BOTH),
        ("1C3", Actor.PHASING),
        ("3B3", Actor.NON_PHASING),
        ("4A", Actor.NON_PHASING),
        ("4B", Actor.NON_PHASING),
        ("5-1A", Actor.NON_PHASING),
        ("5-1B", Actor.PHASING),
        ("5-3A", Actor.BOTH),
        ("5-5B", Actor.PHASING),
        ("5-5C", Actor.NON_PHASING),
        ("5-6D", Actor.BOTH),
        ("5-7A1", Actor.NON_PHASING),
        ("5-7A2", Actor.PHASING),
        ("5-4A4", Actor.BOTH),
        ("5-6X8", Actor.BOTH),
        ("5-7C", Actor.BOTH),
        ("5-7D", Actor.BOTH),
        ("5-8A", Actor.BOTH),
        ("5-8B", Actor.BOTH),
        ("5-2B2", Actor.NOBODY),
        ("6E", Actor.BOTH),
        ("10D", Actor.BOTH),
    ],
)
def test_actors_follow_the_rulebook(step_id: str, actor: Actor) -> None:
    assert SEQ.steps[step_id].actor == actor


# Phase 5 steps whose actor is a role either seat may hold (the base's owner, the retreating
# side, the pursuer, the owner of a special unit): both seats answer, and the title says who.
EITHER_SIDE = [
    "5-3B", "5-3X3", "5-3X5", "5-4A1", "5-4A3", "5-4A4", "5-4A7A", "5-4A7B", "5-4A7C",
    "5-4A7D", "5-4A7G", "5-4B", "5-4C2", "5-5A", "5-6E", "5-6F", "5-6G", "5-6H",
    "5-6X1", "5-6X2", "5-6X3", "5-6X4", "5-6X5", "5-6X6", "5-6X7", "5-6X8",
    "5-7C", "5-7D", "5-8A", "5-8B", "5-8F", "5-8J", "5-8K", "5-8L",
]  # fmt: skip
"""Rule 105's phase 5 read step by step: 5-4A4 (523.44, X-bases), 5-6X8 (425.3, bases), 5-7C/D
(307.73, 302.72, whoever retreats), 5-8A/B (302.742, the pursuer), 5-8J-L (302.72, the
pursued), and the special units either side may field (SFG 312.2, ISG 327.0, web casters
525.74, penal ships 528.41, pinwheels 322.54, SWACs 518.4, X-ships 523.38...)."""
PHASING_ONLY = ["5-1B", "5-1F", "5-2A1", "5-2A2", "5-2B1", "5-4A6", "5-5B", "5-6B", "5-7A2"]
DEFENDER = ["5-1A", "5-1C", "5-1D", "5-1E", "5-2A3", "5-5C", "5-6A", "5-7A1", "5-7A3"]


def test_phase_5_actors_follow_who_decides() -> None:
    combat = [s for s in SEQ.main if s.phase == "5" and not s.obsolete]
    by_actor = {s.id: s.actor for s in combat}
    assert [s for s in EITHER_SIDE if by_actor[s] != Actor.BOTH] == []
    assert [s for s in PHASING_ONLY if by_actor[s] != Actor.PHASING] == []
    assert [s for s in DEFENDER if by_actor[s] != Actor.NON_PHASING] == []
    assert sorted(s for s, a in by_actor.items() if a == Actor.PHASING) == sorted(PHASING_ONLY)
    assert sorted(s for s, a in by_actor.items() if a == Actor.NON_PHASING) == sorted(DEFENDER)
    for step_id in EITHER_SIDE:
        title = SEQ.steps[step_id].title.lower()
        says_who = ("each side", "either side", "owner", "retreating", "pursue")
        assert any(w in title for w in says_who), (step_id, title)


def test_phases_and_orion_flag() -> None:
    assert [p.id for p in SEQ.data.phases] == [str(n) for n in range(1, 12)]
    assert [p.id for p in SEQ.data.phases if p.part == "orion"] == ["11"]
    assert SEQ.phases["11"].rule == "504.0"


def test_span_resolves_steps_headings_and_phases() -> None:
    steps = SEQ.main
    ids = [s.id for s in steps]
    assert SEQ.span("1C3", steps) == (ids.index("1C3"), ids.index("1C3"))
    assert SEQ.span("1C", steps) == (ids.index("1C1"), ids.index("1C5"))
    assert SEQ.span("5-2", steps) == (ids.index("5-2A1"), ids.index("5-2B2"))
    assert SEQ.span("4", steps) == (ids.index("4A"), ids.index("4B"))
    assert SEQ.span("11A", steps) is None
    assert SEQ.span("nope", steps) is None


def test_the_steps_a_name_covers_are_those_covers_says() -> None:
    """`covered` (an index made once) answers as `covers` read step by step, for every
    step, heading and phase id, and for a name that is none of them."""
    names = [s.id for s in SEQ.every_step()] + list(SEQ.headings) + list(SEQ.phases)
    for name in [*names, "nope", ""]:
        expected = [s for s in SEQ.every_step() if SEQ.covers(name, s)]
        assert list(SEQ.covered(name)) == expected, name
    assert len(SEQ.covered("5")) > 50


def test_loader_rejects_duplicate_ids() -> None:
    raw = resources.files("engine.fe.data").joinpath("sequence.json").read_bytes()
    data = msgspec.json.decode(raw, type=SequenceData)
    twice = msgspec.structs.replace(data, steps=(*data.steps, data.steps[0]))
    with pytest.raises(SequenceError, match="not unique"):
        SequenceOfPlay(twice)


def test_loader_rejects_unknown_fields() -> None:
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(
            b'{"rule": "105.0", "phases": [], "headings": [], "steps": [], "extra": 1}',
            type=SequenceData,
        )


FORBIDDEN = {"os", "time", "random", "sqlite3", "asyncio", "socket", "textual", "rich"}
FORBIDDEN |= {"saves", "mail", "tui", "pathlib", "datetime", "subprocess"}


def test_engine_fe_imports_nothing_forbidden() -> None:
    root = Path(__file__).resolve().parents[3] / "engine" / "fe"
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert name.split(".")[0] not in FORBIDDEN, (path.name, name)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id != "open", path.name
            if isinstance(node, ast.Constant):
                assert not isinstance(node.value, float), (path.name, node.value)
