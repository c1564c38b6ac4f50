"""The machine a bench ran on, as one line each bench prints before its figures.

A ratio against a floor measured in the same run travels better than a time, but not
perfectly: the floors (OpenSSL's Ed25519, msgspec, SQLite, a loopback server) and the
interpreter speed up by different amounts on different processors and Python versions. So every
bench names the processor, the cores this process may use, the Python and the OpenSSL it ran
with, and a figure quoted from it can say where it was measured.
"""

from __future__ import annotations

import os
import platform
import ssl
from pathlib import Path


def _processor() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown processor"


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _signing_library() -> str:
    """The OpenSSL that verifies signatures: cryptography's own build, not the ``ssl``
    module's (they differ, and the signature floor runs on the first)."""
    try:
        from cryptography import __version__
        from cryptography.hazmat.backends.openssl import backend
    except ImportError:
        return ssl.OPENSSL_VERSION
    return f"cryptography {__version__} on {backend.openssl_version_text()}"


def describe() -> str:
    """One line: processor, usable cores, system, Python, the signatures' OpenSSL."""
    return (
        f"machine: {_processor()}, {_cores()} cores usable, {platform.system()} "
        f"{platform.machine()}; Python {platform.python_version()} "
        f"({platform.python_implementation()}); {_signing_library()}"
    )


if __name__ == "__main__":
    print(describe())
