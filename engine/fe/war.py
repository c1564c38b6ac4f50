"""War declared by a player, outside the scenario's script (503.4), and what it sets going.

A scenario scripts its wars (`engine.fe.oob.TurnEvent`: the Klingons and Kzinti go to war
on turn 2 of The Wind, the Hydrans on turn 3), carried out as each turn begins
(`engine.fe.steps.economy`). A player may also declare a war of its own; this module says
when that is allowed and what follows. The step that takes the order is
`engine.fe.steps.war`.

Readings, marked as in ``fe-rules-notes.md`` (S sourced, I inferred, C a choice):

- S (the scenario data; 503.4 Future Belligerents): each empire's scenario entry lists its
  future belligerents, the empires it will fight in this war. I: an empire may declare war
  only on one of them, only on an empire that takes part in the scenario, and not twice.
  The rulebook summary gives no other condition, so none is checked.
- C: the sequence of play (105.0) has no step for declaring war. It is taken in step 1B of
  the declaring empire's own player turn, the Phase 1 step where the phasing player makes
  its declarations (province annexation, 448.23): early enough that the war's fleets move
  in this player turn's Phase 3 and its income (1C3) is a war economy's.
- I (600.3x): the war releases, at once, the fleets the scenario releases together with that
  war: every scripted event in which either empire declares war on the other releases its
  fleets now, on whatever turn the script had it. Then, as at the start of a turn, every
  starting fleet of the two empires the scenario never mentions (no release condition, no
  scripted release) is released (the rule of `engine.fe.steps.economy`, marked I there).
- The economy follows the war through ``FeState.at_war``: an empire in a war pair is at war
  (the economics code reads it, `engine.fe.steps.economy.economy_of`). A scripted
  declaration of a war already under way changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.core.ruleset import Violation
from engine.fe.forces import war_pairs
from engine.fe.oob import ScenarioSetup

WAR_RULE = "503.4"
RELEASE_RULE = "600.3"
DECLARE_STEP = "1B"


def declare_problems(
    setup: ScenarioSetup,
    at_war: Sequence[tuple[str, str]],
    in_play: Sequence[str],
    empire: str,
    enemy: str,
) -> list[Violation]:
    """Why ``empire`` may not declare war on ``enemy`` now (empty when it may).

    ``at_war`` are the wars under way (`FeState.at_war`), ``in_play`` the scenario's
    empires."""
    mine = setup.empire(empire)
    if mine is None:
        return [Violation(f"{empire} takes no part in this scenario", WAR_RULE)]
    if enemy == empire:
        return [Violation(f"{empire} cannot declare war on itself", WAR_RULE)]
    if enemy not in in_play:
        shown = ", ".join(in_play)
        text = f"{enemy} takes no part in this scenario (its empires are {shown})"
        return [Violation(text, WAR_RULE)]
    if (min(empire, enemy), max(empire, enemy)) in war_pairs(at_war):
        return [Violation(f"{empire} is already at war with {enemy}", WAR_RULE)]
    if enemy not in mine.future_belligerents:
        listed = ", ".join(mine.future_belligerents) or "none"
        text = (
            f"{enemy} is not one of {empire}'s future belligerents ({listed}): "
            "war may be declared only on them"
        )
        return [Violation(text, WAR_RULE)]
    return []


def war_releases(
    setup: ScenarioSetup,
    released: Sequence[tuple[str, str]],
    empire: str,
    enemy: str,
) -> list[tuple[str, str, str]]:
    """The fleets a war between ``empire`` and ``enemy`` releases now, not yet in
    ``released``: ``(empire, fleet, why)``, scripted ones first, in the script's order."""
    done = set(released)
    out: list[tuple[str, str, str]] = []

    def add(side: str, fleet: str, why: str) -> None:
        if (side, fleet) not in done:
            done.add((side, fleet))
            out.append((side, fleet, why))

    for side, other in ((empire, enemy), (enemy, empire)):
        for event in setup.events:
            if event.empire == side and other in event.declare_war:
                why = f"with its war on {other}, scripted for turn {event.turn}"
                for name in event.release:
                    add(side, name, why)
    mentioned = {(e.empire, f) for e in setup.events for f in e.release}
    for side in sorted((empire, enemy)):
        entry = setup.empire(side)
        if entry is None:
            continue
        conditional = {r.fleet for r in entry.releases}
        for starting in entry.fleets:
            name = starting.name
            if (side, name) not in mentioned and name not in conditional:
                add(side, name, "at war, with no condition")
    return out
