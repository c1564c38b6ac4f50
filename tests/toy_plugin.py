"""The toy ruleset installed as a plug-in for one test, through a real entry point.

`toy_plugin` puts ``tests/plugins`` (a ``.dist-info`` naming ``tests.engine.toy:PLUGIN`` in
the ``hexpost.rulesets`` group) on ``sys.path`` and makes the registry look again; it yields
the environment a subprocess needs to see the same (``PYTHONPATH``). Import the fixture into
a test module to use it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from saves import registry

ROOT = Path(__file__).resolve().parent.parent
PLUGINS = ROOT / "tests" / "plugins"


@pytest.fixture
def toy_plugin() -> Iterator[dict[str, str]]:
    sys.path.append(str(PLUGINS))
    registry.reload()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT), str(PLUGINS), env.get("PYTHONPATH", "")) if p
    )
    try:
        yield env
    finally:
        sys.path.remove(str(PLUGINS))
        registry.reload()
