"""The face imports its menus, lists and combat modules when first asked for them
(`engine.fe.face`): a game screen's first paint needs the summary, the board and the step's
choices, not the battle menus (issue 16, item 5)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

LAZY = (
    "engine.fe.battle_menus",
    "engine.fe.choice_lists",
    "engine.fe.finder",
    "engine.fe.headlines",
    "engine.fe.menus",
    "engine.fe.views",
)
"""Modules only the face's menus, lists, finder, headlines and board need (the combat steps'
modules are left out: the ruleset itself imports some of them as it plays)."""


def _loaded_after(calls: str) -> dict[str, list[str]]:
    """In a fresh interpreter: which of `LAZY` are imported after ``import engine.fe``, and
    after each line of ``calls`` (run with ``state`` a new game of The Wind, ``seat`` the
    seat it waits for)."""
    code = "\n".join(
        [
            "import json, sys",
            "import engine.fe",
            "from engine.fe import FACE, FE",
            "from engine.core.ruleset import Event",
            f"lazy = {LAZY!r}",
            "out = {'import': [m for m in lazy if m in sys.modules]}",
            "state = FE.initial_state('the-wind', ['coalition', 'alliance'], {})",
            "seat = FE.pending(state)[0].seats[0]",
            *(
                f"{line}\nout[{line!r}] = [m for m in lazy if m in sys.modules]"
                for line in calls.splitlines()
            ),
            "print(json.dumps(out))",
        ]
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    loaded: dict[str, list[str]] = json.loads(done.stdout)
    return loaded


def test_the_first_paint_imports_only_the_views() -> None:
    loaded = _loaded_after(
        "FACE.summary(state)\nFACE.choices(state, seat)\nFACE.checklist(state)\nFACE.board(state)"
    )
    assert loaded["import"] == loaded["FACE.summary(state)"] == []
    # The set-up's first step offers placements: their menu comes from `engine.fe.menus`.
    placing = ["engine.fe.choice_lists", "engine.fe.menus"]
    assert loaded["FACE.choices(state, seat)"] == loaded["FACE.checklist(state)"] == placing
    assert loaded["FACE.board(state)"] == [
        "engine.fe.choice_lists",
        "engine.fe.menus",
        "engine.fe.views",
    ]


def test_menus_lists_finder_and_headlines_are_imported_when_asked_for() -> None:
    loaded = _loaded_after(
        "FACE.menu(state, seat, 'allocate', ())\n"
        "FACE.find(state, seat, 'D7')\n"
        "FACE.headline(Event('x', 'y'))"
    )
    assert loaded["FACE.menu(state, seat, 'allocate', ())"] == ["engine.fe.battle_menus"]
    after_find = loaded["FACE.find(state, seat, 'D7')"]
    assert {"engine.fe.finder", "engine.fe.views"} <= set(after_find)
    assert "engine.fe.headlines" not in after_find
    assert "engine.fe.headlines" in loaded["FACE.headline(Event('x', 'y'))"]
