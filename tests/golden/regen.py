"""Rewrite the golden game files after an intended change of the rules or the encoding.

    .venv/bin/python -m tests.golden.regen [fe_battle.msgpack ...]

With names, only those golden files (and their companions) are written; without, all of
them and the ledgers.

Each ``.msgpack`` is written with its text companion (``.txt``, see `tests.golden.companion`)
beside it. Review ``git diff`` of the companions: a golden file changes only on purpose, and
the first block that differs says which packet now does something else.
"""

from __future__ import annotations

import sys
from pathlib import Path

import msgspec

from engine.core.game import apply_packet
from engine.core.state import state_hash
from tests.engine.fe_battle_golden import play_battle_golden
from tests.engine.fe_campaign import play_campaign
from tests.engine.fe_play import play_sample_fe_game
from tests.engine.fe_policy_golden import play_base_policy_golden, play_policy_golden
from tests.engine.fe_random_campaign import play_random_campaign
from tests.engine.fe_wind import play_wind_turns
from tests.engine.table import Table
from tests.golden.companion import GoldenGame, companion_path, companion_text, read_golden
from tests.golden.ledger import ledger, ledger_text, replay_events

HERE = Path(__file__).parent
__all__ = ["GOLDEN", "HERE", "LEDGERS", "GoldenGame", "campaign_ledger", "main"]


def fe_checklist() -> GoldenGame:
    return _record(
        play_sample_fe_game(),
        "The Wind: set-up, a roll, secret steps, a standing order, a combat loop (back)",
    )


def fe_wind() -> GoldenGame:
    return _record(
        play_wind_turns(),
        "The Wind: set-up and both player turns of turn 1 (income, builds, movement batches "
        "with a reaction window, battle, typed adjustments, strategic move, reserves)",
    )


def fe_campaign() -> GoldenGame:
    return _record(
        play_campaign(),
        "The Wind as a campaign from set-up to the end of turn 6: both sides build from their "
        "schedules every player turn, pre-war construction is delivered, the Far Stars and "
        "Baron's Fleets arrive by strategic movement, the Federation goes on a limited-war "
        "economy when the Lyrans enter Kzinti space, new units march each player turn",
    )


def fe_battle() -> GoldenGame:
    return _record(
        play_battle_golden(),
        "The Wind, turn 1: the Kzinti attack six Lyran ships in 0601; round 1 by hand (secret "
        "choices committed and revealed, the Lyrans' directed damage in a packet that ends "
        "their step (fe 5.5), allocations typed), round 2 by both sides' signed combat "
        "policies; the Lyrans retreat after round 2 and the Kzinti pursue",
    )


def fe_wander() -> GoldenGame:
    seed, turns = WANDER_GAME
    return _record(
        play_random_campaign(seed, turns, wander=True),
        f"The Wind from set-up, three turns of random play (seed {seed}, wandering): builds, "
        "moves, reactions, battles, and the orders of every other step drawn from the board: "
        "capture attempts, a pursuit, a repair, conversions, supply missions, withdrawals "
        "before combat, approach battles, declarations of war",
    )


def fe_policies() -> GoldenGame:
    return _record(
        play_policy_golden(),
        "The Wind, turn 1: the Kzinti attack six Lyran ships in 0601, both sides with standing "
        "orders for the combat phase and combat policies signed with their moves; the whole "
        "battle (two rounds, the Lyran retreat, the pursuit die and the pursuit round) fought "
        "by the one packet that gives the value its first dice wait for (follow-on dice, fe 5.1)",
    )


def fe_base_policies() -> GoldenGame:
    table, _asked = play_base_policy_golden()
    return _record(
        table,
        "The Wind, turn 1: six Lyran ships attack the Kzinti Count's Fleet and its battle "
        "station in 0701, both seats with the standing order manual and combat policies that "
        "answer the base battle's opening (fe 5.4) and never capture (fe 5.5), the Lyran "
        "policy leaving the BIR to the player (fe 5.6: the round's dice in order): the Kzinti "
        "refuse the approach battle, the Lyrans stay for the base battle, offer an approach "
        "battle in round 2 and retreat after it",
    )


def fe_planets() -> GoldenGame:
    seed, turns = PLANET_GAME
    return _record(
        play_random_campaign(seed, turns, policies=True),
        f"The Wind from set-up, two turns of random play with random combat policies (seed "
        f"{seed}): the Kzinti take the Klingon planet left alone in 1407 as their policy's "
        "planet capture says (fe 5.11), with no one asked",
    )


PLANET_GAME = (41, 2)
"""The random campaign with policies kept as the planets' golden game (seed, turns): the
first seed of 1-120 in which a policy takes a planet within two turns."""

WANDER_GAME = (17, 3)
"""The wandering random campaign kept as a golden game (seed, turns): the rules areas the
scripted games never reach, pinned packet by packet."""


def _record(table: Table, description: str) -> GoldenGame:
    state = None
    hashes = []
    for packet in table.packets:
        result = apply_packet(table.ruleset, state, packet)
        state = result.state
        hashes.append(result.state_hash)
        assert result.state_hash == state_hash(state)
    return GoldenGame(
        ruleset=f"{table.ruleset.id}/{table.ruleset.version}",
        description=description,
        packets=[p.data for p in table.packets],
        hashes=hashes,
    )


GOLDEN = {
    "fe_base_policies.msgpack": fe_base_policies,
    "fe_battle.msgpack": fe_battle,
    "fe_campaign.msgpack": fe_campaign,
    "fe_checklist.msgpack": fe_checklist,
    "fe_planets.msgpack": fe_planets,
    "fe_policies.msgpack": fe_policies,
    "fe_wind.msgpack": fe_wind,
    "fe_wander.msgpack": fe_wander,
}
LEDGERS = {"fe_campaign.msgpack": "fe_campaign_ledger.txt"}
"""Golden games with a campaign ledger beside them (`tests.golden.ledger`)."""


def campaign_ledger(name: str) -> str:
    """The ledger the current engine writes for the committed golden game ``name``."""
    events = replay_events(read_golden(HERE / name))
    return ledger_text(LEDGERS[name], ledger(events))


def main(names: list[str]) -> None:
    unknown = [name for name in names if name not in GOLDEN]
    if unknown:
        raise SystemExit(f"no golden game {unknown}: one of {sorted(GOLDEN)}")
    for name, make in GOLDEN.items():
        if names and name not in names:
            continue
        golden = make()
        (HERE / name).write_bytes(msgspec.msgpack.encode(golden))
        text = companion_path(HERE / name)
        text.write_text(companion_text(name, golden), encoding="utf-8")
        print(f"wrote {HERE / name} and {text.name}")
    for name, books in LEDGERS.items():
        if names and name not in names:
            continue
        (HERE / books).write_text(campaign_ledger(name), encoding="utf-8")
        print(f"wrote {HERE / books}")


if __name__ == "__main__":
    main(sys.argv[1:])
