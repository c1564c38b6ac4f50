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

COMBAT = (
    "engine.fe.combat.ew",
    "engine.fe.combat.potential",
    "engine.fe.combat.small_scale",
    "engine.fe.steps.combat_policy",
    "engine.fe.steps.combat_round",
    "engine.fe.steps.movement",
    "engine.fe.steps.pursuit_round",
    "engine.fe.steps.reserves",
)
"""The combat sequence and the movement steps: a set-up game's first paint (its summary,
board, choices and checklist, and the rule options its income reads) needs none of them
(issue 16, item 5). They came in with the rule options declared in their modules and with
the combat policy's rule number, now in `engine.fe.option_specs`."""


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


def test_a_read_game_s_first_paint_and_rule_options_import_no_combat_module(
    tmp_path: Path,
) -> None:
    """As a client shows a game it read (the state decoded, as the replica decodes it; making
    a new game plays its first steps, which may fight): the face's summary, checklist and
    board and the rule options' values import none of `COMBAT`. (The set-up's choices offer
    placements, whose menu, `engine.fe.menus`, reads the movement steps: left out here.)"""
    import msgspec

    from engine.fe import FE

    state = FE.initial_state("the-wind", ["coalition", "alliance"], {})
    saved = tmp_path / "state.msgpack"
    saved.write_bytes(msgspec.msgpack.encode(state))
    code = "\n".join(
        [
            "import json, sys",
            "import msgspec",
            "from engine.fe import FACE, FeState",
            "from engine.fe import rule_options",
            f"state = msgspec.msgpack.decode(open({str(saved)!r}, 'rb').read(), type=FeState)",
            "FACE.summary(state)",
            "FACE.checklist(state)",
            "FACE.board(state)",
            "rule_options.values(state)",
            f"print(json.dumps([m for m in {COMBAT!r} if m in sys.modules]))",
        ]
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert json.loads(done.stdout) == []


def test_the_rules_modules_read_the_declared_options_themselves() -> None:
    """The same objects in the rules modules, in `engine.fe.option_specs` and in the list
    `rule_options` answers with: moving the declarations changed no answer."""
    from engine.fe import option_specs, rule_options
    from engine.fe.combat import ew, potential, small_scale
    from engine.fe.steps import combat_policy, pursuit_round, reserves

    pairs = (
        (pursuit_round.OPTIONS, option_specs.PURSUIT_OPTIONS),
        (reserves.OPTIONS, option_specs.RESERVES_OPTIONS),
        (ew.OPTIONS, option_specs.EW_OPTIONS),
        (potential.OPTIONS, option_specs.POTENTIAL_OPTIONS),
        (small_scale.OPTIONS, option_specs.SMALL_SCALE_OPTIONS),
    )
    for module_options, declared in pairs:
        assert module_options is declared
        assert all(spec in rule_options.RULE_OPTIONS for spec in declared)
    ids = [spec.id for spec in rule_options.RULE_OPTIONS]
    assert ids == sorted(ids) and len(ids) == len(set(ids))
    for spec_id in (
        "base-ew-order",
        "damage-rounding",
        "ew-shift-max",
        "flagship-counts",
        "pursuit-directed-cost",
        "pursuit-return-fire",
        "small-scale-size",
    ):
        assert spec_id in ids
    assert combat_policy.POLICY_RULE == option_specs.POLICY_RULE == "302.0"
    assert pursuit_round.BATTLE_RULE == "307.4"
    assert (ew.EW_RULE, ew.BASE_EW_RULE, potential.POTENTIAL_RULE) == ("308.51", "313.0", "302.4")
    assert small_scale.SIZE_RULE == "310.11"
