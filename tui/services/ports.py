"""What the services are given rather than reach for: the time and the way packets travel.

The faces build them (the command line and the app from the home's config.toml and the
system clock, the demo from a loopback network, tests from fakes) and pass them in, so no
service reads the wall clock or builds a transport by itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:  # the app imports this module before its first paint: keep it light
    from mail.transport import Transport
    from saves.home import Home

Clock: TypeAlias = Callable[[], str]
"""The time now as packets and the store write it: UTC to the second, ``2025-01-02T03:04:05Z``."""

TransportFactory: TypeAlias = "Callable[[Home], Transport]"
"""Builds the transport a home's packets travel by (called when a sync needs one)."""
