"""When a chat packet may be written, and what text any chat line may carry.

`chat_line` checks the text of both forms of chat. The rest concerns the older form, the
`Chat` packet in the chain (and `Resign`, which follows the same rule); the commands and the
app now write chat messages beside the chain instead, at any time (`saves.chat_messages`).

A `Chat` packet is a link of the game's chain like any other: the engine takes the next
packet only from the seat that owes the move, and every packet spends one entropy value of
its seat. So a chat can be written only on one's own move, and never while a die roll waits
for our entropy (the chat would resolve the roll as a side effect, moving the game on; the
automatic reply a sync writes is the packet for that). Within those limits a chat changes
nothing but the chain's head: the same decision is owed after it as before. A resignation
(`saves.resigning`) is taken on the same terms, and ends the game.
"""

from __future__ import annotations

from engine.core.errors import GameFrozen, HexpostError
from engine.core.ruleset import Decision, DecisionKind

MAX_CHAT = 1000
"""Characters in one message: a few lines' worth on a wide screen, far under a packet's size."""


def chat_line(text: str, what: str = "a chat message") -> str:
    """The message as it will be signed (trimmed), or why it cannot be sent; ``what`` names
    the text in the refusal (a resignation's reason is held to the same bounds)."""
    line = text.strip()
    if not line:
        raise HexpostError(f"{what} needs some text")
    if len(line) > MAX_CHAT:
        raise HexpostError(f"{what} is at most {MAX_CHAT} characters, not {len(line)}")
    if any(not ch.isprintable() for ch in line):
        raise HexpostError(f"{what} is one line of printable text")
    return line


CHAT_LATER = "chat on your move, or add a note to your orders"
RESIGN_LATER = "you may resign when the move is yours; `hexpost chat` tells them now"
"""What a refusal out of turn suggests instead, for a chat packet and for a resignation."""


def check_chat_turn(
    name: str,
    my_seat: str,
    *,
    status: str,
    frozen: str | None,
    owed: list[Decision],
    act: str = "chat",
    later: str = CHAT_LATER,
) -> None:
    """Raise why game ``name`` cannot take a chat packet (or, ``act`` "resign", a
    resignation) from ``my_seat`` now (see above); ``later`` says what to do instead when it
    is not this seat's move."""
    if frozen:
        raise GameFrozen(f"game {name} is frozen: {frozen}")
    if status != "active":
        raise HexpostError(f"game {name} is an invitation: `hexpost accept` it first")
    if not owed:
        raise HexpostError(f"game {name} is over: no packet can follow")
    first = owed[0]
    if first.seats[0] != my_seat:
        raise HexpostError(
            f"not your move: the chain takes the next packet from {first.seats[0]} "
            f"(step {first.step}); {later}"
        )
    if first.kind in (DecisionKind.ENTROPY, DecisionKind.REVEAL):
        raise HexpostError(
            f"an automatic reply (a roll or a reveal) is owed first: sync, then {act}"
        )
