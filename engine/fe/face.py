"""F&E seen through the client face (`engine.core.face`): summary, board, choices, checklist.

Clients draw any ruleset from these records alone; this module is the one place that turns
F&E's state into them. Empires become the board's sides (their treasury, income and units
as facts), units its pieces (crippled, out of supply, reserve as marks), and the hexes worth
showing its places (owner, planets and bases as features, battle and capture as marks). The
menus come from the current step: the orders its data lists, plus the sequence's own
(``done``, ``note``, ``roll``, ``standing``, ``back`` in combat) and typed adjustments.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from engine.core import caches
from engine.core.face import (
    Board,
    ChecklistItem,
    Choice,
    Fact,
    HexGrid,
    Landmarks,
    MapCell,
    MapSheet,
    Param,
    ParamKind,
    Preset,
    Reach,
    SideStyle,
    StepMenu,
    Summary,
    order_words,
    params_of,
)
from engine.core.ruleset import Event, Seat, StepKind
from engine.core.through import own_stops
from engine.core.turn_orders import Back, Done, Note, Roll
from engine.fe import face_board, flow, opening, orders, policy_cover, signed_choices
from engine.fe.flow import COMBAT_PHASE, TURNS
from engine.fe.galaxy import NEUTRAL_ZONE
from engine.fe.model import FeState
from engine.fe.orders import ADJUST_FIELDS, Adjust
from engine.fe.scenario import turn_date
from engine.fe.sequence import ORION_PART, Step
from engine.fe.steps import base
from engine.fe.steps.setup_stage import setup_steps

if TYPE_CHECKING:
    from engine.core.choices import Finding, OptionList

# The views, the menus, the lists, the finder and the combat steps' modules are imported in
# the functions that use them: a game screen's first paint needs the summary, the board and
# the current step's choices, and most steps offer no battle menu (issue 16, item 5).

MOVEMENT_PHASE = "3"
"""Where the reaction policy is offered (it is taken at any step the seat acts in)."""

ORDER_TYPES: dict[str, type[msgspec.Struct]] = {
    "place": orders.Place,
    "move": orders.MoveOrder,
    "batch": orders.Batch,
    "react": orders.React,
    "repair": orders.RepairOrder,
    "build": orders.BuildOrder,
    "convert": orders.ConvertOrder,
    "replace": orders.ReplaceOrder,
    "command-points": orders.CommandPointsOrder,
    "retrograde": orders.RetrogradeOrder,
    "strategic": orders.StrategicOrder,
    "reserve": orders.ReserveOrder,
    "mission": orders.MissionOrder,
    "declare": orders.DeclareWar,
    "battles": orders.BattlesOrder,
    "retreat": orders.RetreatOrder,
    "allocate": orders.AllocateOrder,
    "direct": orders.DirectOrder,
    "pursue": orders.PursueOrder,
    "withdraw": opening.WithdrawOrder,
    "oppose": opening.OpposeOrder,
    "approach": opening.ApproachOrder,
    "cloak": opening.CloakOrder,
    "capture": orders.CaptureOrder,
}
"""The rules orders a decision step may list, by their ``type``."""

KINDS: dict[str, ParamKind] = {
    "hex": ParamKind.HEX,
    "path": ParamKind.HEXES,
    "unit": ParamKind.PIECE,
    "units": ParamKind.PIECES,
    "through": ParamKind.STEP,
    "step": ParamKind.STEP,
    "steps": ParamKind.STEPS,
    "empire": ParamKind.SIDE,
    "fleet": ParamKind.GROUP,
}
"""Fields whose kind their type alone does not tell."""

ORDER_KINDS: dict[str, dict[str, ParamKind]] = {
    "react": {"trigger": ParamKind.HEX},
    "battles": {"hexes": ParamKind.HEXES},
    "allocate": {"losses": ParamKind.PICKS},
    "retreat": {"to": ParamKind.HEX},
    "retrograde": {"to": ParamKind.HEX},
    "strategic": {"to": ParamKind.HEX},
    "withdraw": {"to": ParamKind.HEX, "flagship": ParamKind.PIECE},
    "capture": {"by": ParamKind.PIECE},
}
"""Fields named alike elsewhere that are hexes in these orders (a conversion's ``to`` is a
class, a retrograde's a hex)."""

TITLES: dict[str, str] = {
    "done": "Complete the step",
    "note": "Write a note in the log",
    "roll": "Roll dice",
    "standing": "Standing order",
    "back": "Back to an earlier combat step",
    "adjust": "Adjust the board",
    "place": "Place a starting unit or fleet",
    "move": "Move a stack",
    "batch": "End a movement batch",
    "react": "React",
    "repair": "Repair",
    "build": "Build",
    "convert": "Convert",
    "replace": "Buy replacement PFs or F-111s",
    "command-points": "Buy extra command points",
    "retrograde": "Retrograde",
    "strategic": "Strategic move",
    "reserve": "Designate a reserve",
    "mission": "Give a mission",
    "declare": "Declare war",
    "battles": "Order the battles",
    "retreat": "Retreat from the battle",
    "allocate": "Allocate the damage",
    "direct": "Direct damage at one enemy unit",
    "pursue": "Pursue the retreating enemy",
    "policy": "Sign a combat policy",
    "withdraw": "Withdraw before combat",
    "oppose": "Oppose the withdrawal",
    "approach": "Offer, accept or refuse the approach battle",
    "cloak": "Use cloaking devices",
    "capture": "Try to capture a crippled enemy ship",
    "reaction": "Sign a reaction policy",
}


class FeFace:
    """F&E's `engine.core.face.Face`."""

    def summary(self, state: FeState) -> Summary:
        step = flow.current(state)
        phase = flow.phase_of(step) if step else None
        headings = flow.sequence().heading_chain(step) if step and not state.setup else ()
        part = "Set-up" if state.setup else "Orion phase" if state.orion else ""
        return Summary(
            turn=state.turn,
            turn_label=flow.turn_text(state.turn),
            turn_tag=_turn_tag(state.turn),
            part=part,
            step=step.id if step else None,
            step_title=step.title if step else "",
            phase=phase.id if phase else None,
            phase_title=phase.title if phase else "",
            headings=tuple(h.id for h in headings),
            phasing=None if state.over or state.orion else flow.phasing(state),
            waiting_for=flow.owing(state),
            over=state.over,
            facts=(Fact("scenario", state.scenario),),
        )

    def board(self, state: FeState) -> Board:
        return face_board.board(state)

    def quick_board(self, state: FeState) -> Board:
        """The board without what takes long to work out: every unit's supply
        (`engine.fe.face_board.quick_board`); a game screen shows it first."""
        return face_board.quick_board(state)

    def map_sheet(self, scenario: str) -> MapSheet:
        """The printed F&E map (the same for every scenario; captures are the board's)."""
        return _sheet()

    def choices(self, state: FeState, seat: Seat) -> tuple[Choice, ...]:
        step = flow.current(state)
        if step is None or seat not in flow.owing(state, step):
            return ()
        if step.kind == StepKind.SECRET:
            from engine.fe.steps import combat

            typed = _battle_secret(state, seat, step) if combat.current(state) else None
            if typed is not None:
                return (Choice("secret", typed[0], (typed[1],), _secret_rule(step)),)
            param = Param("choice", ParamKind.TEXT, True, (), "what you choose, in words")
            return (Choice("secret", "Secret choice", (param,), _rule(step)),)
        out = [_choice(tag, ORDER_TYPES[tag], step) for tag in step.orders if tag in ORDER_TYPES]
        out = [_with_presets(state, seat, choice) for choice in out]
        out.append(_choice("done", Done, step))
        out += [_choice("note", Note, step), _choice("roll", Roll, step)]
        out.append(signed_choices.standing_choice(TURNS, TITLES["standing"]))
        if step.phase == COMBAT_PHASE and not state.orion and not state.setup:
            out.append(_back_choice(state, step))
        out.append(_adjust_choice(state, seat))
        if not state.orion and not state.setup:
            # Taken at any step: signed before the combat phase, it lets the battle run
            # without a hand-off (pace.md), so it is offered at every step, not only in 5.
            out.append(signed_choices.policy_choice(state, seat, TITLES["policy"]))
        if step.phase == MOVEMENT_PHASE and not state.orion and not state.setup:
            # Taken at any step; offered where units move.
            out.append(signed_choices.reaction_choice(state, seat, TITLES["reaction"]))
        return tuple(out)

    def menu(
        self, state: FeState, seat: Seat, order: str, chosen: tuple[str, ...]
    ) -> StepMenu | None:
        """`engine.core.face.Menus`: the allocation of 5-6A/5-6B, loss by loss
        (`engine.fe.battle_menus`)."""
        from engine.fe import battle_menus

        if order == battle_menus.ALLOCATE:
            return battle_menus.allocation_menu(state, seat, chosen)
        return None

    def destinations(
        self,
        state: FeState,
        seat: Seat,
        order: str,
        pieces: tuple[str, ...],
        path: tuple[str, ...] = (),
    ) -> Reach | None:
        """`engine.core.face.Destinations`: where a strategic move, a retrograde, a
        withdrawal or a set-up fleet may go now, and the next hex of a move's path
        (`engine.fe.destinations`)."""
        from engine.fe import destinations

        return destinations.destinations(state, seat, order, pieces, path)

    def own_stops(self, state: FeState, seat: Seat) -> list[str]:
        """`engine.core.face.PlayOn`: the steps ``seat`` may play on to and still act at
        (`engine.core.through.own_stops`, ending as `FeRuleset.own_run` does, at dice)."""
        step = flow.current(state)
        if state.over or step is None or seat not in flow.owing(state, step):
            return []
        return own_stops(TURNS, state, seat, halt=flow.dice_armed)

    def lists(self, state: FeState, seat: Seat) -> tuple[OptionList, ...]:
        """`engine.core.choices.Lists`: set-up hexes, classes to build, units that may move
        (`engine.fe.choice_lists`)."""
        from engine.fe import choice_lists

        return choice_lists.lists(state, seat)

    def find(self, state: FeState, seat: Seat, text: str) -> tuple[Finding, ...]:
        """`engine.core.choices.Finder`: units, classes, fleets, hexes and planets
        (`engine.fe.finder`)."""
        from engine.fe import finder

        return finder.find(state, self.board(state), seat, text)

    def checklist(self, state: FeState) -> tuple[ChecklistItem, ...]:
        seq = flow.sequence()
        parts: list[tuple[bool | None, tuple[Step, ...]]] = []
        if state.setup:
            parts.append((None, flow.part(state)))
        parts.append((False, seq.main))
        if flow.orion_on(state):
            parts.append((True, seq.part(ORION_PART)))
        items: list[ChecklistItem] = []
        signed = state.policies or state.reaction_policies
        cover = policy_cover.policy_cover(state) if signed else None
        for orion, steps in parts:
            statuses = [_status(state, orion, index) for index in range(len(steps))]
            items += TURNS.rows(state, steps, statuses, cover, policy_cover.POLICY_ORDERS)
        return tuple(items)

    def past_steps(self, state: FeState) -> tuple[ChecklistItem, ...]:
        """`engine.core.face.PastSteps`: the set-up stage's steps once it is over (the
        checklist lists them only while it lasts)."""
        if state.setup:
            return ()
        steps = setup_steps(state.scenario)
        return tuple(TURNS.rows(state, steps, ["done"] * len(steps)))

    def order_text(self, order: Any) -> str:
        return order_words(orders.order_to_json(order))

    def landmarks(self) -> Landmarks:
        """A player turn, the set-up's end, the Orion phase and the end open a part of play
        (`engine.fe.flow`); every phase opens a phase."""
        return Landmarks(("player-turn", "setup-over", "orion", "over"), ("phase",))

    def headline(self, event: Event) -> str | None:
        """``event`` in a few words for the summary of what arrived (`engine.fe.headlines`)."""
        from engine.fe import headlines

        return headlines.headline(event)


def _turn_tag(turn: int) -> str:
    year, season = turn_date(turn)
    return f"T{turn} {season.capitalize()} Y{year}"


@caches.static
def _sheet() -> MapSheet:
    galaxy = base.galaxy()
    sides = tuple(
        SideStyle(e.id, e.name, e.short_name, e.glyph, e.color, e.color2)
        for e in galaxy.empires
        if e.id != NEUTRAL_ZONE
    )
    cells = []
    for info in galaxy.hexes:
        kinds = {p.kind for p in info.planets}
        features = [
            word
            for word, on in (
                ("capital", info.capital),
                ("major-planet", "major" in kinds),
                ("minor-planet", "minor" in kinds),
                ("base", bool(info.bases)),
            )
            if on
        ]
        neutral = info.empire == NEUTRAL_ZONE
        owner = "" if neutral else info.empire
        if owner or neutral or features:
            zone = "neutral" if neutral else ""
            cells.append(MapCell(f"{info.hex:04d}", owner, zone, tuple(features)))
    grid = HexGrid(galaxy.width, galaxy.height, low_columns="even")
    return MapSheet(grid, sides, tuple(cells))


PRESET_ORDERS = ("build", "convert", "place", "capture", "declare")
"""The orders whose choice comes with ready-made lines (`engine.fe.menus`)."""
OPTION_ORDERS = ("retreat", "repair", "mission")
"""The orders whose choice lists the values a parameter may take now (`engine.fe.menus`)."""


def _with_options(
    params: tuple[Param, ...], options: dict[str, tuple[str, ...]]
) -> tuple[Param, ...]:
    """``params`` with the values each may take now, where ``options`` lists any."""
    return tuple(
        msgspec.structs.replace(p, options=options[p.name]) if options.get(p.name) else p
        for p in params
    )


def _with_presets(state: FeState, seat: Seat, choice: Choice) -> Choice:
    """Menus of what the engine accepts now: builds, conversions, set-up fleets, captures
    and declarations of war ready to pick; the hexes a retreat may enter, the units that
    may be repaired or take the supply mission."""
    if choice.order in PRESET_ORDERS:
        from engine.fe import menus  # its tables and lists only at the steps that use them

        if choice.order == "place":  # each fleet still waiting, its hexes in the label (600.0)
            # The fields list what the empire setting up may place: the board's waiting
            # pieces are every empire's of the seat, and fleet names repeat across empires.
            from engine.fe.choice_lists import place_options

            params = _with_options(choice.params, place_options(state))
            presets = menus.place_presets(state, seat)
            return msgspec.structs.replace(choice, params=params, presets=presets)
        if choice.order == "build":
            return _build_choice(state, seat, choice)
        presets = {
            "convert": menus.convert_presets,
            "capture": menus.capture_presets,
            "declare": menus.declare_presets,
        }[choice.order](state, seat)
        return msgspec.structs.replace(choice, presets=presets)
    if choice.order in OPTION_ORDERS:
        from engine.fe import menus

        options: dict[str, tuple[str, ...]]
        if choice.order == "retreat":
            options = {"to": menus.retreat_hexes(state, seat)}
        elif choice.order == "repair":
            options = {"unit": menus.repair_units(state, seat)}
        else:
            options = {"unit": menus.mission_units(state, seat), "mission": ("supply", "none")}
        params = _with_options(choice.params, options)
        if choice.order == "retreat" and options["to"]:  # the first is the priorities' pick
            said = f"if none is named: {options['to'][0]}, the retreat priorities' pick (302.72)"
            params = tuple(msgspec.structs.replace(p, help=said) for p in params)
        return msgspec.structs.replace(choice, params=params)
    if choice.order == "allocate":  # the engine's allocation, and what there is to resolve
        from engine.fe.battle_menus import allocation_menu

        menu = allocation_menu(state, seat, ())
        if menu is None:
            return choice
        picked = "; ".join(menu.suggested)
        params = tuple(
            msgspec.structs.replace(p, help=menu.heading, suggested=picked)
            if p.name == "losses"
            else p
            for p in choice.params
        )
        return msgspec.structs.replace(choice, params=params)
    if choice.order == "move":
        # A path always; units as the app's stack key and forms write them (their defaults
        # only let a move name a stack or fleet instead, `engine.fe.stacks`).
        params = tuple(
            msgspec.structs.replace(p, required=True) if p.name in ("units", "path") else p
            for p in choice.params
        )
        return msgspec.structs.replace(choice, params=params)
    if choice.order == "direct":  # the enemy units directed damage may reach now (302.5)
        from engine.fe.steps import combat_directed, combat_pursuit, pursuit_round

        step = flow.current(state)
        in_pursuit = step is not None and step.id == pursuit_round.PURSUER_STEP
        rules_of = combat_pursuit if in_pursuit else combat_directed
        targets = rules_of.target_ids(state, seat)
        params = tuple(
            msgspec.structs.replace(p, options=targets) if p.name == "unit" else p
            for p in choice.params
        )
        from engine.fe.menus import direct_presets  # each order the points buy, priced

        return msgspec.structs.replace(choice, params=params, presets=direct_presets(state, seat))
    if choice.order == "pursue":  # the ships that may pursue now, and all of them (302.742)
        from engine.fe.steps import combat, pursuit_die

        record = combat.current(state)
        if record is None or pursuit_die.pursuer(state)[0] != seat:
            return choice
        ships = tuple(u.id for u in pursuit_die.pursuit_ships(state, seat, record.hex))
        if not ships:
            return choice
        label = f"every ship that may pursue ({len(ships)})"
        return msgspec.structs.replace(
            choice,
            params=_with_options(choice.params, {"units": ships}),
            presets=(Preset(label, (("units", " ".join(ships)),)),),
        )
    return choice


BUILD_HELP = {
    "cls": "a class as the unit tables name it: FF, D7",
    "instead_of": "the schedule's class it replaces, 450.0",
}


def _build_choice(state: FeState, seat: Seat, choice: Choice) -> Choice:
    """``build`` with each class the seat's empires may build now as a preset, and above
    the form each empire's treasury, schedule and sites; with no class to build, the note
    says so first, so a player is not left guessing at an empty menu."""
    from engine.fe import menus
    from engine.fe.choice_lists import production_notes

    presets = menus.build_presets(state, seat)
    notes = "; ".join(production_notes(state, seat))
    note = notes if presets else f"nothing to build now. {notes}"
    params = tuple(
        msgspec.structs.replace(p, help=BUILD_HELP[p.name]) if p.name in BUILD_HELP else p
        for p in choice.params
    )
    return msgspec.structs.replace(choice, params=params, presets=presets, note=note)


def _back_choice(state: FeState, step: Step) -> Choice:
    """``back``, with the steps it may name now as the menu of its ``step``."""
    choice = _choice("back", Back, step, rule=flow.COMBAT_RULE)
    targets = flow.back_targets(state, step)
    params = tuple(
        msgspec.structs.replace(p, options=targets) if p.name == "step" and targets else p
        for p in choice.params
    )
    return msgspec.structs.replace(choice, params=params)


def _choice(tag: str, order_type: type[msgspec.Struct], step: Step, rule: str = "") -> Choice:
    kinds = KINDS | ORDER_KINDS.get(tag, {})
    return Choice(tag, TITLES.get(tag, tag), params_of(order_type, kinds), rule or _rule(step))


def _battle_secret(state: FeState, seat: Seat, step: Step) -> tuple[str, Param] | None:
    """The typed secret choice of a battle round's step (`engine.fe.steps.combat_round`),
    or None where the step takes words."""
    from engine.fe import battle_menus
    from engine.fe.combat.results import BIR_PICK_MAX, BIR_PICK_MIN
    from engine.fe.steps import combat_round, pursuit_round

    if step.id == combat_round.GROUPS_STEP:
        return battle_menus.groups_secret(state, seat)
    if step.id == combat_round.FLAGSHIP_STEP:
        return "Secret flagship", battle_menus.flagship_param(state, seat)
    if step.id == combat_round.FORCE_STEP:
        return battle_menus.force_secret(state, seat)
    if step.id == combat_round.BIR_STEP:
        picks = tuple(str(n) for n in range(BIR_PICK_MIN, BIR_PICK_MAX + 1))
        help_text = "the battle intensity rating you pick for this round (304.1)"
        return "Secret BIR pick", Param("choice", ParamKind.INTEGER, True, picks, help_text)
    if step.id == pursuit_round.SETUP_STEP:
        picks = tuple(str(n) for n in range(BIR_PICK_MIN, BIR_PICK_MAX + 1))
        help_text = (
            "the BIR you pick for the pursuit battle (304.1); the pursued side's force is the "
            'engine\'s pick unless named: {"bir": 2, "flagship": ID, "force": [IDs]} (307.3)'
        )
        return "Secret pursuit set-up", Param("choice", ParamKind.INTEGER, True, picks, help_text)
    if step.id == combat_round.EW_STEP:
        entries = battle_menus.ew_entries(state, seat)
        if not entries:
            help_text = (
                "no unit of your battle force has an EW choice (308.51): send default; "
                "still asked, as its packets bring in the round's combat dice"
            )
            return "Secret EW choices", Param(
                "choice", ParamKind.TEXT, True, ("default",), help_text
            )
        help_text = "the EW of each unit or base with a choice; blank keeps the most attack"
        param = Param("choice", ParamKind.RECORD, True, (), help_text, entries)
        return "Secret EW choices", param
    return None


def _secret_rule(step: Step) -> str:
    """The rule a battle's secret form names: the step's first, but the battle force's own
    (302.31) at 5-3E, whose first listed rule is a rare case's (316.144, admirals)."""
    from engine.fe.combat import forces
    from engine.fe.steps import combat_round

    return forces.FORCE_RULE if step.id == combat_round.FORCE_STEP else _rule(step)


def _rule(step: Step) -> str:
    return step.rules[0] if step.rules else ""


def _adjust_choice(state: FeState, seat: Seat) -> Choice:
    """``adjust``; in a battle left going by a planet alone, its capture and devastation
    ready (`engine.fe.menus.planet_presets`)."""
    params = list(params_of(Adjust, KINDS))
    changes = tuple(ADJUST_FIELDS)
    params = [
        Param(p.name, p.kind, p.required, changes) if p.name == "change" else p for p in params
    ]
    presets: tuple[Preset, ...] = ()
    if state.battles:  # (the lists are worked out only where a battle is on record)
        from engine.fe import menus

        presets = menus.planet_presets(state, seat)
    return Choice("adjust", TITLES["adjust"], tuple(params), presets=presets)


def _status(state: FeState, orion: bool | None, index: int) -> str:
    """A checklist row's status; ``orion`` None marks the set-up part."""
    if state.setup:
        if orion is not None:
            return "todo"
        return "done" if index < state.step else "current" if index == state.step else "todo"
    if orion is None:
        return "done"
    if state.over or (state.orion and not orion):
        return "done"
    if orion != state.orion:
        return "todo"
    if index < state.step:
        return "done"
    return "current" if index == state.step else "todo"


FACE = FeFace()
