"""The engine stays pure: importing any engine module loads no I/O, clock or randomness module.

import-linter checks the imports written in the code; this checks what an import really loads
(including what the engine's own dependencies drag in), in a fresh interpreter per module.
"""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import engine

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = [
    "sqlite3",
    "socket",
    "asyncio",
    "random",
    "textual",
    "rich",
    "smtplib",
    "imaplib",
    "aiosmtplib",
    "imapclient",
    "platformdirs",
    "saves",
    "mail",
    "tui",
]
MODULES = sorted(info.name for info in pkgutil.walk_packages(engine.__path__, prefix="engine."))

PROBE = """
import importlib, json, sys
# The engine's allowed dependencies first: what they load themselves (cryptography imports
# `random` for RSA, for example) is not the engine's doing.
import hashlib, importlib.resources, msgspec  # noqa
import cryptography.exceptions
import cryptography.hazmat.primitives.asymmetric.ed25519
import cryptography.hazmat.primitives.serialization
before = set(sys.modules)
importlib.import_module(sys.argv[1])
print(json.dumps(sorted(set(sys.modules) - before)))
"""


@pytest.mark.parametrize("module", MODULES)
def test_engine_module_loads_no_forbidden_module(module: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, module], cwd=ROOT, capture_output=True, text=True, check=True
    )
    loaded = json.loads(done.stdout)
    bad = [name for name in loaded if name.split(".")[0] in FORBIDDEN]
    assert not bad, f"importing {module} loaded {bad}"


def test_every_engine_module_was_probed() -> None:
    assert "engine.core.game" in MODULES and "engine.fe.checklist" in MODULES
