"""The F&E ruleset's state: where the game stands, hashed after every packet.

The state is hashed after every packet, so it holds only *where the game stands* (turn, player
turn, step, who already answered a "both" step) and nothing that grows: notes, completed steps
and dice go into events. It has no floats and no dicts (options are a sorted tuple of pairs),
so its msgpack bytes are the same on every machine.

The orders that change it, and their wire and file forms, are `engine.fe.orders`.
"""

import functools
from collections.abc import Iterable

import msgspec

from engine.core.ruleset import OptionValue, RollRequest, Seat, version_numbers
from engine.fe import board_update, state_digest
from engine.fe.battle_model import BattleRecord, CombatPolicy
from engine.fe.forces import Board, Forces, Unit
from engine.fe.galaxy import HexId
from engine.fe.reaction import ReactionPolicy


class FeState(
    msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True, dict=True
):
    """Where an F&E game stands. Immutable: build new states with ``msgspec.structs.replace``.

    ``player_turn`` indexes ``seats`` (the phasing seat); during the Orion phase ``orion`` is
    true and ``player_turn`` keeps the last player turn's index. ``setup`` is true before the
    first turn, while the empires place their starting fleets; ``step`` then indexes the
    set-up steps (one per empire in the scenario's set-up order). ``step`` otherwise indexes
    the current part of the sequence (player-turn steps, or Orion steps). ``answered`` lists
    the seats that already completed the current "both" step. ``backs`` counts passes back
    to an earlier step in this player turn (combat rounds, movement batches); it makes
    decision keys unique when steps repeat.

    The board (units, captures, wars, released fleets) and each empire's treasury are here
    too; histories (moves made, builds bought) go into events, except the little the rules
    need within one phase (``moved``, ``reacted``, ``moved_once``, ``shipyard_used``).
    """

    scenario: str
    seats: tuple[Seat, ...]
    """Seats in player-turn order."""
    options: tuple[tuple[str, OptionValue], ...]
    last_turn: int
    turn: int
    player_turn: int = 0
    orion: bool = False
    step: int = 0
    answered: tuple[Seat, ...] = ()
    backs: int = 0
    over: bool = False
    standing: tuple[tuple[Seat, tuple[str, ...]], ...] = ()
    """Per seat, the step ids its standing order completes for it when they come up."""
    setup: bool = False
    forces: tuple[Forces, ...] = ()
    """Units per empire, empires in code order (so the concatenation is sorted by id)."""
    owners: tuple[tuple[HexId, str], ...] = ()
    at_war: tuple[tuple[str, str], ...] = ()
    released: tuple[tuple[str, str], ...] = ()
    treasury: tuple[tuple[str, int], ...] = ()
    """EP in halves per empire (``75`` is 37.5 EP), empires in code order."""
    moved: tuple[tuple[str, int], ...] = ()
    """Hexes each unit moved in the current movement phase (operational or reserve)."""
    reacted: tuple[str, ...] = ()
    """Units that reacted this player turn (205.0: a unit reacts once)."""
    batch: tuple[tuple[HexId, HexId], ...] = ()
    """What the phasing side's stacks did since the last reaction window (3B2, 205.0), as
    sorted, distinct ``(from_hex, to_hex)`` steps; ``(h, h)`` marks a stack's last hex (it
    stopped there). Cleared when a window closes (a window passed because nobody can react
    leaves it to the next phase) and as phases 3 and 4 begin."""
    window_from_batch: bool = False
    """A reaction window (3B3) opened by a ``batch`` order is open: closing it returns to 3B2,
    where the phasing seat moves on, rather than on to 3B4 (the step index cannot tell)."""
    reserves: tuple[str, ...] = ()
    """Units designated reserve fleets (9A), which may move in phase 4 (203.7)."""
    battle_hexes: tuple[HexId, ...] = ()
    """Battle hexes as this player turn's combat phase began (302.0), sorted: retrograde
    starts only from them (206.0). Emptied as phase 1 begins."""
    moved_once: tuple[str, ...] = ()
    """Units that made their one move of the current phase: a retrograde (6D2) or a strategic
    move (8A). Emptied as phases 6 and 8 begin; each empire's strategic moves this turn are
    counted from it (the free allowance and the EP are the empire's, 204.0)."""
    shipyard_used: tuple[tuple[str, str, int], ...] = ()
    """What the phasing empires drew this phase on Phase 2's per-turn limits, as sorted
    ``(empire, what, count)``: ``repair 1307`` points (420.42), ``slot D7`` schedule slots
    filled (431.0), ``substitutions`` (450.4), ``major 1411``/``minor 1411`` conversions
    (433.1), ``built``/``converted`` unit ids, ``fighters``/``pfs`` replaced per unit (501.5).
    Orders come one at a time, so each is checked against what the earlier ones used. Emptied
    as every phase begins (`engine.fe.steps.shipyard`)."""
    devastated: tuple[HexId, ...] = ()
    """Planet hexes devastated (508.2x), sorted: they pay no income until they recover."""
    supply_tugs: tuple[str, ...] = ()
    """Tugs, LTTs and convoys on the supply mission (509.1-D, set in 2B7), sorted: they
    extend their empire's supply grid."""
    economies: tuple[tuple[str, str], ...] = ()
    """Economies changed by a scenario's war-entry condition (``("FED", "limited-war")``),
    sorted by empire; an empire at war is on a war economy whatever this says
    (`engine.fe.steps.economy`)."""
    held: tuple[tuple[str, str, int], ...] = ()
    """Captured provinces as ``(province, captor, player turns held)``, sorted: counted at
    the captor's step 1A3B toward long-term capture (438.1, `engine.fe.provinces`)."""
    grid_ep: tuple[tuple[str, HexId, int], ...] = ()
    """EP in halves kept in partial supply grids as ``(empire, grid key hex, ep2)``, sorted
    (413.44, `engine.fe.provinces`): not in the treasury until the grid reconnects."""
    supply_checks: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """The units out of supply at each supply check of this player turn, by check step
    (``1A2``, ``3B1``, ``5-3A``...): sorted ids of units in neither the main nor a partial
    grid then. Movement reads 3B1 (410.31), combat 1A2 and the last 5-3A (410.22). Emptied
    as phase 1 begins (`engine.fe.steps.supply`)."""
    battles: tuple[BattleRecord, ...] = ()
    """This combat phase's battle hexes in the order they are fought (302.9), each with its
    record: emptied as the next player turn's phase 1 begins (`engine.fe.steps.combat`)."""
    battle_at: int = 0
    """The index in ``battles`` of the hex being fought."""
    battle_plan: tuple[HexId, ...] = ()
    """The phasing player's order of battle hexes (a ``battles`` order), used as phase 5
    begins."""
    last_actor: Seat = ""
    """The seat whose answer ended the last step a seat ended (`engine.core.turns`): a
    "both" step asks it first, which saves a hand-off per such step."""
    policies: tuple[tuple[Seat, CombatPolicy], ...] = ()
    """Each seat's signed combat policy (a ``policy`` order), by seat."""
    queued_rolls: tuple[RollRequest, ...] = ()
    """Dice the combat policies' choices asked for while the sequence ran on; the ruleset
    hands them to the core (to be armed) as the packet's order or roll is applied."""
    sids: tuple[tuple[str, int], ...] = ()
    """SIDS steps scored on each base's present side, by unit id (308.8, `steps.sids`)."""
    reaction_policies: tuple[tuple[Seat, ReactionPolicy], ...] = ()
    """Each seat's signed reaction policy (a ``reaction`` order), by seat: the engine answers
    that seat's reaction windows (3B3, 205.0) from it (`engine.fe.steps.reaction_policy`)."""
    command_points: tuple[tuple[str, int], ...] = ()
    """Extra command points each empire bought at 2B3 and has not spent yet (308.9), by
    empire (`engine.fe.steps.command_points`)."""
    version: str = ""
    """The ruleset version the game is played at, from 5.2 on ("" in a game begun before,
    which plays as 5.1 did, so its states keep their hashes): a rule a minor version changed
    asks `plays_at_least` (`engine.fe.checklist.FeRuleset.at_version` sets it)."""

    def plays_at_least(self, version: str) -> bool:
        """Whether this game is played at ``version`` ("MAJOR.MINOR") or later."""
        return bool(self.version) and version_numbers(self.version) >= version_numbers(version)

    def option(self, key: str) -> OptionValue | None:
        for name, value in self.options:
            if name == key:
                return value
        return None

    def standing_for(self, seat: Seat) -> tuple[str, ...]:
        for name, steps in self.standing:
            if name == seat:
                return steps
        return ()

    @functools.cached_property
    def board(self) -> Board:
        """The board the rules modules read, built once per state.

        States that differ only in bookkeeping (the step, who answered) share their board
        parts, and then the very same `Board` object, so caches keyed by the board's
        identity (supply grids) carry over from one step to the next.
        """
        return board_update.board_of(
            self.forces, self.owners, self.at_war, self.released, self.devastated
        )

    def with_board(self, board: Board) -> "FeState":
        """This state with ``board``'s units, owners, wars and released fleets.

        An empire whose units did not change keeps its old tuple (the same object), so its
        cached digest stays valid. A board `Board.with_units` made from this state's board
        costs only the units it changed (`with_units`).
        """
        origin = board.changes_from()
        if origin is not None and origin[0] is self.board:
            return self.with_units(origin[1].values())
        old = {f.empire: f for f in self.forces}
        grouped: dict[str, list[Unit]] = {}
        for unit in board.units:
            grouped.setdefault(unit.empire, []).append(unit)
        forces = []
        for empire in sorted(set(old) | set(grouped)):
            units = tuple(sorted(grouped.get(empire, ()), key=_unit_id))
            before = old.get(empire)
            forces.append(before if before is not None and before.units == units
                          else Forces(empire, units))  # fmt: skip
        return msgspec.structs.replace(
            self,
            forces=tuple(forces),
            owners=board.owners,
            at_war=board.at_war,
            released=board.released,
        )

    def with_units(self, units: Iterable[Unit]) -> "FeState":
        """This state with these units replacing those of the same id (or added).

        What `with_board` gives for ``self.board.with_units(units)``, at the cost of the
        changed units: only the empires they leave or join get a new tuple (a unit found by
        bisection, as each empire's units are sorted by id), and the new state's board
        derives its indexes and views from the previous board's when first asked, for the
        units changed since (`engine.fe.board_update`).
        """
        return board_update.with_units(self, units)

    def ep2(self, empire: str) -> int:
        """The empire's treasury in halves of an EP."""
        for name, value in self.treasury:
            if name == empire:
                return value
        return 0

    def with_ep2(self, empire: str, value: int) -> "FeState":
        entries = dict(self.treasury)
        entries[empire] = value
        return msgspec.structs.replace(self, treasury=tuple(sorted(entries.items())))

    def moved_by(self, unit_id: str) -> int:
        for name, hexes in self.moved:
            if name == unit_id:
                return hexes
        return 0

    def hash_form(self) -> dict[str, object]:
        """What the state hash encodes in place of this state (see `engine.core.state`): the
        fields off their defaults, the units as digests (`engine.fe.state_digest`)."""
        return state_digest.hash_form(self)

    def hash_form_bytes(self) -> bytes:
        """The canonical bytes of `hash_form`, made from bytes remembered per unchanged field
        (`engine.fe.state_digest.hash_form_bytes`): what `engine.core.state` hashes."""
        return state_digest.hash_form_bytes(self)


def _unit_id(unit: Unit) -> str:
    return unit.id
