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

from engine.core.errors import HexpostError
from tui.safe_text import safe_text
from tui.screens.base import HexpostScreen

if TYPE_CHECKING:
    from tui.screens.session import GameData, Session
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
            [  # (a line each: the dialog wraps them to its width)
                "Compare this fingerprint with the player you invited, by another channel "
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
                "Only if this is not the player you invited (compare the fingerprint by "
                "another channel): your next packet resigns, and the game ends before it "
                "began. To play with them after all, start a new game.",
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
        if owed is not None:
            self._ask_then(question, [safe_text(owed.title), "", *lines], busy, then)

    @work(exclusive=True, group="accept")
    async def send_acceptance(self) -> None:
        result = await self.session.accept_join(self.game_id)
        refused = "not accepted: no passphrase given"
        if self.asked_passphrase(result, "accept the joined key", self.send_acceptance, refused):
            return
        self.status.say(result.text)
        self.reload()
        if result.sending:
            self.send_signed()

    @work(exclusive=True, group="accept")
    async def send_decline(self) -> None:
        result = await self.session.end_game(self.game_id, key=True)
        refused = "not declined: no passphrase given"
        if self.asked_passphrase(result, "decline the joined key", self.send_decline, refused):
            return
        self.status.say(result.text)
        self.reload()
        if result.sending:
            self.send_signed()

    def action_talk(self) -> None:
        """One line to the other players at any time (on our move or not): signed beside the
        game's chain, sent at once (`send_signed`), shown in both logs."""

        def answered(text: str | None) -> None:
            if text is not None:
                self.status.busy("signing the chat line...")
                self.send_chat(text)

        question = "Say to the other players (signed, any time; sent at once):"
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
        if result.sending:
            self.send_signed()

    def can_resign(self) -> bool:
        """Whether the resign key acts: a game going on (off this seat's move it asks to
        resign on the next one, `saves.resigning`)."""
        record = None if self.data is None else self.data.show
        return record is not None and record.status == "active" and not record.over

    def action_resign(self) -> None:
        """Concede the game after a yes: at once on this seat's move, else on its next one
        (signed by the sync that brings it); where that was asked, take it back."""
        if self.data is None:
            return
        record = self.data.show
        name = safe_text(record.name)
        if record.resign_asked:
            lines = ["You asked to resign on your next move.", "Take that back?"]
            self._ask_then("Keep playing?", lines, "taking it back...", self.keep_playing)
            return
        if self._joined_key() is not None:  # this seat owes the acceptance: X is the answer
            self.status.say("the key that joined waits: X declines it, which ends the game")
            return
        if not resigns_now(record):
            lines = [
                "It is not your move. The sync that brings it",
                "signs the resignation by itself; R takes it",
                "back until then.",
                "",
                "To tell them now, send a chat message (t).",
            ]
            question = f"Resign {name} on your next move?"
            self._ask_then(question, lines, "asking...", self.ask_resignation)
            return
        lines = [
            "The game ends for both players, for good:",
            "nobody can sign another packet in it.",
            "It is sent at once.",
            "",
            "To say why, send a chat message first (t).",
        ]
        self._ask_then(f"Resign {name}?", lines, "resigning...", self.send_resignation)

    def _ask_then(
        self, question: str, lines: list[str], busy: str, then: Callable[[], object]
    ) -> None:
        """Ask ``question`` over ``lines``; on yes say ``busy`` and run ``then``."""

        def answered(yes: bool | None) -> None:
            if yes:
                self.status.busy(busy)
                then()

        from tui.widgets.confirm import ConfirmDialog

        self.app.push_screen(ConfirmDialog(question, lines), answered)

    @work(exclusive=True, group="resign")
    async def send_resignation(self) -> None:
        result = await self.session.end_game(self.game_id)
        refused = "not resigned: no passphrase given"
        if self.asked_passphrase(result, "sign the resignation", self.send_resignation, refused):
            return
        self.status.say(result.text)
        self.reload()
        if result.sending:
            self.send_signed()

    @work(exclusive=True, group="resign")
    async def ask_resignation(self) -> None:
        await self._file_resignation(_ask_resignation)

    @work(exclusive=True, group="resign")
    async def keep_playing(self) -> None:
        await self._file_resignation(_keep_playing)

    async def _file_resignation(self, fn: Callable[[Session, str], str]) -> None:
        """``fn`` on the store thread (no key needed: nothing is signed yet), then say what
        it did or why not."""
        try:
            text = await self.session.call(fn, self.session, self.game_id)
        except HexpostError as exc:
            text = f"not done: {exc}"
        self.status.say(safe_text(text))
        self.reload()


def resigns_now(record: ShowRecord) -> bool:
    """Whether a resignation would be signed at once: this seat owes a decision of its own
    (orders or a secret choice); else it is kept for its next one (`saves.resigning`)."""
    owed = record.pending[0] if record.pending else None
    return owed is not None and owed.seats[0] == record.my_seat and owed.kind in PLAYER_KINDS


PLAYER_KINDS = ("orders", "secret")
"""The decisions on which a resignation is signed at once (an acceptance this seat owes is
answered with X, `action_decline_key`)."""


def _ask_resignation(session: Session, game_id: str) -> str:
    from tui.services.start import ask_resignation
    from tui.when import now

    return ask_resignation(session.reader(), bytes.fromhex(game_id), now)


def _keep_playing(session: Session, game_id: str) -> str:
    from tui.services.start import keep_playing

    return keep_playing(session.reader(), bytes.fromhex(game_id))


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
