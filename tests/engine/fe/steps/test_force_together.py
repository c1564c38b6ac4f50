"""Groups, flagship and battle force as one secret choice at 5-3E, from F&E 5.10
(`engine.fe.steps.force_together`).

The shipped ruleset still plays 5.9 (the app's form for the joined choice comes next): these
games are begun at 5.10 by `PlacedFe`. The large board (`tests.engine.fe_battle.large_board`)
has several eligible flagships on both sides, so at 5.9 its first round asks both sides at
5-3D and at 5-3E, each step a commitment and a reveal (its carriers have no escort to take:
the groups are the rules' choice, 5.8).
"""

from __future__ import annotations

import pytest

from engine.core import entropy
from engine.core.errors import NotPending, OutOfTurn
from engine.core.owed import pending
from engine.core.packets import Commit, Turn
from engine.core.ruleset import Decision, DecisionKind
from engine.fe import FACE
from engine.fe.model import FeState
from engine.fe.steps import combat, combat_round, force_together
from tests.engine.fe_battle import (
    PlacedFe,
    Played,
    large_board,
    play_battle,
    policy,
    rules,
    walk_to_secret,
)
from tests.engine.table import Table

SEATS = ["coalition", "alliance"]
TOGETHER = force_together.TOGETHER_FROM


def by_hand(version: str, label: str) -> tuple[Table, Played]:
    """The large board's battle, its first round fought by hand."""
    both = {"coalition": policy(2), "alliance": policy(2)}
    table = Table(PlacedFe(large_board, version=version), "tutorial", SEATS, label=label)
    return table, play_battle(table, both, rounds=1, by_hand=True)


def _secret_texts(table: Table, step: str) -> list[str]:
    return [e.text for e in table.events if e.step == step and e.kind in ("commit", "secret")]


def _chosen(state: FeState) -> list[tuple[str, str, tuple[str, ...], object, int]]:
    """Round 1's choices per side: flagship, force, groups, command points."""
    record = state.battles[0]
    log = record.log[0]
    return [
        (side.seat, side.flagship, side.force, side.groups, side.command_points)
        for side in (log.attacker, log.defender)
    ]


def test_one_commitment_per_side_chooses_groups_flagship_and_force() -> None:
    old, old_played = by_hand("5.9", "together-5.9")
    new, new_played = by_hand(TOGETHER, "together-5.10")
    flagship = combat_round.FLAGSHIP_STEP
    assert "coalition committed a secret choice for 5-3D" in _secret_texts(old, flagship)
    for step in (combat_round.GROUPS_STEP, flagship):
        assert _secret_texts(new, step) == []
        passed = [e.text for e in new.events if e.step == step and e.kind == "step-passed"]
        assert passed and all("chosen with the battle force at 5-3E (302.3)" in t for t in passed)
    commits = [t for t in _secret_texts(new, combat_round.FORCE_STEP) if "committed" in t]
    assert commits == [  # the alliance reveals in the same packet, the coalition after it
        "coalition committed a secret choice for 5-3E",
        "alliance committed a secret choice for 5-3E",
    ]
    # The same choices reach the round's log as when each step was its own.
    assert _chosen(rules(new)) == _chosen(rules(old))
    assert new_played.handoffs(1) < old_played.handoffs(1), (
        new_played.handoffs(1),
        old_played.handoffs(1),
    )


def test_a_later_round_chooses_at_5_3e_too() -> None:
    both = {"coalition": policy(2), "alliance": policy(2)}
    table = Table(PlacedFe(large_board, version=TOGETHER), "tutorial", SEATS, label="rounds")
    play_battle(table, both, rounds=2, by_hand=True)
    record = rules(table).battles[0]
    assert record.rounds >= 2 and len(record.log) >= 2
    second = record.log[1]
    assert second.attacker.flagship and second.attacker.force
    assert second.attacker.groups == record.log[0].attacker.groups  # kept (515.15)


def test_signed_policies_make_the_joined_choice_and_nobody_is_asked() -> None:
    both = {"coalition": policy(2), "alliance": policy(2)}
    table = Table(PlacedFe(large_board, version=TOGETHER), "tutorial", SEATS, label="pol")
    play_battle(table, both, rounds=2)
    assert not [e for e in table.events if e.kind == "commit"]
    made = _secret_texts(table, combat_round.FORCE_STEP)
    assert made and all("chosen by the signed policies" in t for t in made), made
    assert rules(table).battles[0].rounds >= 2


def _at_force_step() -> tuple[Table, FeState, Decision]:
    """The 5.10 large board at round 1's 5-3E, the coalition to commit."""
    both = {"coalition": policy(2), "alliance": policy(2)}
    table = Table(PlacedFe(large_board, version=TOGETHER), "tutorial", SEATS, label="probe")
    play_battle(table, both, rounds=0, by_hand=True)
    owed = walk_to_secret(table)
    assert owed == ("coalition", DecisionKind.SECRET, combat_round.FORCE_STEP)
    assert table.state is not None
    return table, rules(table), pending(table.ruleset, table.state)[0]


@pytest.fixture(scope="module")
def at_force() -> tuple[Table, FeState, Decision]:
    return _at_force_step()


def _problems(at: tuple[Table, FeState, Decision], choice: object) -> list[str]:
    table, state, decision = at
    return [v.message for v in table.ruleset.validate_secret(state, decision, "coalition", choice)]


def test_each_part_is_checked_by_its_old_step_s_rules(
    at_force: tuple[Table, FeState, Decision],
) -> None:
    state = at_force[1]
    eligible = combat_round.eligible_flagships(state, "coalition")
    assert len(eligible) > 1
    assert _problems(at_force, ["KLI-9000"])[0].startswith("the secret choice of 5-3E is an")
    odd_group = {"units": ["KLI-9000"], "flagship": "KLI-9000", "KLI-9001": 1}
    assert "5-3C" in _problems(at_force, odd_group)[0]  # a carrier's escorts, by 5-3C's rules
    both_ways = {"units": [], "flagship": "KLI-9000", "KLI-9001": [], "groups": []}
    assert _problems(at_force, both_ways)[0].startswith("name the carrier groups once")
    assert _problems(at_force, {"units": ["KLI-9000"]})[0].startswith(
        'name your "flagship": one of'
    )
    not_eligible = "KLI-0004"  # the F5S scout of the Strike Force
    assert not_eligible not in eligible
    said = _problems(at_force, {"units": [not_eligible], "flagship": not_eligible})
    assert "may not be flagship here" in said[0]
    flagship = eligible[0]
    units = combat_round.units_here(state, "coalition")
    assert "command" in _problems(at_force, {"units": list(units), "flagship": flagship})[0]
    bad_groups = {"units": [flagship], "flagship": flagship, "groups": "several"}
    assert _problems(at_force, bad_groups)
    assert _problems(at_force, {"units": [flagship], "flagship": flagship}) == []


def test_a_modified_client_cannot_commit_at_a_folded_step(
    at_force: tuple[Table, FeState, Decision],
) -> None:
    """5-3D is not open in a 5.10 game: a commitment to it is refused whole."""
    table, state, decision = at_force
    assert combat.current(state) is not None
    key = decision.key.replace("/5-3E/", "/5-3D/")
    assert key != decision.key
    digest = entropy.commitment(table.game_id, key, "coalition", bytes(32), b"\x90")
    before = table.state
    with pytest.raises((NotPending, OutOfTurn)):
        table.write("coalition", Turn(table.ruleset.encode_orders([])), [Commit(key, digest)])
    assert table.state is before


def test_the_app_s_form_writes_a_choice_the_engine_takes(
    at_force: tuple[Table, FeState, Decision],
) -> None:
    """The face offers 5-3E of a 5.10 game as one record: the flagship among the eligible
    units, then the force; filled as a player would, it makes a legal choice."""
    _, state, _ = at_force
    (choice,) = FACE.choices(state, "coalition")
    assert choice.order == "secret" and choice.title == "Secret battle force"
    assert choice.rule == "302.31"  # (not the step's first listed rule, 316.144: admirals)
    (param,) = choice.params
    names = [entry.name for entry in param.entries]
    assert names[:2] == ["flagship", "units"], names
    flagship = param.entries[0]
    assert tuple(flagship.options) == combat_round.eligible_flagships(state, "coalition")
    made = {"flagship": flagship.options[0], "units": [flagship.options[0]]}
    assert _problems(at_force, made) == []


def test_the_form_starts_from_the_force_a_policy_s_auto_would_pick(
    at_force: tuple[Table, FeState, Decision],
) -> None:
    """A player without a policy typed every id of the force by hand; the face now suggests
    the flagship and the force "auto" picks (best command rating, then the strongest legal
    force), and those values, as the form sends them, are a legal choice."""
    from engine.fe.battle_model import CombatPolicy
    from engine.fe.steps import combat_policy

    _, state, _ = at_force
    (choice,) = FACE.choices(state, "coalition")
    (param,) = choice.params
    entries = {entry.name: entry for entry in param.entries}
    auto = combat_policy.choice(state, combat_round.FORCE_STEP, "coalition", CombatPolicy())
    assert isinstance(auto, dict)
    assert entries["flagship"].suggested == auto["flagship"] != ""
    assert entries["units"].suggested.split() == auto["units"]
    assert len(auto["units"]) > 1
    made = {"flagship": auto["flagship"], "units": entries["units"].suggested.split()}
    assert _problems(at_force, made) == []
