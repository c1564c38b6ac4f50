"""Menus for a battle round's choices that a client builds piece by piece (`engine.fe.face`).

Two choices of a round are too rich for a plain form, and the client must not work out the
rules itself (it knows no F&E), so the face hands it what is legal:

- the ``allocate`` order of 5-6A and 5-6B (302.6), and of the pursuit battle (5-8E, 5-8F): a
  list of losses built one at a time. After each loss the legal next ones change (what is
  left, what is already crippled or gone), so
  `allocation_menu` answers for the losses picked so far with the pure rules' menu
  (`engine.fe.combat.allocation.next_choices`): the legal next losses with their prices, the
  points left, and whether the list may end here under the forced-resolution rule (302.61).
  The losses are written exactly as the order takes them (`combat_damage.loss_text`), so a
  list built from the menu is one the engine accepts. The engine's suggested allocation
  (`combat_damage.suggested`) comes with it, as a starting point.
- the secret EW choice of 5-4A2 (308.51, 313.0): `ew_entries` lists the units of the side's
  battle force that have a choice (a scout with EW modes, a base with an EW table) and the
  values each may take, with the attack each keeps, so a form asks for each unit in turn and
  writes ``{"UNIT-ID": EW}``. The values are found by asking the EW rules themselves
  (`engine.fe.combat.ew.unit_ew`) which choices they take, so the menu cannot drift from the
  check the reveal goes through;
- the secret flagship of 5-3D (302.32): `flagship_param` offers the eligible units and, in a
  battle's first round when the side holds command points (308.9), how many to spend with
  it, so the form writes ``{"flagship": ID, "command_points": N}``;
- the secret carrier groups of 5-3C and battle force of 5-3E (`groups_secret`,
  `force_secret`), and from F&E 5.10 the three at once at 5-3E (`together_secret`,
  `engine.fe.steps.force_together`): the flagship among the eligible units (left out where
  the rules leave one), the force, the command points a first round may spend, each
  carrier's escorts where a group can be formed, and the fighters sent forward.

The menus read the state the client's game stands in; they change nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from engine.core.face import MenuItem, Param, ParamKind, StepMenu
from engine.core.ruleset import Seat
from engine.fe import flow
from engine.fe.combat import allocation
from engine.fe.combat import ew as ew_rules
from engine.fe.combat.targets import points_text
from engine.fe.forces import Unit
from engine.fe.model import FeState
from engine.fe.steps import (
    base,
    combat,
    combat_damage,
    combat_groups,
    combat_round,
    force_together,
    forced_choices,
    pursuit_round,
)

ALLOCATE = "allocate"
LOSSES = "losses"
EW_PROBE = 13
"""EW values asked of the rules for each unit: 0 to 12 covers every EW mode (4 at most) and
every base's EW factor (6 at most) in the tables."""


def allocation_menu(state: FeState, seat: Seat, chosen: Sequence[str]) -> StepMenu | None:
    """What ``seat`` may lose next after the losses ``chosen`` (302.6, 302.61); None when it
    owes no allocation at the step being played."""
    step = flow.current(state)
    pursuit = (pursuit_round.PURSUER_STEP, pursuit_round.PURSUED_STEP)  # 307.4
    if step is None or step.id not in (*combat_damage.ALLOCATION_STEPS, *pursuit):
        return None
    if seat not in flow.owing(state, step):
        return None
    owed = combat_damage.owed2(state, seat)
    if owed is None:
        return None
    record, log, points2 = owed
    classes = {u.id: u.cls for u in combat_damage.units_of(state, seat)}
    targets = combat_damage.targets_of(state, seat)
    heading = (
        f"{step.id}: resolve {points_text(points2)} damage points on your battle force in "
        f"{base.hex_text(record.hex)}, round {log.round} ({allocation.ALLOCATION_RULE})"
    )
    suggested = combat_damage.suggested(state, seat)
    start = StepMenu(
        ALLOCATE,
        LOSSES,
        tuple(chosen),
        heading,
        _remaining(points2, True),
        suggested=tuple(suggested.losses) if suggested is not None else (),
    )
    done: list[allocation.Choice] = []
    for number, text in enumerate(chosen, 1):
        menu = allocation.next_choices(points2, targets, done)
        legal = {combat_damage.loss_text(p.choice): p.choice for p in menu.choices}
        if text not in legal:
            offered = "; ".join(legal) or "none: the points are resolved"
            problem = (
                f"loss {number}, {text[:60]!r}, is not a legal next loss "
                f"({allocation.ALLOCATION_RULE}); the legal ones were: {offered}"
            )
            return _replace(start, problem=problem, remaining=_remaining(menu.remaining2, False))
        done.append(legal[text])
    menu = allocation.next_choices(points2, targets, done)
    items = tuple(
        MenuItem(
            combat_damage.loss_text(p.choice),
            f"{combat_damage.loss_text(p.choice)} ({classes.get(p.choice.unit, '?')})",
            points_text(p.cost2),
        )
        for p in menu.choices
    )
    return _replace(
        start,
        items=items,
        remaining=_remaining(menu.remaining2, menu.may_stop),
        can_stop=menu.may_stop,
        why_not=menu.must,
    )


def _replace(menu: StepMenu, **changes: object) -> StepMenu:
    return msgspec.structs.replace(menu, **changes)


def _remaining(left2: int, may_stop: bool) -> str:
    """What is left to resolve, in words, with what becomes of it (308.2)."""
    rule = allocation.PLUS_MINUS_RULE
    if left2 < 0:
        return (
            f"{points_text(-left2)} points over-resolved: minus points against the enemy's "
            f"damage next round ({rule})"
        )
    if left2 == 0:
        return "all the points are resolved"
    if may_stop:
        return (
            f"{points_text(left2)} points left, too few to resolve anything: plus points for "
            f"the enemy next round ({rule})"
        )
    return f"{points_text(left2)} points left to resolve"


def ew_entries(state: FeState, seat: Seat) -> tuple[Param, ...]:
    """The units of ``seat``'s battle force in the battle being fought that have an EW choice
    at 5-4A2, each as a parameter whose options are the EW values it may take (308.51 for
    scouts' modes, 313.0 for bases' EW factors); empty when none has a choice."""
    record = combat.current(state)
    if record is None:
        return ()
    log = combat_round.current_round(state, record)
    side = log.attacker if log.attacker.seat == seat else log.defender
    here = {u.id: u for u in state.board.at(record.hex)}
    mine = set(base.empires_of(state, seat))
    enemies = tuple(sorted({u.empire for u in here.values() if u.empire not in mine}))
    order = ew_rules.ew_options(dict(state.options)).order
    entries: list[Param] = []
    for unit_id in side.force:
        unit = here.get(unit_id)
        if unit is None:
            continue
        picks: list[tuple[int, ew_rules.UnitEw]] = []
        for value in range(EW_PROBE):
            got = ew_rules.unit_ew(unit, value, enemies=enemies, order=order)
            if isinstance(got, ew_rules.UnitEw):
                picks.append((value, got))
        default = ew_rules.unit_ew(unit, None, enemies=enemies, order=order)
        if len(picks) < 2 or not isinstance(default, ew_rules.UnitEw):
            continue
        trade = ", ".join(f"EW {value}: attack {points_text(got.att2)}" for value, got in picks)
        is_base = ew_rules.base_ewf_range(unit.cls, crippled=unit.crippled) is not None
        rule = ew_rules.BASE_EW_RULE if is_base else ew_rules.EW_RULE
        help_text = f"{unit.cls} ({trade}); blank: EW {default.ew}, the most attack ({rule})"
        options = tuple(str(value) for value, _ in picks)
        entries.append(Param(unit.id, ParamKind.INTEGER, False, options, help_text))
    return tuple(entries)


def flagship_param(state: FeState, seat: Seat) -> Param:
    """5-3D: the flagship among the eligible units; with command points the seat may spend
    (round 1, 308.9), a ``record`` of the flagship and the points (a blank count spends
    none)."""
    options = combat_round.eligible_flagships(state, seat)
    help_text = "your flagship: one of your units rated among your three best (302.32)"
    flagship = Param("choice", ParamKind.PIECE, True, options, help_text)
    most = combat_round.spendable_points(state, seat)
    if not most:
        return flagship
    counts = tuple(str(n) for n in range(most + 1))
    points_help = "command points spent, each +1 to the command limit this round (308.9)"
    entries = (
        msgspec.structs.replace(flagship, name="flagship"),
        Param("command_points", ParamKind.INTEGER, False, counts, points_help),
    )
    record_help = f"your flagship, and up to {most} command points to spend (308.9)"
    return Param("choice", ParamKind.RECORD, True, (), record_help, entries)


def groups_secret(state: FeState, seat: Seat) -> tuple[str, Param]:
    """5-3C: one entry per carrier, its escorts as ids (a ``record``: the app's form writes
    ``{"CARRIER": ["ESCORT", ...]}``); "none" where no carrier has an escort to take, and
    the groups to name again after the first round (515.15)."""
    title = "Secret carrier groups"
    side = combat_round.side_now(state, seat)
    record = combat.current(state)
    kept = combat_round.kept_groups(state, seat, record) if record and side else None
    if kept is not None:
        shown = combat_groups.groups_text(kept)
        help_text = f"your groups stay until pursuit (515.15): {shown}"
        if not kept:
            return title, Param("choice", ParamKind.TEXT, True, ("none",), help_text)
        entries = tuple(
            Param(c, ParamKind.PIECES, True, (), f"escorts of {c}: {' '.join(e)}") for c, e in kept
        )
        return title, Param("choice", ParamKind.RECORD, True, (), help_text, entries)
    available = combat_round.available(state, seat, record) if record else []
    escorts = combat_groups.escorts(available)
    carriers = [(u, most) for u, most in combat_groups.carriers(available) if most]
    if not carriers or not escorts:
        help_text = "none of your carriers here has an escort to take (515.15)"
        return title, Param("choice", ParamKind.TEXT, True, ("none",), help_text)
    offered = " ".join(escorts)
    entries = tuple(
        Param(
            unit.id,
            ParamKind.PIECES,
            False,
            (),
            f"escorts of {unit.cls} {unit.id}, at most {most}, from {offered}",
        )
        for unit, most in carriers
    )
    help_text = "each carrier's escorts; blank: no group (515.15)"
    return title, Param("choice", ParamKind.RECORD, True, (), help_text, entries)


def force_secret(state: FeState, seat: Seat) -> tuple[str, Param]:
    """5-3E: the force's ids; where units could send fighters or PFs forward, a ``record`` of
    the ids and a JSON object of what each sends (no richer form fits a count per unit). From
    F&E 5.10, with the flagship and the groups (`together_secret`)."""
    if force_together.together(state):
        return together_secret(state, seat)
    here = ", ".join(combat_round.units_here(state, seat))
    help_text = (
        f"your battle force, flagship included, within its command rating (302.33), carrier "
        f"groups whole (515.15): {here}"
    )
    picked = _engine_force(state, seat)
    units = Param("choice", ParamKind.PIECES, True, (), help_text, suggested=picked["units"])
    record = combat.current(state)
    available = combat_round.available(state, seat, record) if record else []
    senders = combat_groups.senders(available)
    if not senders:
        return "Secret battle force", units
    entries = (msgspec.structs.replace(units, name="units"), _forward_param(senders))
    param = Param("choice", ParamKind.RECORD, True, (), "your battle force", entries)
    return "Secret battle force", param


def _forward_param(senders: Sequence[tuple[str, int, int]]) -> Param:
    """The fighters and PFs units outside the force send forward (a JSON object: no richer
    form fits a count per unit)."""
    listed = ", ".join(
        f"{i} {f // 2}{'.5' if f % 2 else ''} fighters" + (f" {p} PFs" if p else "")
        for i, f, p in senders
    )
    return Param(
        "forward",
        ParamKind.RECORD,
        False,
        (),
        '{"UNIT-ID": fighter factors, or {"fighters": F, "pfs": P}, or "all"} from units '
        f"outside the force, at most 3 ship equivalents (302.563, 302.332A): {listed}",
    )


def together_secret(state: FeState, seat: Seat) -> tuple[str, Param]:
    """5-3E of a 5.10 game: flagship, units, command points, each carrier's escorts and the
    fighters sent forward, as one ``record`` (`engine.fe.steps.force_together`)."""
    record = combat.current(state)
    available = combat_round.available(state, seat, record) if record else []
    here = ", ".join(u.id for u in available)
    entries: list[Param] = []
    picked = _engine_force(state, seat)
    made = forced_choices.forced(state, combat_round.FLAGSHIP_STEP, seat)
    if made is None:  # (with command points to spend: the flagship and their count)
        flagship = flagship_param(state, seat)
        named = flagship.entries or (msgspec.structs.replace(flagship, name="flagship"),)
        entries += [
            msgspec.structs.replace(p, suggested=picked["flagship"])
            if p.name == "flagship" and picked["flagship"] in p.options
            else p
            for p in named
        ]
    units_help = (
        f"your battle force, flagship included, within its command rating (302.33), carrier "
        f"groups whole (515.15): {here}"
    )
    if made is not None:
        units_help += f"; flagship {made} (the only choice)" if made else "; no flagship: []"
    entries.append(
        Param("units", ParamKind.PIECES, True, (), units_help, suggested=picked["units"])
    )
    entries += _escort_entries(state, seat, available)
    senders = combat_groups.senders(available)
    if senders:
        entries.append(_forward_param(senders))
    help_text = "your flagship, battle force and carrier groups, revealed together (302.3)"
    return "Secret battle force", Param("choice", ParamKind.RECORD, True, (), help_text,
                                        tuple(entries))  # fmt: skip


def _engine_force(state: FeState, seat: Seat) -> dict[str, str]:
    """The flagship and battle force a combat policy's "auto" picks for ``seat`` now
    (`combat_policy.choice`), as the form writes them: ``{"flagship": ID, "units": "ID
    ID"}``, each "" where it picks none. A form starts from them (`Param.suggested`)."""
    from engine.fe.battle_model import CombatPolicy
    from engine.fe.steps import combat_policy

    made = combat_policy.choice(state, combat_round.FORCE_STEP, seat, CombatPolicy())
    chosen = made if isinstance(made, dict) else {"units": made}
    units = chosen.get("units")
    flagship = chosen.get("flagship")
    return {
        "flagship": flagship if isinstance(flagship, str) else "",
        "units": " ".join(u for u in units if isinstance(u, str))
        if isinstance(units, list)
        else "",
    }


def _escort_entries(state: FeState, seat: Seat, available: Sequence[Unit]) -> list[Param]:
    """One entry per carrier that may take escorts, named by its id, where the groups are
    still to form (the first round, some carrier able to take an escort); else none."""
    record = combat.current(state)
    if record is None or combat_round.kept_groups(state, seat, record) is not None:
        return []
    if forced_choices.forced(state, combat_round.GROUPS_STEP, seat) is not None:
        return []
    offered = " ".join(combat_groups.escorts(available))
    return [
        Param(
            unit.id,
            ParamKind.PIECES,
            False,
            (),
            f"escorts of {unit.cls} {unit.id}, at most {most}, from {offered} (515.15)",
        )
        for unit, most in combat_groups.carriers(available)
        if most
    ]
