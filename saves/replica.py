"""This home's replica of every game: read states, write our own packets, take in others'.

`Replica` is where the pure engine meets the disk, and the one face the command line, the app
and the transports use. It is thin: each job lives in a module of its own, below it, and the
methods here only hand over to them.

- reading and verifying: `saves.reading` (games, states, the log), `saves.replay` (`verify`),
  `saves.inbox` (`receive`: verify, place, apply, in one transaction per item);
- creating and joining: `saves.creating` (`create`, `accept`);
- submitting and automatic replies: `saves.submitting` (`submit`, `chat`, `sign_kind`) and
  `saves.replies` (`auto_replies`), on top of `saves.signing` (entropy, `sign_and_store`).

A packet we write is stored, with the state it produces and its outbox entry, in one
transaction before any transport sees it, so after a crash the same bytes are sent again and
a signed packet is never made twice (P9).

Taking items in (`saves.inbox`, with the chat and claim modules it needs), creating and joining
(`saves.creating`) and the automatic replies (`saves.replies`) are imported by the methods
that hand over to them, on first use: a client opening a game to read it needs none of them,
and importing them cost its start-up tens of milliseconds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from engine.core import entropy
from engine.core.packets import Chat, Resign
from engine.core.ruleset import AnyRuleset, OptionValue, Seat
from saves import invitations, ledger, replay, resigning, store_inbox, submitting
from saves.keys import Identity
from saves.outcome import Hint, Outcome
from saves.reading import lookup_in
from saves.signing import Signer
from saves.store_games import GameRow
from saves.submitting import Submitted

if TYPE_CHECKING:
    from saves import inbox

__all__ = ["GameRow", "Identity", "Replica", "Submitted", "lookup_in"]


class Replica(Signer):
    """Every game of one home, backed by its `Store`: reading and signing come from `Signer`
    (and its `saves.reading.Reader`), each other job from its module."""

    # --- reading and verifying -----------------------------------------------------------------

    def verify(self, game_id: bytes) -> bytes:
        """Replay the whole chain from genesis (`saves.replay.verify`); the final state hash."""
        return replay.verify(self, game_id)

    def receive(
        self,
        data: bytes,
        *,
        source: str,
        now: str,
        ref: tuple[str, str] | None = None,
        message_id: str = "",
        hint: Hint = (None, None),
        alternatives: Sequence[bytes] = (),
    ) -> Outcome:
        """Take in one item in one transaction; ``ref`` (transport, ref) is marked read with it.

        Every item is marked read, whatever became of it: a transport offers an item again
        only when its ref changes (a folder file's size or time), so a stranger's garbage is
        looked at once. Whatever taking an item in raises is recorded against that item (in a
        transaction of its own, after the first rolled back), so one item never stops the
        items after it. The email's ``message_id``, when given, is kept with the packet's game
        (for threading the game's next emails) unless the item was refused or is not ours.
        ``hint`` is the transport's unverified idea of the item's game and position.
        ``alternatives`` are other decoded copies of the same email (`saves.inbox.pick_copy`
        chooses one; each copy's signature is checked once).
        """
        from saves.inbox import take

        return take(self, data, source, now, ref, message_id, hint, alternatives)

    def receive_many(self, items: Sequence[inbox.Received], *, now: str) -> list[Outcome]:
        """Take in a fetched batch in one transaction with one head snapshot per game at its
        end (`saves.inbox.take_many`): all of it is stored, each item marked read, or none."""
        from saves.inbox import take_many

        return take_many(self, items, now)

    def catch_up(self, *, now: str) -> list[Outcome]:
        """Apply, in one transaction, the packets held for a ruleset now installed again, and
        take in the invitations held until this hexpost could play them, or drop those held
        too long (`saves.inbox.catch_up`)."""
        from saves.inbox import catch_up

        if not store_inbox.held_next(self.store) and not invitations.held(self.store):
            return []  # (as ever: no transaction for nothing)
        with ledger.batch(self.store):
            return catch_up(self, now)

    # --- creating and joining ------------------------------------------------------------------

    def create(
        self,
        ruleset: AnyRuleset,
        scenario_id: str,
        my_seat: Seat,
        opponent_address: str,
        *,
        opponent_seat: Seat | None = None,
        name: str = "",
        options: Mapping[str, OptionValue] | None = None,
        reply_window_hours: int = 72,
        now: str,
        chain_length: int = entropy.DEFAULT_CHAIN_LENGTH,
    ) -> bytes:
        """Start a game as its creator; returns the new game id (`saves.creating.create`)."""
        from saves.creating import create

        return create(
            self,
            ruleset,
            scenario_id,
            my_seat,
            opponent_address,
            opponent_seat=opponent_seat,
            name=name,
            options=options,
            reply_window_hours=reply_window_hours,
            now=now,
            chain_length=chain_length,
        )

    def accept(
        self, game_id: bytes, *, now: str, chain_length: int = entropy.DEFAULT_CHAIN_LENGTH
    ) -> None:
        """Join a game we were invited to (`saves.creating.accept`)."""
        from saves.creating import accept

        accept(self, game_id, now=now, chain_length=chain_length)

    def drop_held_invitation(self, name: str, *, now: str) -> str:
        """Drop an invitation held for a ruleset this hexpost lacks (`saves.invitations.drop`);
        what was done."""
        with self.store.transaction():
            return invitations.drop(self.store, name, now)

    def decline_invitation(self, game_id: bytes, *, now: str, reason: str = "") -> None:
        """Refuse a game we were invited to (`saves.creating.decline`)."""
        from saves.creating import decline

        decline(self, game_id, now=now, reason=reason)

    # --- submitting and automatic replies ------------------------------------------------------

    def submit(
        self, game_id: bytes, items: Sequence[Mapping[str, Any]], *, now: str, dry_run: bool = False
    ) -> Submitted:
        """Check orders and, unless ``dry_run``, sign and queue them (`saves.submitting.submit`)."""
        return submitting.submit(self, game_id, items, now=now, dry_run=dry_run)

    def chat(self, game_id: bytes, text: str, *, now: str) -> Submitted:
        """Sign and queue a chat *packet* on our move (`saves.submitting.chat`): the chain's
        old form, kept for games and tests that use it; the commands and the app write chat
        messages beside the chain instead (`saves.chat_messages.write`), at any time."""
        return submitting.chat(self, game_id, text, now=now)

    def sign_kind(self, game_id: bytes, kind: Chat | Resign, *, now: str) -> Submitted:
        """Sign and queue a packet without orders on our move (`saves.submitting.sign_kind`)."""
        return submitting.sign_kind(self, game_id, kind, now=now)

    def resign(self, game_id: bytes, *, now: str, reason: str = "") -> Submitted:
        """Concede the game on our move (`saves.resigning.resign`)."""
        return resigning.resign(self, game_id, now=now, reason=reason)

    def auto_replies(self, now: str) -> tuple[list[tuple[bytes, int]], list[str]]:
        """Answer at once what needs no decision (`saves.replies.auto_replies`)."""
        from saves.replies import auto_replies

        return auto_replies(self, now)
