"""The combat phase's list of battle hexes (302.0), and the record retrograde needs.

Combat itself stays manual for now; as phase 5 begins the engine tells both players where
they have to fight: every hex holding units of empires at war (`engine.fe.battles`), with
what each side has there ("1305 (KLI 4 ships vs KZI 3 ships and SB)"). A planet defends for
its owner (508.0, `engine.fe.planets`), so a ship alone at an enemy planet is a battle too
("0617 (LYR 1 ship vs HYD capital planets (6) and 7 PDU)"). The phasing player then picks
the order (302.9).

The hexes are also kept in the state (``FeState.battle_hexes``) until the next player turn
begins, because retrograde (206.0, step 6D2) may start only where combat took place. I: the
list is the one of the moment phase 5 begins; the combat loop (`engine.fe.steps.combat`)
fights them in order and adds a hex a retreat made a battle hex (302.9) to its own records.
"""

from __future__ import annotations

import msgspec

from engine.core.ruleset import Event
from engine.fe import battle_report, battles, planets
from engine.fe.battle_model import BattleRecord
from engine.fe.forces import Unit
from engine.fe.model import FeState
from engine.fe.sequence import load_sequence
from engine.fe.steps import base
from engine.fe.steps.base import Area
from engine.fe.unit_kinds import is_ship

COMBAT_PHASE = "5"

BATTLE_RULE = "302.0"
COMBAT_PHASE = "5"
ECONOMICS_PHASE = "1"


def _force_text(units: list[Unit], planet: str = "") -> str:
    """One empire's units in a hex: ``3 ships (1 crippled) and SB``; non-ships by class;
    ``planet`` (its planets in words) first when the empire's planet defends the hex."""
    ships = [u for u in units if is_ship(u)]
    parts: list[str] = [planet] if planet else []
    if ships:
        crippled = sum(1 for u in ships if u.crippled)
        parts.append(
            f"{len(ships)} ship{'s' if len(ships) != 1 else ''}"
            + (f" ({crippled} crippled)" if crippled else "")
        )
    others: dict[str, int] = {}
    for u in units:
        if not is_ship(u):
            name = u.cls + (" (crippled)" if u.crippled else "")
            others[name] = others.get(name, 0) + 1
    parts.extend(name if n == 1 else f"{n} {name}" for name, n in others.items())
    return " and ".join(parts) if len(parts) < 3 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _sides(state: FeState, hexes: battles.BattleHex) -> tuple[list[str], list[str]]:
    """The empires present, the phasing seat's first, then everyone else's."""
    mine = base.phasing_empires(state)
    first = [e for e in hexes.empires if e in mine]
    return first, [e for e in hexes.empires if e not in mine]


def _entry(state: FeState, found: battles.BattleHex) -> dict[str, object]:
    here = state.board.at(found.hex)
    phasing, others = _sides(state, found)
    by_empire = {e: [u for u in here if u.empire == e] for e in found.empires}
    planet = planets.describe(base.galaxy(), found.hex) if found.planet else ""
    shown = [
        ", ".join(
            f"{e} {_force_text(by_empire[e], planet if e == found.planet else '')}" for e in side
        )
        for side in (phasing, others)
        if side
    ]
    return {
        "hex": base.hex_text(found.hex),
        "sides": [phasing, others],
        "units": {e: [u.id for u in units] for e, units in by_empire.items()},
        "text": f"{base.hex_text(found.hex)} ({' vs '.join(shown)})",
    }


def battle_list(state: FeState) -> list[dict[str, object]]:
    """Every battle hex on the board now, for views: ``hex`` (``"1305"``), ``sides`` (two
    lists of empires, the phasing seat's first), ``units`` (unit ids per empire) and ``text``
    (``"1305 (KLI 4 ships vs KZI 3 ships and SB)"``); during the combat phase in the order
    they are fought, each with its record (`engine.fe.steps.combat`): ``order`` (1, 2...),
    ``rounds`` fought, ``fighting`` (the hex being fought), ``resolved`` (why it ended, ""
    while it goes on), ``log`` (per round: ``round``, then ``attacker`` and ``defender``, each
    side's ``potential``, ``bir``, ``vbir_die``, ``ew``, ``die``, ``permille``, ``damage``,
    ``directed``, ``allocated``, ``plus``, ``minus``: `engine.fe.battle_report.rounds`),
    ``report`` (the same as lines to read), ``retreated`` (seat -> hex its ships went to) and
    ``pursuit`` (``units``, ``die``, ``result``; empty without one, `steps.combat_retreat`).
    Hexes no longer contested but fought this phase stay listed."""
    found = {b.hex: b for b in battles.battle_hexes(state.board, base.galaxy())}
    listed: list[dict[str, object]] = []
    for order, record in enumerate(_this_turns_records(state), start=1):
        entry: dict[str, object] = {
            "hex": base.hex_text(record.hex), "sides": [], "units": {},
            "text": base.hex_text(record.hex),
        }  # fmt: skip
        if record.hex in found:
            entry = _entry(state, found.pop(record.hex))
        entry["order"] = order
        entry["rounds"] = record.rounds
        entry["fighting"] = order - 1 == state.battle_at and not record.resolved
        entry["resolved"] = record.resolved
        entry["log"] = battle_report.rounds_json(record)
        entry["report"] = battle_report.report_lines(record)
        entry["retreated"] = {seat: base.hex_text(h) for seat, h in record.retreated}
        entry["pursuit"] = (
            {"units": list(record.pursuers), "die": record.pursuit_die, "result": record.pursuit}
            if record.pursuit
            else {}
        )
        listed.append(entry)
    listed.extend(_entry(state, b) for _, b in sorted(found.items()))
    return listed


class _Battles(Area):
    name = "battles"

    def on_phase(self, state: FeState, phase: str, events: list[Event]) -> FeState:
        if phase == ECONOMICS_PHASE and state.battle_hexes:
            return msgspec.structs.replace(state, battle_hexes=())
        if phase != COMBAT_PHASE:
            return state
        found = battles.battle_hexes(state.board, base.galaxy())
        listed = [_entry(state, f) for f in found]
        text = (
            "Battle hexes: " + ", ".join(str(b["text"]) for b in listed)
            if listed
            else "No battle hexes: nobody fights this combat phase"
        )
        events.append(
            Event(
                "battle-hexes",
                f"{text} ({BATTLE_RULE})",
                base.phasing(state),
                data={
                    "hexes": [b["hex"] for b in listed],
                    "units": {str(b["hex"]): b["units"] for b in listed},
                    "rule": BATTLE_RULE,
                },
            )
        )
        return msgspec.structs.replace(state, battle_hexes=tuple(f.hex for f in found))


AREA = _Battles()


def _this_turns_records(state: FeState) -> tuple[BattleRecord, ...]:
    """The battle records of this player turn's combat phase: none before phase 5 begins
    (the records of the last one stay in the state until the next replaces them)."""
    if state.setup or state.orion:
        return ()
    return state.battles if state.step >= _first_combat_step() else ()


def _first_combat_step() -> int:
    return next(i for i, s in enumerate(load_sequence().part()) if s.phase == COMBAT_PHASE)
