"""What a player signs on the game screen besides orders: accepting the key that joined the
game, chat lines to the other players, and a resignation.

Both are answered in a dialog, signed on the store thread and sent with the next sync; a
locked key asks for the passphrase and tries again. `GameScreen` is built on this screen so
that its module keeps to the map, the side panel and the orders.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import work

from tui.safe_text import safe_text
from tui.screens.base import HexpostScreen

if TYPE_CHECKING:
    from tui.screens.session import GameData
    from tui.services.show import DecisionRecord, ShowRecord


class SignedLinesScreen(HexpostScreen):
    """The accept-key, talk and resign actions of a game's screen (`GameScreen` sets
    ``game_id`` and ``data``)."""

    game_id: str
    data: GameData | None

    def _joined_key(self) -> DecisionRecord | None:
        """The acceptance this player owes (the first pending decision), if any."""
        if self.data is None:
            return None
        record = self.data.show
        if record.owed_step is not None and record.pending[0].kind == "accept":
            return record.pending[0]
        return None

    def action_accept_key(self) -> None:
        """Ask, showing who joined with which key, then accept it (`saves.joins`): anyone who
        read the invitation could have answered it, so the player compares the fingerprint
        with the invited player by another channel first."""
        self._ask_about_key(
            "Accept the key that joined?",
            [
                "Compare this fingerprint with the player you invited, by another channel",
                "(phone, chat), before you say yes. Your next packet carries the acceptance.",
                "If it is not them: X declines the key, which ends the game.",
            ],
            "accepting the key...",
            self.send_acceptance,
        )

    def action_decline_key(self) -> None:
        """Ask, then refuse the key that joined (`saves.joins.decline`): the creator resigns
        and the game ends before it began, for a key that is not the invited player's."""
        self._ask_about_key(
            "Decline the key and end the game?",
            [
                "Only if this is not the player you invited (compare the fingerprint by",
                "another channel): your next packet resigns, and the game ends before it",
                "began. s sends it. To play with them after all, start a new game.",
            ],
            "declining the key...",
            self.send_decline,
        )

    def _ask_about_key(
        self, question: str, lines: list[str], busy: str, then: Callable[[], object]
    ) -> None:
        """Ask ``question`` over who joined with which key (the pending acceptance's words)
        and ``lines``; on yes say ``busy`` and run ``then``."""
        owed = self._joined_key()
        if owed is None:
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.status.busy(busy)
                then()

        from tui.widgets.confirm import ConfirmDialog

        shown = [safe_text(owed.title), "", *lines]
        self.app.push_screen(ConfirmDialog(question, shown), answered)

    @work(exclusive=True, group="accept")
    async def send_acceptance(self) -> None:
        result = await self.session.accept_join(self.game_id)
        refused = "not accepted: no passphrase given"
        if self.asked_passphrase(result, "accept the joined key", self.send_acceptance, refused):
            return
        self.status.say(result.text)
        self.reload()

    @work(exclusive=True, group="accept")
    async def send_decline(self) -> None:
        result = await self.session.end_game(self.game_id, key=True)
        refused = "not declined: no passphrase given"
        if self.asked_passphrase(result, "decline the joined key", self.send_decline, refused):
            return
        self.status.say(result.text)
        self.reload()

    def action_talk(self) -> None:
        """One line to the other players at any time (on our move or not): signed beside the
        game's chain, queued for the next sync, shown in both logs."""

        def answered(text: str | None) -> None:
            if text is not None:
                self.status.busy("signing the chat line...")
                self.send_chat(text)

        question = "Say to the other players (signed, any time; s sends it):"
        from saves.chat import MAX_CHAT
        from tui.widgets.passphrase import LineDialog

        self.app.push_screen(LineDialog(question, max_length=MAX_CHAT), answered)

    @work(exclusive=True, group="chat")
    async def send_chat(self, text: str) -> None:
        result = await self.session.chat(self.game_id, text)
        refused = "chat not sent: no passphrase given"
        if self.asked_passphrase(
            result, "sign the chat line", lambda: self.send_chat(text), refused
        ):
            return
        self.status.say(result.text)
        if result.sent:
            self.reload()

    def can_resign(self) -> bool:
        """Whether the resign key acts: a game going on (on whoever's move: off it, the key
        says when it can be done, rather than doing nothing)."""
        record = None if self.data is None else self.data.show
        return record is not None and record.status == "active" and not record.over

    def action_resign(self) -> None:
        """Concede the game after a yes (`saves.submitting.resign`): on this seat's move, as
        every packet of the chain; off it, the status line says so and how to tell them."""
        if self.data is None:
            return
        record = self.data.show
        refusal = resign_refusal(record)
        if refusal:
            self.status.say(refusal)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.status.busy("resigning...")
                self.send_resignation()

        from tui.widgets.confirm import ConfirmDialog

        lines = [
            "The game ends for both players, for good: nobody can sign",
            "another packet in it. s sends the resignation.",
            "",
            "To say why, send a chat message first (t).",
        ]
        self.app.push_screen(ConfirmDialog(f"Resign {safe_text(record.name)}?", lines), answered)

    @work(exclusive=True, group="resign")
    async def send_resignation(self) -> None:
        result = await self.session.end_game(self.game_id)
        refused = "not resigned: no passphrase given"
        if self.asked_passphrase(result, "sign the resignation", self.send_resignation, refused):
            return
        self.status.say(result.text)
        self.reload()


def resign_refusal(record: ShowRecord) -> str:
    """Why this seat cannot resign now, in the status line's words, or "" when it can: on
    its own move only (an orders or secret step), as every packet of the chain."""
    owed = record.pending[0] if record.pending else None
    if owed is None or owed.seats[0] != record.my_seat:
        who = "nobody" if owed is None else safe_text(owed.seats[0])
        return f"not your move ({who} to act): resign on your move; t tells them now"
    if owed.kind == "accept":
        return "the key that joined waits: X declines it, which ends the game"
    if owed.kind not in ("orders", "secret"):  # a roll's entropy, a reveal
        return "an automatic reply goes first: s syncs, then resign"
    return ""


def ask_passphrase(
    screen: HexpostScreen,
    purpose: str,
    then: Callable[[], object],
    *,
    cancelled: Callable[[], object] | None = None,
) -> None:
    """`tui.screens.identity.ask_passphrase`, imported when first asked (not for the first
    paint)."""
    from tui.screens.identity import ask_passphrase as ask

    ask(screen, purpose, then, cancelled=cancelled)
