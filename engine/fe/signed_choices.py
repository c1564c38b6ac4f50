"""The choices of the orders a seat signs in advance: its standing order, its combat policy
and its reaction policy (pace.md: the orders that save the email round trips).

Each starts where the player most likely wants it. A seat without a standing order is
offered ``manual`` first (every step the engine does not play, `engine.core.standing`);
one without a combat policy, `ENGINE_PICKS`. A seat with a policy in force finds each field
at its value (`engine.core.face.Param.value`): a new policy replaces the old one whole, so a
form that started blank would drop what the player did not type again. Kept apart from
`engine.fe.face`, which builds every other choice.
"""

from __future__ import annotations

import msgspec

from engine.core import caches
from engine.core.face import Choice, Param, ParamKind, Preset
from engine.core.ruleset import Seat, StepKind
from engine.core.sequence import MANUAL_NAME
from engine.core.turns import Turns
from engine.fe.flow import TURNS
from engine.fe.model import FeState


@caches.static
def _manual_count() -> int:
    """How many steps ``manual`` covers, from the shipped sequence (the choice is built at
    every step; the sequence never changes)."""
    return len(TURNS.expand_standing([MANUAL_NAME])[0])


def standing_choice(turns: Turns[FeState], title: str) -> Choice:
    """Steps, headings and phases to name; first, the order most players want (pace.md):
    ``manual``, every step the engine does not play, every decision left to the player."""
    steps = turns.host.sequence().every_step()
    names = tuple(s.id for s in steps if s.kind != StepKind.SECRET)
    manual = _manual_count()
    help_text = f"any of {len(names)} step ids, headings, phases, or {MANUAL_NAME}"
    param = Param("steps", ParamKind.STEPS, True, (), help_text)
    label = f"{MANUAL_NAME} (recommended): the {manual} steps the engine does not play"
    recommended = Preset(label, (("steps", MANUAL_NAME),))
    return Choice("standing", title, (param,), turns.rule, presets=(recommended,))


ENGINE_PICKS = Preset(
    "the engine's picks (recommended): flagship, force, EW, allocation; the rest asked",
    (("flagship", "auto"), ("force", "auto"), ("ew", "default"), ("allocate", "suggested")),
)
"""The combat policy offered to a seat without one: the choices that only optimise are the
engine's, the BIR, retreat and pursuit (the tactics) stay the player's. In
`bench/handoffs.py` with ``manual`` it takes a battle round from 15 hand-offs to 9."""


def policy_choice(state: FeState, seat: Seat, title: str) -> Choice:
    """The combat policy's fields as menus (empty: keep being asked), each starting from the
    seat's policy in force (`Param.value`: a new policy replaces the old one whole); with
    none in force, `ENGINE_PICKS` first. Its rule number comes from `engine.fe.option_specs`:
    the policy's module brings the whole combat sequence, and this choice is offered at
    every step, first paint included (issue 16)."""
    from engine.fe.option_specs import (
        POLICY_CAPTURE_FROM,
        POLICY_DIRECT_FROM,
        POLICY_OPENING_FROM,
        POLICY_PLANET_FROM,
        POLICY_RULE,
    )

    params: tuple[Param, ...] = (
        Param("flagship", ParamKind.TEXT, False, ("", "auto"), "auto: best command rating"),
        Param("force", ParamKind.TEXT, False, ("", "auto"), "auto: strongest legal force"),
        Param(
            "bir",
            ParamKind.INTEGER,
            False,
            ("-1", "1", "2", "3", "4"),
            "your BIR pick; -1 asks each round",
        ),
        Param("ew", ParamKind.TEXT, False, ("", "default"), "default: most attack"),
        Param("allocate", ParamKind.TEXT, False, ("", "suggested"), "the engine's allocation"),
        Param("retreat", ParamKind.INTEGER, False, (), "0 never, N after round N, -1 ask"),
        Param("pursue", ParamKind.TEXT, False, ("", "always", "never"), "pursue a retreat"),
    )
    if state.plays_at_least(POLICY_OPENING_FROM):  # approach battles at a base (302.22)
        params += (
            Param("offer", ParamKind.TEXT, False, ("", "always", "never"), "attacker, round 2 on"),
            Param("approach", ParamKind.TEXT, False, ("", "accept", "refuse"), "as the defender"),
        )
    if state.plays_at_least(POLICY_CAPTURE_FROM):  # captures of crippled ships (305.1)
        params += (Param("capture", ParamKind.TEXT, False, ("", "never"), "never: not asked"),)
    if state.plays_at_least(POLICY_DIRECT_FROM):  # directed damage (302.5)
        params += (Param("direct", ParamKind.TEXT, False, ("", "never"), "never: not asked"),)
    if state.plays_at_least(POLICY_PLANET_FROM):  # a planet left alone in a battle (508.2)
        options = ("", "capture", "devastate")
        params += (Param("planet", ParamKind.TEXT, False, options, "a planet left undefended"),)
    signed = next((policy for owner, policy in state.policies if owner == seat), None)
    if signed is None:  # the engine's picks, offered first
        return Choice("policy", title, params, POLICY_RULE, (ENGINE_PICKS,))
    now = {name: str(value) for name, value in msgspec.structs.asdict(signed).items()}
    now = {k: v for k, v in now.items() if v not in ("", "-1")}  # (the defaults: ask)
    params = tuple(msgspec.structs.replace(p, value=now.get(p.name, "")) for p in params)
    return Choice("policy", title, params, POLICY_RULE)


def reaction_choice(state: FeState, seat: Seat, title: str) -> Choice:
    """The reaction policy's fields (205.0): what the engine answers in the seat's windows,
    each starting from the seat's reaction policy in force (`Param.value`)."""
    from engine.fe.reaction import REACTION_RULE

    params: tuple[Param, ...] = (
        Param("mode", ParamKind.TEXT, True, ("ask", "never", "react"), "ask cancels the policy"),
        Param("units", ParamKind.PIECES, False, (), "react: these units (empty: any)"),
        Param("hexes", ParamKind.HEXES, False, (), "react: to these hexes, first preferred"),
        Param("otherwise", ParamKind.TEXT, False, ("stay", "ask"), "other units that could react"),
    )
    signed = next((policy for owner, policy in state.reaction_policies if owner == seat), None)
    if signed is not None:
        now = {
            "mode": signed.mode,
            "units": " ".join(signed.units),
            "hexes": " ".join(signed.hexes),
            "otherwise": signed.otherwise,
        }
        params = tuple(msgspec.structs.replace(p, value=now[p.name]) for p in params)
    return Choice("reaction", title, params, REACTION_RULE)
