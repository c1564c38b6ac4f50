"""The golden campaign's first battle round, as signed packets and what they did.

Tests of the battle report's way to people (the log, the review, the email body) need real
packets of a battle: the golden campaign (`fe_campaign.msgpack`) fights its first battle round
in its first player turn. `first_round` replays it from genesis to the packet whose events
end that round (the losses line of `engine.fe.battle_report`) and stops there. Tests find
the packets by their events, not by number, so a regenerated golden game still serves.
"""

from __future__ import annotations

import re

import msgspec

from engine.core.game import Result
from saves.registry import ruleset_for
from tests.golden.companion import read_golden, replay_golden
from tests.golden.regen import HERE

REPORT_KIND = "battle-report"
FIRE = re.compile(
    r"^\d{4} round 1: BIR \d+ \+ \d+, variable die \d \([+-]\d\) = \d+; \w+ \(flagship \S+, "
    r"\d+ units?\) potential [\d.]+, EW [+-]\d+, die \d -> [\d.]+% = \d+ points?; .* \(302\.4\)$"
)
"""A round's fire line, whatever the dice were."""
LOSSES = re.compile(r"^\d{4} round 1 losses: \w+ owed [\d.]+ points?, .* \(302\.6\)$")
"""A round's losses line."""


class FirstRound(msgspec.Struct, frozen=True):
    """The packets from genesis to the end of the first battle round, each one's result, and
    the seqs of the packets that rolled the round's combat dice and that ended it."""

    packets: list[bytes]
    results: list[Result]
    fire_seq: int
    losses_seq: int

    def reports(self, seq: int) -> list[str]:
        return [e.text for e in self.results[seq].events if e.kind == REPORT_KIND]


def first_round() -> FirstRound:
    golden = read_golden(HERE / "fe_campaign.msgpack")
    ruleset = ruleset_for(golden.ruleset.split("/")[0])
    results: list[Result] = []
    fire = -1
    for seq, _packet, result in replay_golden(golden, ruleset):
        results.append(result)
        texts = [e.text for e in result.events if e.kind == REPORT_KIND]
        if fire < 0 and any(FIRE.match(t) for t in texts):
            fire = seq
        if any(LOSSES.match(t) for t in texts):
            assert fire >= 0, "the round ended before its dice were rolled"
            return FirstRound(golden.packets[: seq + 1], results, fire, seq)
    raise AssertionError("the golden campaign fights no battle round to its end")
