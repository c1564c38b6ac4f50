"""The rules areas' table (`engine.fe.steps`): a step's module is imported when its area is
first asked for, and the table read whole is the same as one built from every module."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from engine.fe import steps
from engine.fe.sequence import load_sequence

ROOT = Path(__file__).resolve().parents[3]


def test_every_area_the_sequence_names_is_played_by_its_module() -> None:
    named = {s.area for part in ("", "orion") for s in load_sequence().part(part) if s.area}
    assert named <= set(steps.AREAS)
    for name, each in steps.AREAS.items():
        assert steps.area(name) is each
        assert each.name == name
    assert {o: a for a in steps.AREAS.values() for o in a.orders} == steps.ORDER_AREAS


def test_a_step_module_is_imported_when_its_area_is_first_asked_for() -> None:
    """Strategic movement and retrograde are rules no other module of the ruleset imports:
    importing the ruleset leaves them out; asking for one area imports that module alone."""
    code = (
        "import sys\n"
        "import engine.fe\n"
        "from engine.fe import steps\n"
        "has = lambda m: f'engine.fe.steps.{m}' in sys.modules\n"
        "print(has('strategic'), has('retrograde'))\n"
        "steps.area('strategic')\n"
        "print(has('strategic'), has('retrograde'))\n"
        "steps.AREAS\n"
        "print(all(has(m) for m in steps._MODULES.values()))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out == ["False False", "True False", "True"]
