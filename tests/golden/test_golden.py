"""Golden games: recorded chains replayed from their bytes, state hash checked after each packet.

Like python-chess's perft or OpenSpiel's playthroughs, these pin the exact behaviour of a
rules area: any change of encoding, hashing or rules shows up as the first packet whose state
hash moved. Regenerate on purpose only: `python -m tests.golden.regen`.

Each golden file has a text companion beside it (``fe_wind.msgpack`` -> ``fe_wind.txt``,
written by `tests.golden.companion`): a block per packet with its seq, seat, kind, the orders
and secret choices it carried in plain words, the text of every event it caused, and the
state hash after it. The binary diff of a regenerated golden says nothing; the diff of its
companion shows which packet now does what instead. The companion is replayed from the
committed binary and compared here, so the two can never drift apart.
"""

from __future__ import annotations

import msgspec
import pytest

from engine.core.game import apply_packet
from engine.core.packets import key_id, open_packet
from saves.registry import ruleset_for
from tests.golden.companion import companion_path, companion_text, read_golden
from tests.golden.regen import GOLDEN, HERE, LEDGERS, GoldenGame, campaign_ledger


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_chain_replays_to_the_recorded_hashes(name: str) -> None:
    golden = msgspec.msgpack.decode((HERE / name).read_bytes(), type=GoldenGame)
    ruleset = ruleset_for(golden.ruleset.split("/")[0])
    keys: dict[bytes, bytes] = {}
    state = None
    assert len(golden.packets) == len(golden.hashes) > 50  # a whole recorded game
    for seq, (data, expected) in enumerate(zip(golden.packets, golden.hashes, strict=True)):
        packet = open_packet(data, lambda kid: [keys[kid]] if kid in keys else [])
        if packet.envelope.public_key:
            keys[key_id(packet.envelope.public_key)] = packet.envelope.public_key
        result = apply_packet(ruleset, state, packet)
        assert result.state_hash == expected, f"{name}: state hash moved at packet {seq}"
        state = result.state


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_script_still_writes_the_same_bytes(name: str) -> None:
    recorded = msgspec.msgpack.decode((HERE / name).read_bytes(), type=GoldenGame)
    fresh = GOLDEN[name]()
    for seq, (old, new) in enumerate(zip(recorded.packets, fresh.packets, strict=True)):
        assert old == new, f"{name}: packet {seq} is written differently now"


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_text_companion_says_what_the_binary_does(name: str) -> None:
    path = companion_path(HERE / name)
    expected = companion_text(name, read_golden(HERE / name))
    regen = "run `python -m tests.golden.regen` and review `git diff tests/golden`"
    assert path.exists(), f"{path.name} is missing beside {name}: {regen}"
    committed = path.read_text(encoding="utf-8").splitlines()
    fresh = expected.splitlines()
    if committed != fresh:
        line = next(
            (i for i, (a, b) in enumerate(zip(committed, fresh, strict=False)) if a != b),
            min(len(committed), len(fresh)),
        )
        got = committed[line] if line < len(committed) else "(end of file)"
        want = fresh[line] if line < len(fresh) else "(end of file)"
        pytest.fail(
            f"{path.name} does not say what {name} does (line {line + 1}: has {got!r},"
            f" the binary gives {want!r}): {regen}"
        )


@pytest.mark.parametrize("name", sorted(LEDGERS))
def test_campaign_ledger_says_what_the_engine_books(name: str) -> None:
    """The committed ledger is the one the current engine writes from the golden game's events:
    a change of income, builds, deliveries or economies shows in its diff by player turn."""
    path = HERE / LEDGERS[name]
    assert path.exists(), f"{path.name} is missing: run `python -m tests.golden.regen`"
    committed = path.read_text(encoding="utf-8").splitlines()
    fresh = campaign_ledger(name).splitlines()
    for line, (old, new) in enumerate(zip(committed, fresh, strict=False)):
        assert old == new, f"{path.name} line {line + 1}: has {old!r}, the engine books {new!r}"
    assert len(committed) == len(fresh), f"{path.name}: {len(committed)} lines, not {len(fresh)}"
