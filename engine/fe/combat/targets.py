"""A unit as damage sees it: what it costs to cripple or destroy (302.5, 302.6, 308.8).

Directed damage (`engine.fe.combat.directed`) and general allocation
(`engine.fe.combat.allocation`) price the same things (a unit's defence, its crippled defence,
its fighter factors, a base's SIDS steps), so both read a `Target`: a small typed view of one
unit in a battle hex, built from the board's `Unit` by `target_of`. Damage points are kept
*doubled* (``points2``), like every factor in `engine.fe.units`: defences come in halves and a
voluntary SIDS on a starbase resolves 4.5 points, and floats never reach game state.

SIDS (308.8): a base is damaged step by step. The steps per base type, and the points one
step resolves when its owner gives it voluntarily, are the seed's play aid "SIDS steps":

- starbase 8 steps to cripple, 4 more to destroy, 4.5 points each (308.82); SBX 12 and 6;
- sector base 6 and 3 at 4 points (308.863); X sector base 8 and 4 at 4.5;
- battle station 3 steps to cripple at 4 points, none on a crippled one (308.861); BTX 4 and 2
  at 4.5 (523.412);
- base station 2 steps at 5 points, none on a crippled one (308.862); BSX 4 and 2 at 4.
  A step directed by the enemy costs 18 points (9 with a mauler, 308.811).

I (consistent with the tables: 8 x 4.5 is the starbase's defence 36, 4 x 4.5 its crippled
36/2): the steps already scored on a side count against that side's defence, so crippling a
starbase with 3 steps scored costs 36 - 3 x 4.5 = 22.5 points.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from engine.fe.forces import Unit
from engine.fe.unit_kinds import class_of

Echelon = Literal["force", "support", "reserve"]
"""Where a unit stands in its side's array (302.3): in the battle force, in the support
echelon (outside the force, its fighters or PFs sent forward, 302.563), or in reserve."""

SIDS_RULE = "308.8"
DIRECTED_SIDS2 = 36
"""One SIDS step directed at a base: 18 damage points, doubled (308.811)."""
MAULER_SIDS2 = 18
"""The same step when a mauler is used: 9 points, doubled (308.811)."""


class SidsTrack(msgspec.Struct, frozen=True):
    """How a base type takes SIDS steps (308.8)."""

    to_cripple: int
    """Steps that cripple the base."""
    to_destroy: int
    """Steps that destroy it once crippled; 0: SIDS cannot be used on its crippled side."""
    voluntary2: int
    """Points one step resolves when the owner gives it in general allocation, doubled."""
    rule: str


SIDS_TRACKS: dict[str, SidsTrack] = {
    "SB": SidsTrack(8, 4, 9, "308.82"),
    "SBX": SidsTrack(12, 6, 9, "308.82"),
    "STB": SidsTrack(6, 3, 8, "308.863"),
    "STX": SidsTrack(8, 4, 9, "308.863"),
    "BATS": SidsTrack(3, 0, 8, "308.861"),
    "BTX": SidsTrack(4, 2, 9, "523.412"),
    "BS": SidsTrack(2, 0, 10, "308.862"),
    "BSX": SidsTrack(4, 2, 8, "308.862"),
}
"""SIDS steps per base type, from the seed's play aid (keys are class designations without a
version suffix: ``SBv.2`` is a starbase)."""


def sids_kind(cls: str) -> str:
    """The SIDS track of a class designation, or "" when the unit takes no SIDS."""
    kind = cls.split("v.", maxsplit=1)[0].strip()
    return kind if kind in SIDS_TRACKS else ""


class Target(msgspec.Struct, frozen=True):
    """One unit in a battle hex, with what damage can do to it.

    Factors are doubled. ``crippled_def2`` is None when the counter has no crippled side
    (resolving its defence destroys it). ``fighters2`` holds the fighter factors it has in the
    battle force: on a unit of the force, those it carries; on a unit of the support echelon,
    those it sent forward (302.563). ``steps`` counts the SIDS steps scored on the side it
    shows now (reset when it is crippled).
    """

    id: str
    def2: int
    crippled_def2: int | None = None
    crippled: bool = False
    fighters2: int = 0
    sids: str = ""
    steps: int = 0
    echelon: Echelon = "force"
    destroyed: bool = False

    @property
    def track(self) -> SidsTrack | None:
        return SIDS_TRACKS.get(self.sids)

    def sids_open(self) -> bool:
        """Whether a SIDS step can be scored on the side it shows now (308.861, 308.862)."""
        track = self.track
        if track is None or self.destroyed:
            return False
        return track.to_destroy > 0 if self.crippled else True

    def cripple_cost2(self) -> int | None:
        """Points (doubled) to cripple it; None when it cannot be crippled (it already is,
        it has no crippled side, or it is gone)."""
        if self.destroyed or self.crippled or self.crippled_def2 is None:
            return None
        track = self.track
        scored = self.steps * track.voluntary2 if track is not None else 0
        return max(self.def2 - scored, 0)

    def destroy_cost2(self) -> int | None:
        """Points (doubled) to destroy it: a cripple for its crippled defence, an uncrippled
        unit for both sides' defences, a unit without a crippled side for its defence."""
        if self.destroyed:
            return None
        if self.crippled_def2 is None:
            return self.def2
        track = self.track
        if self.crippled:
            scored = self.steps * track.voluntary2 if track is not None and track.to_destroy else 0
            return max(self.crippled_def2 - scored, 0)
        cripple = self.cripple_cost2()
        assert cripple is not None
        return cripple + self.crippled_def2

    def after_step(self) -> Target:
        """The base after one more SIDS step (crippled or destroyed when its track is full)."""
        track = self.track
        assert track is not None and self.sids_open()
        steps = self.steps + 1
        if not self.crippled and steps >= track.to_cripple:
            return msgspec.structs.replace(self, crippled=True, steps=0)
        if self.crippled and steps >= track.to_destroy:
            return msgspec.structs.replace(self, destroyed=True, steps=0, fighters2=0)
        return msgspec.structs.replace(self, steps=steps)

    def after_cripple(self) -> Target:
        return msgspec.structs.replace(self, crippled=True, steps=0)

    def after_destroy(self) -> Target:
        return msgspec.structs.replace(self, destroyed=True, steps=0, fighters2=0)


def target_of(
    unit: Unit, echelon: Echelon = "force", fighters2: int | None = None, steps: int = 0
) -> Target:
    """The `Target` of a board unit: its class's defences, its fighters (those of the side it
    shows unless ``fighters2`` says how many it has now or sent forward), its SIDS track."""
    info = class_of(unit)
    if info is None:
        raise KeyError(f"{unit.id}: {unit.empire} has no unit class {unit.cls!r} in the tables")
    shown = info.shown(unit.crippled)
    return Target(
        id=unit.id,
        def2=info.full.def2,
        crippled_def2=info.crippled.def2 if info.crippled is not None else None,
        crippled=unit.crippled,
        fighters2=shown.fighters2 if fighters2 is None else fighters2,
        sids=sids_kind(unit.cls),
        steps=steps,
        echelon=echelon,
    )


def points_text(points2: int) -> str:
    """Doubled points as the tables print them: ``9`` -> ``4.5``, ``20`` -> ``10``."""
    sign, size = ("-" if points2 < 0 else ""), abs(points2)
    return f"{sign}{size // 2}" + (".5" if size % 2 else "")
