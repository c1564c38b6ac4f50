"""The converter reproduces the shipped data files from the reference data, byte for byte.

The reference data (``shared/fe-data``) is a developer-side input that a fresh clone does not
have: the tests that need it skip when it is absent. The layout helper is tested always.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "convert_fe_data.py"
SHIPPED = ROOT / "engine" / "fe" / "data"
CANDIDATES = (ROOT.parent / "shared" / "fe-data", Path("/work/shared/fe-data"))
SOURCE = next((p for p in CANDIDATES if (p / "default_map.json").is_file()), None)

needs_source = pytest.mark.skipif(SOURCE is None, reason="no reference data (shared/fe-data)")


def _converter() -> ModuleType:
    spec = importlib.util.spec_from_file_location("convert_fe_data", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["convert_fe_data"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], check=False, cwd=ROOT, capture_output=True, text=True
    )


@needs_source
def test_map_is_reproduced_byte_for_byte(tmp_path: Path) -> None:
    done = _run("--map", "--source", str(SOURCE), "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "map.json").read_bytes() == (SHIPPED / "map.json").read_bytes()


def test_without_reference_data_it_says_so(tmp_path: Path) -> None:
    done = _run("--map", "--source", str(tmp_path / "absent"), "--out", str(tmp_path))
    assert done.returncode == 1
    assert "no reference data" in done.stderr
    assert not (tmp_path / "map.json").exists()


def test_a_part_must_be_chosen() -> None:
    done = _run()
    assert done.returncode == 2
    assert "--map" in done.stderr


def test_render_json_is_compact_and_wraps_long_lists() -> None:
    render = _converter().render_json
    assert render({"a": [1, 2], "b": {"c": "d"}}) == '{"a": [1, 2], "b": {"c": "d"}}\n'
    text = render({"hexes": list(range(1000, 1100))})
    lines = text.splitlines()
    assert all(len(line) <= 100 for line in lines)
    assert lines[0] == "{" and lines[1] == '  "hexes": [' and lines[-1] == "}"
    assert render({"hexes": list(range(1000, 1100))}) == text
