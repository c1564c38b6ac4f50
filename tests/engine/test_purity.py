"""The engine stays pure: importing any engine module loads no I/O, clock or randomness module.

import-linter checks the imports written in the code; this checks what an import really loads
(including what the engine's own dependencies drag in), each module in a fresh process: one
interpreter loads the engine's allowed dependencies, then forks a child per module that imports
it and reports what came in (as a new interpreter would, without paying a start-up per module).
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
import importlib, json, os, sys
# The engine's allowed dependencies first: what they load themselves (cryptography imports
# `random` for RSA, for example) is not the engine's doing.
import hashlib, importlib.resources, msgspec  # noqa
import cryptography.exceptions
import cryptography.hazmat.primitives.asymmetric.ed25519
import cryptography.hazmat.primitives.serialization
before = set(sys.modules)
found = {}
for name in sys.argv[1:]:
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # a copy of this interpreter as it stands: the allowed dependencies only
        os.close(read)
        importlib.import_module(name)
        os.write(write, json.dumps(sorted(set(sys.modules) - before)).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        report = pipe.read()
    _, status = os.waitpid(child, 0)
    if status != 0:
        sys.exit(f"importing {name} failed (status {status})")
    found[name] = json.loads(report)
print(json.dumps(found))
"""


@pytest.fixture(scope="module")
def loaded() -> dict[str, list[str]]:
    """For every engine module, what importing it loaded beyond the allowed dependencies."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *MODULES],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    found: dict[str, list[str]] = json.loads(done.stdout)
    return found


@pytest.mark.parametrize("module", MODULES)
def test_engine_module_loads_no_forbidden_module(module: str, loaded: dict[str, list[str]]) -> None:
    bad = [name for name in loaded[module] if name.split(".")[0] in FORBIDDEN]
    assert not bad, f"importing {module} loaded {bad}"


def test_every_engine_module_was_probed() -> None:
    assert "engine.core.game" in MODULES and "engine.fe.checklist" in MODULES
