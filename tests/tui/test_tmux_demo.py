"""The real `hexpost demo` in an 80x24 tmux pane, as a player over `ssh -t` would see it.

Each run starts a private tmux server (its own socket name, no config file but a few lines of
its own) with one detached 80x24 window running ``python -m tui.cli demo`` under a given
``TERM``, then types into it with ``send-keys`` and reads the screen back with
``capture-pane``: the game screen (map, side panel, status line, footer on the last line),
the checklist, the help, an order drafted and checked by the engine, then signed and sent,
the seat switch with ctrl+t and back through the command palette (each through the hand-over
screen), and quitting: the pane
must die and the demo's exit status be 0. Every screen read is checked for a traceback
and for a line wider than 80 columns; the colours on the screen are checked against what the
terminal can show (256 colours, 16 colours for ``vt100``, greys only with ``NO_COLOR``).

The child gets a temporary ``HOME`` and ``TMPDIR``: the demo builds its two homes in a
temporary folder, which must be gone after it exits, and nothing may be written to ``HOME``.
No assertion is about speed; the polling helper only gives up after a generous timeout.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
import unicodedata
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.tui.conftest import ROOT, clean_env

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        shutil.which("tmux") is None,
        reason="tmux is not installed (.ci/run installs it with apt)",
    ),
]

WIDTH, HEIGHT = 80, 24
TIMEOUT = 60.0
"""Seconds to wait for a screen: generous, as a loaded CI machine may be slow to start."""
POLL = 0.05
"""Seconds between two looks at the pane (a ``tmux capture-pane``, a few ms of CPU): each
wait ends on average half of this after the screen is ready (0.2 s cost about 0.1 s per
wait, and a run waits a dozen times or more)."""

TMUX_CONF = """\
set -g remain-on-exit on
set -g status off
set -g default-size 80x24
"""
"""``remain-on-exit`` keeps the pane after the demo exits so its exit status can be read;
without the status line the window's 24 rows are all the pane's."""

DROPPED = ("NO_COLOR", "COLORTERM", "COLUMNS", "LINES", "TMUX", "TMUX_PANE", "FORCE_COLOR")
"""Variables of the caller's shell that would change what the child draws."""

MAP_KEYS = "⏎ Choose s Sync c Checklist"
"""How the footer starts while the map has the focus."""
MAP_FOOTER_ENDS = "? Help ^t Switch seat"
"""How it ends: at 80 columns the map's footer holds every key it shows, the app's last."""
ORDERS_KEYS = "d Done"
"""How it starts while the orders panel has it (at 1A1 no m Move: the step has no stack
order)."""
CHECKLIST_KEYS = "c Checklist"
"""And while the checklist has it."""

GREYS = {0, 7, 8, 15, 16, 59, 102, 145, 188, 231, *range(232, 256)}
"""The 256-colour palette's neutral entries (black, white, the cube's greys, the grey ramp)."""


def width(line: str) -> int:
    """Terminal columns of ``line`` (wide and full-width characters take two)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line)


def colours(escaped: str) -> tuple[set[int], set[str]]:
    """The 256-colour indexes and the other colour codes (``31``, ``38;2;...``) that the
    SGR sequences of a ``capture-pane -e`` text set."""
    indexed: set[int] = set()
    others: set[str] = set()
    for chunk in escaped.split("\x1b[")[1:]:
        end = chunk.find("m")
        if end < 0 or not all(c.isdigit() or c == ";" for c in chunk[:end]):
            continue
        params = [int(p) if p else 0 for p in chunk[:end].split(";")]
        i = 0
        while i < len(params):
            code = params[i]
            if code in (38, 48) and i + 2 < len(params) and params[i + 1] == 5:
                indexed.add(params[i + 2])
                i += 3
            elif code in (38, 48) and i + 4 < len(params) and params[i + 1] == 2:
                others.add(";".join(map(str, params[i : i + 5])))
                i += 5
            else:
                if 30 <= code <= 37 or 40 <= code <= 47 or 90 <= code <= 97 or 100 <= code <= 107:
                    others.add(str(code))
                i += 1
    return indexed, others


@dataclass
class Pane:
    """The demo running in a private tmux server; every screen read is kept in ``screens``.

    ``home`` and ``tmp`` are the child's ``HOME`` and ``TMPDIR``; ``status_file`` gets its
    exit status."""

    socket: str
    env: dict[str, str]
    home: Path
    tmp: Path
    status_file: Path
    screens: list[str] = field(default_factory=list)

    def tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        assert done.returncode == 0, f"tmux {' '.join(args)}: {done.stderr}"
        return done.stdout

    def start(self, conf: Path, command: list[str]) -> None:
        """A new server reading ``conf`` (so remain-on-exit holds from the start), one
        detached WIDTHxHEIGHT session running ``command`` from the repository.

        The shell around ``command`` writes its exit status to ``status_file``: tmux 3.3
        can mark the pane dead before it has reaped the process and then never show
        ``#{pane_dead_status}`` (a race between the terminal's end and SIGCHLD)."""
        size = ("-x", str(WIDTH), "-y", str(HEIGHT))
        script = f"{shlex.join(command)}; echo $? > {shlex.quote(str(self.status_file))}"
        self.tmux(
            "-f", str(conf), "new-session", "-d", "-s", "demo", *size, "-c", str(ROOT), script
        )

    def lines(self) -> list[str]:
        text = self.tmux("capture-pane", "-p", "-t", "demo")
        self.screens.append(text)
        return text.rstrip("\n").split("\n")

    def escaped(self) -> str:
        return self.tmux("capture-pane", "-p", "-e", "-t", "demo")

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "demo", *keys)

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", "demo", "-l", text)

    def dead(self) -> int | None:
        """The demo's exit status once it has exited and its pane is dead, else None."""
        status = self.status_file.read_text() if self.status_file.exists() else ""
        if not status.endswith("\n"):
            return None  # not exited, or the shell is still writing it
        pane_dead = self.tmux("display-message", "-p", "-t", "demo", "#{pane_dead}")
        return int(status) if pane_dead.strip() == "1" else None

    def last(self) -> str:
        return self.screens[-1] if self.screens else "(nothing captured)"

    def wait_for(self, *texts: str, absent: tuple[str, ...] = (), footer: str = "") -> list[str]:
        """Poll the screen until every one of ``texts`` shows, none of ``absent`` does, and
        the last line starts with ``footer``."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            lines = self.lines()
            screen = "\n".join(lines)
            assert "Traceback" not in screen, screen
            ready = all(t in screen for t in texts) and not any(t in screen for t in absent)
            if ready and lines[-1].strip().startswith(footer):
                check_size(lines)
                return lines
            status = self.dead()
            if status is not None:
                pytest.fail(f"the demo exited ({status}) while waiting for {texts}:\n{screen}")
            if time.monotonic() > deadline:
                wanted = f"{texts}, without {absent}, footer {footer!r}"
                pytest.fail(f"no {wanted} in {TIMEOUT} s:\n{screen}")
            time.sleep(POLL)

    def game(self, *texts: str, footer: str = MAP_KEYS, absent: tuple[str, ...] = ()) -> list[str]:
        """Wait for ``texts`` on the game screen with ``footer`` keys, and check its layout."""
        lines = self.wait_for(*texts, absent=absent, footer=footer)
        check_game_screen(lines, footer)
        return lines

    def wait_exit(self) -> int:
        deadline = time.monotonic() + TIMEOUT
        while (status := self.dead()) is None:
            if time.monotonic() > deadline:
                pytest.fail(f"the demo did not exit in {TIMEOUT} s:\n{self.last()}")
            time.sleep(POLL)
        return status


def check_size(lines: list[str]) -> None:
    screen = "\n".join(lines)
    assert len(lines) <= HEIGHT, screen
    wide = [line for line in lines if width(line) > WIDTH]
    assert not wide, f"lines wider than {WIDTH} columns: {wide}"


def check_game_screen(lines: list[str], footer: str = MAP_KEYS) -> None:
    """The game screen's layout: the side panel's top right of the map, the status line, and
    the footer on the last line, led by the keys of the widget with the focus (``footer``).

    Only the footer's start is checked here: with drafts and a secret step the orders
    panel's keys can push the app's last keys off an 80-column line."""
    screen = "\n".join(lines)
    assert len(lines) == HEIGHT, screen
    assert "│ demo-tutorial  #" in lines[0], screen
    assert "T1 Fall Y168" in lines[1], screen
    assert lines[-2].strip(), screen  # the status line
    assert lines[-1].strip().startswith(footer), f"footer (last line): {lines[-1]!r}"


@pytest.fixture
def pane(tmp_path: Path) -> Iterator[Pane]:
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    tmp.mkdir()
    env = clean_env(HOME=str(home), TMPDIR=str(tmp), LANG="C.UTF-8", LC_ALL="C.UTF-8")
    for name in [*DROPPED, *(k for k in env if k.startswith(("TEXTUAL", "XDG_")))]:
        env.pop(name, None)
    socket = f"hexpost-test-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    pane = Pane(socket, env, home, tmp, tmp_path / "exit-status")
    try:
        yield pane
    finally:
        subprocess.run(
            ["tmux", "-L", pane.socket, "kill-server"],
            env=env,
            capture_output=True,
            timeout=30,
            check=False,
        )


@pytest.mark.parametrize(
    ("term", "no_color", "quit_keys"),
    [
        pytest.param("xterm-256color", False, ("Escape", "q"), id="xterm-256color"),
        pytest.param("vt100", False, ("C-q",), id="vt100"),
        pytest.param("xterm-256color", True, ("C-q",), id="no-color"),
    ],
)
def test_demo_in_an_80x24_tmux_pane(
    pane: Pane, tmp_path: Path, term: str, no_color: bool, quit_keys: tuple[str, ...]
) -> None:
    conf = tmp_path / "tmux.conf"
    conf.write_text(TMUX_CONF)
    settings = [f"TERM={term}"] + (["NO_COLOR=1"] if no_color else [])
    pane.start(conf, ["env", *settings, sys.executable, "-m", "tui.cli", "demo"])

    # The hand-over to Alice first: whose seat, the keys that play a turn; Enter takes it.
    screen = "\n".join(pane.wait_for("Alice's seat: Klingons", "Press Enter to play Alice's seat."))
    assert "hand the keyboard to Bob" in screen, screen
    pane.keys("Enter")
    # Alice's seat of the tutorial game: map, side panel, the footer's keys.
    lines = pane.game("YOUR MOVE (coalition)")
    screen = "\n".join(lines)
    assert "step 1A1 Bases and PDUs" in screen
    assert "[K4 ]" in screen  # the cursor on the Strike Force's hex
    assert "Hex 1307" in screen and "KLI-0001 D7C  Strike Force" in screen
    assert any(line.startswith("03 ") for line in lines[2:4]), screen  # pinned row numbers
    assert "o Orders" in lines[-1] and lines[-1].rstrip().endswith(MAP_FOOTER_ENDS), lines[-1]

    # Colours as the terminal can show them.
    indexed, others = colours(pane.escaped())
    if no_color:
        assert indexed <= GREYS and not (others - {"30", "37", "40", "47", "90", "97"}), (
            sorted(indexed - GREYS),
            others,
        )
    elif term == "vt100":
        assert not indexed, f"256-colour codes under TERM=vt100: {sorted(indexed)}"
        assert others, "no colour under TERM=vt100"
    else:
        assert indexed - GREYS, "no colour under TERM=xterm-256color"

    # c: the checklist under the map, at the current step.
    pane.keys("c")
    pane.game("[>] 1A1", "1 Economics", footer=CHECKLIST_KEYS)

    # ?: the help over the whole screen, naming the seat switch and quit keys.
    pane.keys("?")
    screen = "\n".join(pane.wait_for("Help: keys and marks", "Switch seat", "Quit"))
    assert "^t" in screen and "^q" in screen, screen
    pane.keys("Escape")
    pane.game("[>] 1A1", absent=("Help: keys and marks",), footer=CHECKLIST_KEYS)

    # o, d: a done order drafted in the orders panel, and the engine's verdict on it.
    pane.keys("o")
    pane.game("1A1 takes: done", "no draft orders", footer=ORDERS_KEYS)
    pane.keys("d")
    pane.game("1. done", "legal: would be packet 5", footer=ORDERS_KEYS)

    # S, y: signed as packet 5 and sent at once (a sync); the map has the keys back.
    pane.keys("S")
    pane.wait_for("Sign and send these orders?", "Yes (y)")
    pane.keys("y")
    pane.game("synced: received 0, applied 0, sent 1", "│ demo-tutorial  #5", footer=MAP_KEYS)

    # ctrl+t: synced, then the hand-over to Bob, which hides Alice's screen; then Bob's seat,
    # which has received Alice's packet.
    pane.keys("C-t")
    lines = pane.wait_for("Alice has handed over", "from Alice (coalition)", "  waits for ")
    screen = "\n".join(lines)
    assert "KLI-0001" not in screen and "│ demo-tutorial  #" not in screen, screen
    pane.keys("Enter")
    lines = pane.game("KZI-0001")
    screen = "\n".join(lines)
    assert "│ demo-tutorial  #5" in lines[0], screen

    # The command palette's "Switch seat" does the same, for a terminal that takes ctrl+t.
    pane.keys("C-p")
    pane.wait_for("🔎")
    pane.type("switch seat")
    pane.wait_for("Sync, then hand the keyboard to the other player")
    pane.keys("Enter")
    pane.wait_for("Bob has handed over", "Press Enter to play Alice's seat.")
    pane.keys("Enter")
    pane.game("YOUR MOVE (coalition)", "KLI-0001")

    # Quit: q on the games list (escape leaves the game), or ctrl+q anywhere.
    if quit_keys[0] == "Escape":
        pane.keys("Escape")
        pane.wait_for("demo-tutorial", absent=("YOUR MOVE",), footer="")
        lines = pane.wait_for("q Quit")
        assert "q Quit" in lines[-1], lines[-1]
    pane.keys(quit_keys[-1])
    assert pane.wait_exit() == 0, pane.last()
    for screen in pane.screens:
        assert "Traceback" not in screen, screen
    # The demo's two homes lived in TMPDIR and went with it; HOME was not touched.
    assert not list(pane.tmp.glob("hexpost-demo-*")), "the demo left its homes behind"
    assert not list(pane.home.iterdir()), f"written into HOME: {list(pane.home.iterdir())}"
