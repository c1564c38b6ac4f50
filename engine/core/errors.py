"""The error tree every layer of hexpost uses to refuse bad input.

Each error carries a one-line message that names what was wrong and where, and (for rules
errors) the rule number it enforces, so the command line can print it without a traceback.
"""

from __future__ import annotations


def newer_version(found: int, known: int) -> str:
    """What to add to the refusal of a file or record of version ``found`` by a hexpost that
    reads ``known``: from a later version, that an update reads it (it is not damaged, and
    the same bytes sent again would be refused again); from an earlier one, nothing."""
    return ": a newer hexpost wrote it: update hexpost to read it" if found > known else ""


class HexpostError(Exception):
    """Base of every error hexpost raises on purpose."""

    def __init__(self, message: str, *, rule: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule

    def __str__(self) -> str:
        if self.rule:
            return f"{self.message} ({self.rule})"
        return self.message


class PacketError(HexpostError):
    """A packet that is not well formed, not signed correctly, or not canonical."""


class VersionError(PacketError):
    """A packet of a protocol, ruleset, scenario or option this client does not know."""


class ChainError(HexpostError):
    """A packet that does not fit the game's hash chain (stale, wrong link, fork)."""


class EquivocationError(ChainError):
    """Two different validly signed packets from one seat for one position."""


class DesyncError(ChainError):
    """The author's state hash differs from the one this engine computed."""

    def __init__(self, seq: int, theirs: bytes, ours: bytes) -> None:
        super().__init__(
            f"desync at packet {seq}: the packet says state {theirs.hex()[:16]}, "
            f"this engine computed {ours.hex()[:16]}"
        )
        self.seq = seq
        self.theirs = theirs
        self.ours = ours


class RulesError(HexpostError):
    """An order the rules do not allow here."""


class IllegalOrder(RulesError):
    """An order that is malformed or breaks a rule."""


class OutOfTurn(RulesError):
    """An order from a seat that owes no decision now."""


class NotPending(RulesError):
    """An order for a step or decision that is not the one pending."""


class CommitmentMismatch(RulesError):
    """A reveal whose salt and choice do not hash to the seat's commitment."""


class GameFrozen(HexpostError):
    """The game is stopped (equivocation or desync) until the players settle it."""
