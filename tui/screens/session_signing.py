"""The session's store thread and replicas (`SessionBase`), and what it signs
(`SigningSession`): chat lines, the creator's answer to the key that joined, a resignation, a
new game and the answer to an invitation.

`tui.screens.session.Session` builds on these two, which keep that module to reading games,
syncing and the settings. Every signing operation goes through `SigningSession._signing`: the
signing replica when the key is at hand, else why not (no identity; a key whose passphrase
the session does not hold yet, ``locked``, which the screen then asks for and calls again),
and a refusal the service raised worded for the status line; nothing is stored then.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec

from engine.core.errors import HexpostError
from tui.services.home import KeyState
from tui.when import now

if TYPE_CHECKING:
    # Imported where used, on the store thread (the first paint needs none of them).
    from engine.core.face import Board
    from mail.transport import Transport
    from saves.home import Home
    from saves.replica import Replica
    from tui.screens.order_data import NextStep
    from tui.services.home_watch import HomeWatch
    from tui.services.orders import OrdersVerdict
    from tui.services.start import NewGameRequest

T = TypeVar("T")

NO_IDENTITY = "no identity yet: make one in the settings (, on the games list)"
"""Short enough for the status line of an 80-column terminal."""

NO_PASSPHRASE = "not sent: the key needs its passphrase (send again to type it)"
"""What the orders panel says when it cannot sign yet; the game screen asks for it."""


class Checked(msgspec.Struct, frozen=True):
    """The verdict on a list of draft orders (`tui.services.orders.OrdersVerdict`), a chat
    line or an acceptance, worded for the orders panel.

    ``ok`` with ``sent`` False: a dry run found them legal (``text`` names the packet they
    would make and what it would do). ``ok`` with ``sent``: they were signed and queued.
    Not ``ok``: ``text`` is the refusal as the engine words it (order, step, rule, numbers),
    or why signing could not happen; nothing was stored.
    """

    ok: bool
    text: str
    sent: bool = False
    locked: bool = False
    """Refused only because the key is encrypted and the session has no passphrase yet:
    `Session.unlock` and the same call again may succeed."""
    plan: Board | None = None
    """For a legal dry run that moves something: the board after it, for the map."""
    verdict: OrdersVerdict | None = None
    """The service's verdict on orders (None for a chat line or an acceptance)."""
    sending: bool = False
    """Signed and queued (``sent``) in a home with a transport: the screen sends it now
    (`tui.screens.base.HexpostScreen.send_signed`), and ``text`` says so."""
    next: NextStep | None = None
    """For a legal dry run that runs into another step of the player's: that step's orders,
    which the panel offers next (`tui.screens.order_data.next_step`)."""


class SessionBase:
    """A home on its own single-thread executor, with the replicas that read and sign it
    (`tui.screens.session` says why one thread).

    ``passphrase`` unlocks an encrypted identity for the automatic replies a sync writes
    (without it a sync still receives and sends, as ``hexpost sync`` does without a
    terminal). ``transport`` builds the transport from the home (default: the configured
    one, as ``hexpost sync`` does); tests pass a loopback one. ``clock`` stamps packets.
    """

    def __init__(
        self,
        home: Home,
        *,
        passphrase: bytes | None = None,
        transport: Callable[[Home], Transport] | None = None,
        clock: Callable[[], str] | None = None,
    ) -> None:
        self.home = home
        self._passphrase = passphrase
        self._transport = transport or home_transport
        self._clock = clock or now
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hexpost-store")
        self._reader: Replica | None = None
        self._signer: Replica | None = None
        self._waiter: Any = None
        """The transport `wait_for_mail` idles on (kept between waits), or None."""
        self._closing: set[asyncio.Future[None]] = set()
        """Transports let go of and still closing (`Session.transport_changed`)."""
        self._home_watch: HomeWatch | None = None
        """What `home_changes` compares with (`tui.services.home_watch.HomeWatch`), once asked."""
        self._drafted: tuple[str, bytes, Any] | None = None
        """The game, the drafts (as JSON) and the state after them of the last legal dry
        run: the state the menus of the step they run into read (`Session.after_drafts`)."""

    def _send_words(self, sending: str, waiting: str) -> tuple[str, bool]:
        """What the line about something just signed and queued says of its sending, and
        whether the screen sends it now: ``sending`` in a home with a transport; ``waiting``
        (a sync, once a transport is set) in one without, where a sync could not send it."""
        from tui.services.transport import configured_kind

        can = self._transport is not home_transport or configured_kind(self.home) is not None
        return (sending if can else waiting), can

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` on the store thread and wait for it without blocking the loop."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, functools.partial(fn, *args))

    def close(self) -> None:
        """Close the store on its own thread, then stop the thread (waits for running work)."""
        try:
            self._executor.submit(self.home.close).result()
        finally:
            self._executor.shutdown(wait=True)

    # --- on the store thread ------------------------------------------------------------------

    def reader(self) -> Replica:
        """The replica this session reads games with, on the store thread (`call`) only.

        Other readers of the session (the review) share it, so they share its head states:
        the engine's caches keyed on a state (a board's views, its supply) then serve a
        state the game screen has already read."""
        if self._reader is None:
            self._reader = self.home.replica()
        return self._reader

    def _key_state(self) -> KeyState:
        from tui.services.home import key_state

        return key_state(self.home, secret_at_hand=self._passphrase is not None)

    def _signing_replica(self) -> Replica:
        if self._signer is None:
            self._signer = self.home.replica(self._passphrase, unlock=True)
        return self._signer


class SigningSession(SessionBase):
    """The operations that sign (each `async`, each one hop to the store thread)."""

    async def chat(self, game_id: str, text: str) -> Checked:
        """Sign and queue a chat message for ``game_id``, on our move or not
        (`saves.chat_messages.write`); ``locked`` when the passphrase is needed first."""
        return await self.call(self._chat, game_id, text)

    async def accept_join(self, game_id: str) -> Checked:
        """As the game's creator, accept the key that joined it (`saves.joins.accept`): the
        next packet carries the acceptance; ``locked`` when the passphrase is needed first."""
        return await self.call(self._accept_join, game_id)

    async def end_game(self, game_id: str, *, key: bool = False) -> Checked:
        """Resign on our move (`saves.resigning.resign`), or (``key``) as the creator refuse
        the key that joined (`saves.joins.decline`, a resignation too): queued; ``locked``
        when the passphrase is needed first."""
        return await self.call(self._end_game, game_id, key)

    async def new_game(self, request: NewGameRequest) -> Checked:
        """Create a game and queue its invitation (``hexpost new``); ``locked`` when the
        passphrase is needed first. Nothing is stored when it is refused."""
        return await self.call(self._new_game, request)

    async def join(self, game_id: str, *, declines: bool = False) -> Checked:
        """Join an invitation (``hexpost accept``), or with ``declines`` refuse it (``hexpost
        decline``): the join packet is queued for the next sync; ``locked`` when the
        passphrase is needed first."""
        return await self.call(self._join, game_id, declines)

    # --- on the store thread ------------------------------------------------------------------

    def _signing_or_why(self) -> Replica | Checked:
        """The signing replica, or why there is none yet (no identity; a key whose passphrase
        the session does not hold, which the store thread cannot ask for)."""
        state = self._key_state()
        if state is KeyState.NONE:
            return Checked(False, NO_IDENTITY)
        if state is KeyState.LOCKED:
            return Checked(False, NO_PASSPHRASE, locked=True)
        return self._signing_replica()

    def _signing(self, refused: str, act: Callable[[Replica], Checked]) -> Checked:
        """``act`` with the signing replica; or why there is none (`_signing_or_why`), or the
        refusal it raised after ``refused`` ("not sent", "not joined"...): nothing signed."""
        try:
            signer = self._signing_or_why()
            if isinstance(signer, Checked):
                return signer
            return act(signer)
        except HexpostError as exc:
            return Checked(False, f"{refused}: {exc}")

    def _chat(self, game_id: str, text: str) -> Checked:
        from tui.services.chat import send_chat

        def act(signer: Replica) -> Checked:
            sent = send_chat(signer, bytes.fromhex(game_id), text, self._clock)
            words, sending = self._send_words("sending it", "s sends it")
            said = f"chat message {sent.body.seq} signed and queued: {words}"
            return Checked(True, said, sent=True, sending=sending)

        return self._signing("not sent", act)

    def _accept_join(self, game_id: str) -> Checked:
        from tui.services.start import accept_key

        def act(signer: Replica) -> Checked:
            done = accept_key(signer, bytes.fromhex(game_id), self._clock)
            from saves.joins import TO_SEND

            queued = done.packet is not None
            words, sending = self._send_words("sending it", "s sends it")
            said = done.text.replace(TO_SEND, words)
            return Checked(True, said, sent=queued, sending=queued and sending)

        return self._signing("not accepted", act)

    def _end_game(self, game_id: str, key: bool) -> Checked:
        from tui.services import start

        def act(signer: Replica) -> Checked:
            if key:
                seq = start.decline_key(signer, bytes.fromhex(game_id), self._clock)
                done = f"packet {seq} declines the key: the game ends"
            else:
                done = start.resign(signer, bytes.fromhex(game_id), self._clock)
            words, sending = self._send_words("sending it", "s sends it")
            return Checked(True, f"{done}; {words}", sent=True, sending=sending)

        return self._signing("not declined" if key else "not resigned", act)

    def _new_game(self, request: NewGameRequest) -> Checked:
        from tui.services.start import new_game

        def act(signer: Replica) -> Checked:
            made = new_game(
                signer,
                request.scenario,
                request.seat,
                request.opponent,
                clock=self._clock,
                name=request.name,
                options=request.options,
                reply_window_hours=request.reply_window_hours,
            )
            name = signer.game(bytes.fromhex(made.game)).name
            words, sending = self._send_words("sending", "s sends")
            text = f"game {name} created: {words} the invitation to {request.opponent}"
            return Checked(True, text, sent=True, sending=sending)

        return self._signing("not created", act)

    def _join(self, game_id: str, declines: bool) -> Checked:
        from tui.services.start import decline_invitation, join

        def act(signer: Replica) -> Checked:
            if declines:
                text = decline_invitation(signer, bytes.fromhex(game_id), self._clock)
                words, sending = self._send_words("telling", "s tells")
                return Checked(True, f"{text}: {words} the creator", sent=True, sending=sending)
            done = join(signer, bytes.fromhex(game_id), self._clock)
            words, sending = self._send_words("sending", "s sends")
            said = f"{done.text}: {words} the join packet"
            return Checked(True, said, sent=True, sending=sending)

        return self._signing("not declined" if declines else "not joined", act)


def home_transport(home: Home) -> Transport:
    """The home's configured transport, as ``hexpost sync`` builds it."""
    from tui.services.transport import configured_transport

    return configured_transport(home)
