"""A secret battle choice the board leaves one way to make is the engine's from F&E 5.8
(`engine.fe.steps.forced_choices`; the battle force of 5-3E from 5.9): the side is not
asked, and a step nobody is left to ask passes. Before, each side committed and revealed
it: two emails for a choice both players could write down, such as the carrier groups of a
second round, which the first fixed.

The small board (`tests.engine.fe_battle.small_board`, the tutorial's battle in 1105) has no
carrier on either side; in the golden The Wind game the Kzinti have carriers and escorts.
The lone raider's board (`lone_raider`) puts one Klingon ship against the Border Guard: its
flagship is its whole battle force.
"""

from __future__ import annotations

import msgspec
import pytest

from engine.core import entropy
from engine.core.errors import NotPending, OutOfTurn
from engine.core.owed import pending
from engine.core.packets import Commit, Turn
from engine.core.ruleset import DecisionKind
from engine.fe import RULESET
from engine.fe.model import FeState
from engine.fe.steps import combat, combat_round, force_together
from engine.fe.steps.forced_choices import forced
from tests.engine.fe.steps.tutorial_states import after_setup, orders, placed, run_to, texts
from tests.engine.fe_battle import (
    BATTLE_HEX,
    PlacedFe,
    play_battle,
    policy,
    rules,
    walk_to_secret,
)
from tests.engine.table import Table
from tests.golden.companion import read_golden, replay_golden
from tests.golden.test_frozen import FROZEN

SEATS = ["coalition", "alliance"]


PER_STEP = "5.9"
"""The last version whose 5-3C, 5-3D and 5-3E are each a secret step of its own (from 5.10
they are one choice at 5-3E, whose forced form `tests.engine.fe.steps.test_force_together`
and the 5.10 cases here check)."""


def by_hand(version: str | None = PER_STEP, label: str = "forced") -> Table:
    """The small board's battle fought two rounds by hand (each seat commits and reveals
    where it is asked; standing orders for phase 5, no policy)."""
    both = {"coalition": policy(2), "alliance": policy(2)}
    table = Table(PlacedFe(version=version), "tutorial", SEATS, label=label)
    play_battle(table, both, rounds=2, by_hand=True)
    return table


def _seen(table: Table, step: str) -> list[str]:
    return [e.text for e in table.events if e.step == step and e.kind in ("commit", "secret")]


def test_groups_no_side_can_form_are_the_rules_and_nobody_is_asked() -> None:
    """The small board: no carrier on either side, so 5-3C asks nobody, round after round."""
    seen = _seen(by_hand(), combat_round.GROUPS_STEP)
    made = (
        "5-3C (Secretly form carrier and escort groups) made by the rules, the only choice "
        "the board leaves (302.3): coalition: none; alliance: none"
    )
    assert len(seen) >= 2 and all(text == made for text in seen), seen


def test_a_game_of_5_7_still_asks_for_them() -> None:
    seen = _seen(by_hand("5.7", "forced-5.7"), combat_round.GROUPS_STEP)
    assert seen.count("coalition committed a secret choice for 5-3C") == 2
    assert not any("made by the rules" in text for text in seen)


def test_a_modified_client_cannot_commit_to_a_choice_the_rules_made() -> None:
    """A client that commits at a second round's 5-3C anyway (to hide a choice it would
    change later) is refused whole: the step is not open, and nothing of it is applied."""
    both = {"coalition": policy(2), "alliance": policy(2)}
    table = Table(PlacedFe(version=PER_STEP), "tutorial", SEATS, label="forced-forge")
    play_battle(table, both, rounds=1, by_hand=True)
    seat, kind, step = walk_to_secret(table)  # round 2's first secret step asked: 5-3D
    assert (kind, step) == (DecisionKind.SECRET, combat_round.FLAGSHIP_STEP)
    assert rules(table).battles[0].rounds == 1
    assert table.state is not None
    key = pending(table.ruleset, table.state)[0].key  # (the flagship's: ".../5-3D/N")
    groups_key = key.replace("/5-3D/", "/5-3C/")
    assert groups_key != key
    digest = entropy.commitment(table.game_id, groups_key, seat, bytes(32), b"\x90")
    before = table.state
    with pytest.raises((NotPending, OutOfTurn)):
        table.write(seat, Turn(table.ruleset.encode_orders([])), [Commit(groups_key, digest)])
    assert table.state is before
    assert table.owed() == (seat, DecisionKind.SECRET, combat_round.FLAGSHIP_STEP)
    assert forced(rules(table), combat_round.GROUPS_STEP, seat) == []


def test_the_golden_game_asks_for_groups_only_where_there_is_a_choice() -> None:
    """The golden The Wind game as fe 5.9 wrote it (frozen): in the battle in 0701 the
    Kzinti, with carriers and escorts there, are asked for their groups in round 1 (the
    Lyrans, with no carrier, are not); in round 2 nobody is, the groups staying as round 1
    formed them (515.15)."""
    golden = read_golden(FROZEN / "fe_5_9_wind.msgpack")  # (from 5.10: at 5-3E)
    seen = [
        (e.kind, e.text)
        for _seq, _packet, result in replay_golden(golden, RULESET)
        for e in result.events
        if e.step == combat_round.GROUPS_STEP and e.kind in ("commit", "secret")
    ]
    assert [text for _, text in seen[:3]] == [
        "alliance committed a secret choice for 5-3C",
        "5-3C (Secretly form carrier and escort groups) revealed: alliance: none",
        "5-3C (Secretly form carrier and escort groups) made by the rules, the only choice "
        "the board leaves (302.3): coalition: none",
    ]
    rest = [text for _, text in seen[3:]]
    assert rest and all(" made by the rules, " in t and "alliance: none" in t for t in rest), rest


RAIDER = "KLI-0001"


def at_version(state: FeState, version: str) -> FeState:
    return msgspec.structs.replace(state, version=version)


def lone_raider() -> FeState:
    """One Klingon ship (the Strike Force's first) in 1105 with the Border Guard."""
    return placed(after_setup(), {RAIDER: BATTLE_HEX})


def raid(version: str | None = None, label: str = "forced-raid") -> Table:
    both = {"coalition": policy(2), "alliance": policy(2)}
    table = Table(PlacedFe(lone_raider, version=version), "tutorial", SEATS, label=label)
    play_battle(table, both, rounds=2, by_hand=True)
    return table


@pytest.mark.parametrize(
    ("version", "choice"),
    [
        (PER_STEP, RAIDER),
        ("5.10", f"units {RAIDER}, flagship {RAIDER}, groups none"),
    ],
)
def test_a_lone_ship_is_its_whole_battle_force_and_its_side_is_not_asked(
    version: str, choice: str
) -> None:
    """From 5.9 the Klingons, with one ship in the hex (their flagship, the rules' too: the
    only one eligible), are not asked for a battle force: it can only be that ship (from 5.10
    with its flagship and groups, one choice). The Kzinti, with a choice, commit and reveal
    in one packet (nobody else is left to bind)."""
    table = raid(version, f"forced-raid-{version}")
    seen = _seen(table, combat_round.FORCE_STEP)
    assert seen, "no round reached 5-3E"
    assert not any(text.startswith("coalition committed") for text in seen), seen
    made = [text for text in seen if " made by the rules" in text or "and the rules" in text]
    assert made and all(f"coalition: {choice}" in text for text in made), seen
    assert "alliance committed a secret choice for 5-3E" in seen, seen


def test_a_game_of_5_8_still_asks_the_lone_ship_for_its_force() -> None:
    seen = _seen(raid("5.8", "forced-raid-5.8"), combat_round.FORCE_STEP)
    assert "coalition committed a secret choice for 5-3E" in seen, seen


def test_a_side_with_nothing_to_command_has_an_empty_force_and_a_lone_ship_itself() -> None:
    """The tutorial board with the D6 KLI-0005 alone against the Border Guard and the Kzinti
    planet in 1105: in round 1 the D6 is the Klingons' whole force, the Kzinti choose; once
    the Kzinti ships retreat, their planet fights on with no flagship (nothing there can
    command) and so with an empty force (302.3, I)."""
    board = at_version(placed(after_setup(), {"KLI-0005": BATTLE_HEX}), PER_STEP)
    state = run_to(board, "3B2")
    state = run_to(state, combat_round.FORCE_STEP)
    assert forced(state, combat_round.FORCE_STEP, "coalition") == ["KLI-0005"]
    assert forced(state, combat_round.FORCE_STEP, "alliance") is None
    state = run_to(state, "5-7A1")
    state, _ = orders(state, "alliance", {"type": "retreat"}, {"type": "done"})
    state, events = orders(state, "coalition", {"type": "done"})
    assert "alliance leaves its planet behind in 1105" in " ".join(texts(events, "battle"))
    state = run_to(state, "5-3X1", events)
    assert state.battles[0].rounds == 1 and combat.current(state) is not None
    made = (
        "5-3E (Secretly choose the battle force) made by the rules, the only choice the "
        "board leaves (302.3): coalition: KLI-0005; alliance: none"
    )
    assert made in texts(events, "secret"), texts(events, "secret")
    side = combat_round.side_now(state, "alliance")
    assert side is not None and (side.flagship, side.force) == ("", ())


def test_from_5_10_the_joined_choice_is_forced_part_by_part() -> None:
    """The same board at 5.10: the D6's joined choice is the rules' (its groups none, its
    flagship the only eligible unit, its force that unit); the planet left alone names no
    flagship and fields nothing."""
    board = at_version(placed(after_setup(), {"KLI-0005": BATTLE_HEX}), "5.10")
    state = run_to(run_to(board, "3B2"), combat_round.FORCE_STEP)
    alone = {"units": ["KLI-0005"], "flagship": "KLI-0005", "groups": []}
    assert force_together.forced(state, "coalition") == alone
    assert force_together.forced(state, "alliance") is None
    assert forced(state, combat_round.FORCE_STEP, "coalition") is None  # (5.9's candidate)
    # The forced flagship may be left out; command points named with it are still checked.
    assert force_together.problems(state, "coalition", {"units": ["KLI-0005"]}) == []
    odd_counts: tuple[object, ...] = (False, "", [], -1)
    for odd in odd_counts:
        found = force_together.problems(state, "coalition", {"units": [], "command_points": odd})
        assert found and found[0].rule == "302.32", (odd, found)
    state = run_to(state, "5-7A1")
    state, _ = orders(state, "alliance", {"type": "retreat"}, {"type": "done"})
    state, events = orders(state, "coalition", {"type": "done"})
    state = run_to(state, "5-3X1", events)
    nothing = "alliance: units none, flagship none, groups none"
    assert any(nothing in text for text in texts(events, "secret")), texts(events, "secret")
