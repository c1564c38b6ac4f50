"""The rule options of the combat modules and of the reserves, as plain declarations.

`engine.fe.rule_options` gathers every rule option a game may set; a game screen reads them
(``rule_options.values``, for this turn's income) before anything is fought. Declared in
their rules modules (`engine.fe.steps.pursuit_round`, `engine.fe.steps.reserves`,
`engine.fe.combat.ew`, `engine.fe.combat.potential`, `engine.fe.combat.small_scale`), they
brought the whole combat sequence and the movement steps along with them, about a tenth of
the engine's import (issue 16, item 5). So their ids, defaults, texts and rule numbers live
here, importing nothing of the rules, and each rules module binds its own to the names it
always had (``OPTIONS`` among them): what the modules read and what `rule_options` answers
are the same objects as before. The combat policy's rule number is here for the same reason:
the face offers the policy at every step.
"""

from __future__ import annotations

from engine.core.ruleset import OptionSpec

# --- the combat policy (`engine.fe.steps.combat_policy`) ------------------------------------

POLICY_RULE = "302.0"
"""The rule a combat policy cites (the face offers the policy at every step, so it reads the
number here rather than import the policy's module, which brings the combat sequence)."""
POLICY_OPENING_FROM = "5.4"
"""The version from which a combat policy answers a base battle's opening steps and may say
``offer`` and ``approach`` (`engine.fe.steps.combat_policy.OPENING_FROM`); here for the face's
policy form, as the rule number above."""
POLICY_CAPTURE_FROM = "5.5"
"""The version from which a combat policy may say ``capture`` "never" (its seat is not asked
at 5-6X1, `engine.fe.steps.combat_capture`); here for the face's policy form."""

POLICY_DIRECT_FROM = "5.7"
"""The version from which a combat policy may say ``direct`` "never" (its seat is not asked
at its directed-damage step, `engine.fe.steps.combat_directed`); here for the face's policy
form."""

POLICY_PLANET_FROM = "5.11"
"""The version from which a combat policy may say ``planet`` "capture" or "devastate" (the
engine takes a planet left alone at its seat's retreat option,
`engine.fe.steps.planet_policy`); here for the face's policy form."""

# --- the pursuit battle (`engine.fe.steps.pursuit_round`) ------------------------------------

PURSUIT_BATTLE_RULE = "307.4"
RETURN_FIRE = "pursuit-return-fire"
DIRECTED_COST = "pursuit-directed-cost"
NORMAL, DOUBLE = "normal", "double"
PURSUIT_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        DIRECTED_COST,
        NORMAL,
        "The pursuer's directed damage in a pursuit battle: 'normal' (the defence once, "
        "307.4's exception to 302.5) or 'double' (as in a battle round)",
        PURSUIT_BATTLE_RULE,
        choices=(NORMAL, DOUBLE),
    ),
    OptionSpec(
        RETURN_FIRE,
        True,
        "In a pursuit battle the pursued fires back at the pursuers (false: only the "
        "pursuers fire)",
        PURSUIT_BATTLE_RULE,
    ),
)
"""The readings `engine.fe.steps.pursuit_round` leaves to the players."""

# --- reserves and command limits (`engine.fe.steps.reserves`) -------------------------------

FLAGSHIP_COUNTS = "flagship-counts"
RESERVES_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        FLAGSHIP_COUNTS, True, "The flagship counts against its own command rating", "302.33"
    ),
)
"""C in the rules notes: whether a battle force's flagship is inside its command limit."""

# --- electronic warfare (`engine.fe.combat.ew`) ---------------------------------------------

EW_RULE = "308.51"
"""Scouts' EW and the shift (step 5-4A2 cites 308.51 or 313.21)."""
BASE_EW_RULE = "313.0"
"""Electronic warfare (313.0): the base EW tables are play aids with no finer rule number."""

BASE_EW_ORDER = "base-ew-order"
EW_SHIFT_MAX_OPTION = "ew-shift-max"
RATING = "rating"
PLAY_AID = "play-aid"
EW_SHIFT_MAX = 2

EW_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        BASE_EW_ORDER,
        RATING,
        "Base EW table: 'rating' (EW factor 1 keeps the most attack, e.g. a starbase 36) or "
        "'play-aid' (the play aid's columns as the EW factor: EW 1 keeps 6)",
        BASE_EW_RULE,
        choices=(RATING, PLAY_AID),
    ),
    OptionSpec(
        EW_SHIFT_MAX_OPTION,
        EW_SHIFT_MAX,
        "Most the side with more EW points adds to its combat roll (the difference, capped)",
        EW_RULE,
        bounds=(0, 9),
    ),
)
"""The rule options `engine.fe.combat.ew` reads (house-rule defaults until checked against a
rulebook)."""

# --- combat potential and damage (`engine.fe.combat.potential`) -----------------------------

POTENTIAL_RULE = "302.4"
DAMAGE_ROUNDING = "damage-rounding"
NEAREST_HALF_UP = "nearest-half-up"
NEAREST_HALF_DOWN = "nearest-half-down"
DOWN = "down"
UP = "up"
ROUNDINGS = (NEAREST_HALF_UP, NEAREST_HALF_DOWN, DOWN, UP)

POTENTIAL_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        DAMAGE_ROUNDING,
        NEAREST_HALF_UP,
        "Rounding of potential x table percentage to whole damage points: 'nearest-half-up', "
        "'nearest-half-down', 'down' or 'up'",
        POTENTIAL_RULE,
        choices=ROUNDINGS,
    ),
)
"""The rule options `engine.fe.combat.potential` reads (house-rule defaults until checked
against a rulebook)."""

# --- small-scale combat (`engine.fe.combat.small_scale`) ------------------------------------

SIZE_RULE = "310.11"
SMALL_SCALE_SIZE = "small-scale-size"
SMALL_SCALE_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        SMALL_SCALE_SIZE,
        0,
        "Small-scale combat (310.0) for a battle where neither side has more than this many "
        "units able to fight in the hex at 5-3B of round 1 (310.11 is not in the rules "
        "summary; 0: never)",
        SIZE_RULE,
        bounds=(0, 99),
    ),
)
"""The rule options `engine.fe.combat.small_scale` reads."""
