"""The F&E sequence of play (rule 105) as data, for the driver in `engine.core.turns`.

The table lives in ``engine/fe/data/sequence.json`` rather than in code so that the rule
references, actors and titles can be checked and corrected without touching game logic, and
so automation attaches to a step id without reshaping the table. Its shape and checks are the
engine core's (`engine.core.sequence`); what is F&E's is recorded here:

* A rulebook step with sub-steps (1A3, 1C, 5-3F, 5-4A7, 5-4C, 6D, 11C, ...) is a heading.
  5-4C ("combat potential") is a heading too; its first leaf 5-4C1 carries the calculation.
  Lettered groups without an own line in the rulebook (5-4A1..5-4A7, 5-7A1..5-7A5) belong to
  the enclosing step heading (5-4, 5-7).
* ``actor`` follows the wording of rule 105: the phasing player completes a step unless the
  text names the non-phasing player (also "target empire", "defender" in combat), both or all
  players (also "players", "each player", "empires", and roles either seat may hold, such as
  the pursuer), or nobody (things that happen by rule: markers, automatic status changes,
  fixed adjustments, and the Orion pirates, who are not a seat). The phasing seat confirms
  "nobody" steps.
* In combat (phase 5) the attacker is the phasing player and the defender the other, but
  many steps belong to a role either side may hold: the owner of a base (5-4A4 X-base EW,
  523.44; 5-6X8 base repair, 425.3), the retreating side (5-7C, 5-7D, 302.72), the pursuer
  (5-8A, 5-8B, 302.742), the pursued (5-8J-5-8L), the owner of a special unit (SFGs,
  ISGs, web casters, penal ships, pinwheels, SWACs, X-ships, GCEs). Those are "both", and
  their titles say whose part it is ("Each side", "Either side", "owner", "Pursuer"); a
  seat with nothing to do there answers ``done`` (or a standing order does). The core's
  "both" has the phasing seat answer first; when both sides retreat, 302.712 wants the
  defender to go first, an order the core has no actor for, so the players keep it.
  Steps that only say a battle is fought by the steps below (5-2A4, 5-2B2) are "nobody";
  5-8G, the slow-unit retreat battle typed by hand, is "both": each side records its own
  losses (`engine.fe.steps.combat_pursuit`).
* 5-8H is obsolete: it stays so ids match the rulebook, and is skipped.
* Phase 11 (the Orion pirates) is its own part, ``orion``: played once per game turn after
  every player turn, only with the ``orion`` option; phases 1-10 make up each player turn.

The file is read with ``importlib.resources`` so the package works from a wheel or a zip and
the engine stays free of ``os``/``open``.
"""

from __future__ import annotations

from importlib import resources

from engine.core import caches
from engine.core.sequence import Heading, Phase, SequenceOfPlay, Step, decode_sequence

ORION_PART = "orion"

__all__ = ["ORION_PART", "Heading", "Phase", "SequenceOfPlay", "Step", "load_sequence"]


@caches.static
def load_sequence() -> SequenceOfPlay:
    """The shipped sequence of play (decoded and checked once per process)."""
    return decode_sequence(resources.files("engine.fe.data").joinpath("sequence.json").read_bytes())
