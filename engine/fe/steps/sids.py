"""SIDS steps that stay on a base from round to round and turn to turn (308.8).

A base is damaged step by step (`engine.fe.combat.targets`: its track). A step scored in
one round, by directed damage (308.811) or given in general allocation (308.8), is still
there the next round and the next turn: the state keeps, per base, the steps scored on the
side it shows now (``FeState.sids``); a track that fills cripples the base (its count starts
again on the crippled side) or destroys it (the entry goes). The damage steps read the count
when they price a base (`with_scored`) and store what their damage left (`record`).

Not modelled yet (typed adjustments): repairing SIDS steps, and steps on a base that changes
hands.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from engine.fe.combat.targets import Target
from engine.fe.model import FeState


def steps_of(state: FeState, unit_id: str) -> int:
    return next((steps for base, steps in state.sids if base == unit_id), 0)


def with_scored(state: FeState, targets: Sequence[Target]) -> list[Target]:
    """``targets`` with the steps already scored on each base."""
    if not state.sids:
        return list(targets)
    return [
        msgspec.structs.replace(t, steps=steps_of(state, t.id)) if t.sids else t for t in targets
    ]


def record(state: FeState, after: Sequence[Target]) -> FeState:
    """Keep the steps each base of ``after`` (the targets once the damage is applied) shows."""
    bases = {t.id: t for t in after if t.sids}
    if not bases:
        return state
    kept = {base: steps for base, steps in state.sids if base not in bases}
    for target in bases.values():
        if target.steps and not target.destroyed:
            kept[target.id] = target.steps
    return msgspec.structs.replace(state, sids=tuple(sorted(kept.items())))
