"""The records of the combat phase kept in `engine.fe.model.FeState`: each battle hex's
record, its rounds' logs, each side's part of a round, and the combat policies the seats
signed. Apart from the state module so that each stays readable; `engine.fe.model`
re-exports them. Each omits its fields at their defaults when encoded, so that a field added
later (with a default) changes neither old states' bytes nor their hashes."""

from typing import Annotated, Literal

import msgspec

from engine.core.ruleset import Seat
from engine.fe.galaxy import HexId
from engine.fe.opening import Opening


class CombatPolicy(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """What a seat signed in advance for its own part of every battle round, so routine
    rounds need no email from it (`engine.fe.steps.combat_policy`). Each field left at its
    default means "ask me". The policy is public: the opponent reads it before choosing.

    ``flagship``/``force`` "auto": the engine's pick (the best command rating; then the
    strongest ships that fit the command limit); ``bir``: the intensity picked each round
    (1-4, -1 ask); ``ew`` "default": the EW choices that keep the most attack;
    ``allocate`` "suggested": the engine's legal allocation of the damage taken;
    ``retreat``: 0 never retreat, N retreat once N rounds are fought, -1 ask; ``pursue``
    "always": every ship the side has in the hex pursues an enemy that retreated, "never":
    none does. From F&E 5.4, at a base (302.22, 302.23): ``offer`` "always"/"never", the
    attacker offers an approach battle every round from the second, or never; ``approach``
    "accept"/"refuse", the defender's answer to every approach battle offered; and
    ``retreat`` answers the attacker's retreat before a base battle too (it stays unless
    the policy's rounds are fought). From F&E 5.5, ``capture`` "never": the side tries no
    capture of a crippled enemy ship (305.1, 5-6X1), and is not asked each round. From F&E
    5.7, ``direct`` "never": the side makes no directed attack (302.5, 5-5B or 5-5C), and is
    not asked each round whether to. From F&E 5.11, ``planet`` "capture" or "devastate": where
    the enemy has nothing left in a battle hex but its planet (508.2), the side captures or
    devastates it at its retreat option, and is not asked whether to stay."""

    flagship: Literal["", "auto"] = ""
    force: Literal["", "auto"] = ""
    bir: Annotated[int, msgspec.Meta(ge=-1, le=4)] = -1
    ew: Literal["", "default"] = ""
    allocate: Literal["", "suggested"] = ""
    retreat: Annotated[int, msgspec.Meta(ge=-1, le=99)] = -1
    pursue: Literal["", "always", "never"] = ""
    offer: Literal["", "always", "never"] = ""
    approach: Literal["", "accept", "refuse"] = ""
    capture: Literal["", "never"] = ""
    direct: Literal["", "never"] = ""
    planet: Literal["", "capture", "devastate"] = ""


class SideRound(msgspec.Struct, frozen=True, omit_defaults=True):
    """One side's part of a battle round as the engine played it: its secret choices
    (flagship 302.32, battle force 302.3, BIR pick 304.1, EW choices 308.51) and what they
    gave: combat potential (doubled), EW points and shift, its die, the table's per-mille and
    the damage points (-1 until rolled)."""

    seat: Seat
    flagship: str = ""
    force: tuple[str, ...] = ()
    bir: int = 0
    ew_choices: tuple[tuple[str, int], ...] = ()
    potential2: int = -1
    ew: int = 0
    shift: int = 0
    die: int = 0
    permille: int = 0
    damage: int = -1
    resolved2: int = -1
    """Doubled points of the enemy's damage this side resolved at 5-6 (-1: not yet)."""
    losses: tuple[str, ...] = ()
    """What it lost, in words (``"KZI-0004 crippled"``)."""
    directed: str = ""
    """Its directed damage at 5-5B/5-5C (302.5), in words (``"KZI-0004 crippled"``)."""
    directed2: int = 0
    """Doubled points its directed damage spent; the enemy resolves only the rest (302.6)."""
    forward: tuple[tuple[str, int], ...] = ()
    """Units outside its force sending fighters or PFs forward, with the fighters (doubled
    factors; 0 for PFs alone): its support echelon (302.563), set at 5-3E."""
    groups: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Its carrier groups formed at 5-3C: each carrier with its escorts (515.15)."""
    forward_pfs: tuple[tuple[str, int], ...] = ()
    """PFs each unit of its support echelon sends forward (302.563), set at 5-3E."""
    command_points: int = 0
    """Command points its flagship's empire spent at 5-3D of round 1 (308.9): they raise the
    command limit of its battle force this round."""


class RoundLog(msgspec.Struct, frozen=True, omit_defaults=True):
    """One round of a battle: each side's part, the variable BIR die rolled at the reveal of
    the picks and the total used (304.3; -1 until rolled)."""

    round: int
    attacker: SideRound
    defender: SideRound
    vbir_die: int = 0
    bir: int = -1
    deferred: bool = False
    """The round's dice wait for the seats' next packets instead of being read at a reveal
    (a signed policy chose for a seat: `engine.fe.steps.combat_policy`)."""
    pursuit: bool = False
    """The pursuit battle's one round (307.4, `engine.fe.steps.combat_pursuit`): fought
    after the battle's last round, between the pursuers and the ships that retreated."""


class CaptureAttempt(msgspec.Struct, frozen=True, omit_defaults=True):
    """One capture attempt at 5-6X1 (305.1): who tried, on what, with which ship, the dice
    modifier, and the two dice once rolled (``result`` "rolling", "captured" or "failed")."""

    round: int
    seat: Seat
    unit: str
    by: str
    modifier: int = 0
    dice: tuple[int, ...] = ()
    result: str = "rolling"


class BattleRecord(msgspec.Struct, frozen=True, omit_defaults=True):
    """One battle hex of the combat phase (302.9): rounds fought, who announced a retreat in
    the round being fought, why it ended ("" while it goes on or waits its turn), and the
    rounds' logs."""

    hex: HexId
    rounds: int = 0
    retreats: tuple[Seat, ...] = ()
    resolved: str = ""
    log: tuple[RoundLog, ...] = ()
    carry: tuple[tuple[Seat, int], ...] = ()
    """Per side, doubled points carried to the next round's damage against it: plus points
    it left unresolved (positive) or minus points it over-resolved (negative) (308.2)."""
    retreat_to: tuple[tuple[Seat, HexId], ...] = ()  # hex a retreat named (0: engine's pick)
    retreated: tuple[tuple[Seat, HexId], ...] = ()  # where each side's ships retreated (302.72)
    pursuers: tuple[str, ...] = ()  # the units sent after the retreating enemy (302.742)
    pursuit_die: int = 0  # 0: none rolled
    pursuit_modifier: int = 0
    pursuit: str = ""  # "" (none), "rolling", "succeeded", "failed" (307.0) or "fought"
    opening: Opening = Opening()
    """Withdrawal before combat and action with bases (302.1, 302.2): what was announced
    and the kind of battle fought this round (`engine.fe.opening`)."""
    small_scale: bool = False
    """Decided at 5-3B of round 1: the battle is fought with small-scale combat (310.0) in
    every round (`engine.fe.combat.small_scale`)."""
    captures: tuple[CaptureAttempt, ...] = ()
    """The capture attempts made at 5-6X1 (305.1), in order."""
    fighters_lost: tuple[tuple[str, int], ...] = ()
    """From F&E 5.7, per unit (in id order), the doubled fighter factors it lost in this
    battle's allocations: they are replaced at the end of the combat phase (530.12), not
    between rounds (`engine.fe.steps.combat.fighters_lost`)."""
    fighting_retreat: Seat = ""
    """The seat whose ships retreated into this hex's enemy units (302.77): its rolls use
    BIR 0 and the blocking side's 10 in every round here (302.772)."""
    fled: tuple[str, ...] = ()
    """The units that retreated at 5-7A4 (302.72): the pursued side's units in a pursuit
    battle (307.3)."""
    pursuit_dice: bool = False
    """The pursuit battle's dice were armed with the pursuit die (both sides' signed
    policies choose its set-up: `engine.fe.steps.combat_pursuit`)."""
    early_dice: tuple[tuple[str, int], ...] = ()
    """Those dice (purpose, die) when they were rolled before the set-up was made (the
    pursuer had not yet ended 5-8A): kept for the set-up, which applies them."""


PURSUIT_FOUGHT = "fought"
"""``BattleRecord.pursuit`` once the pursuit battle's round is over (5-8J)."""
