"""The event log in an 80x24 app: bookkeeping filtered out until ``v``, notes marked, long
events wrapped under themselves, and new events followed unless the player scrolled up."""

from __future__ import annotations

from functools import cache
from typing import Any
from unittest.mock import patch

from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.screen import Screen

from tests.engine.fe_wind import play_wind_turns
from tests.tui.pilots import screen_cells, settle_until
from tui.widgets.eventlog import BOOKKEEPING, EventLog, Row

SIZE = (80, 24)

ROWS: list[Row] = [
    (7, "coalition", "income", "LYR collects 115 EP"),
    (7, "", "step-auto", "1A2 Supply check 1 for combat: done by the engine"),
    (8, "coalition", "build", "LYR builds FF LYR-0105 at 0408 for 2.5 EP"),
    (8, "coalition", "step-done", "coalition completed 2B3 Build ships"),
    (9, "alliance", "note", "alliance noted at 2B3: nice frigate"),
    (9, "coalition", "phase", "Phase 3 (Operations) begins for coalition"),
    (10, "coalition", "move", "KLI moves D7 KLI-0001 1411->1210 (2 hexes)"),
]


def numbered(count: int, start: int = 100) -> list[Row]:
    return [(start + n, "alliance", "move", f"event number {start + n}") for n in range(count)]


@cache
def wind_rows() -> tuple[Row, ...]:
    """Every event of the scripted Wind game, as the app would read them from the log."""
    table = play_wind_turns()
    return tuple(
        (seq, event.seat, event.kind, event.text)
        for seq, result in enumerate(table.results)
        for event in result.events
    )


class LogApp(App[None]):
    def __init__(self, rows: list[Row]) -> None:
        super().__init__()
        self.rows = rows

    def compose(self) -> ComposeResult:
        yield EventLog(id="log")

    def on_mount(self) -> None:
        self.log_widget.show_events(self.rows)
        self.log_widget.focus()

    @property
    def log_widget(self) -> EventLog:
        return self.query_one(EventLog)


def texts(log: EventLog) -> list[str]:
    return [strip.text.rstrip() for strip in log.lines]


def on_screen(log: EventLog) -> list[str]:
    return [log.render_line(y).text.rstrip() for y in range(log.scrollable_content_region.height)]


async def drawn(pilot: Pilot[None]) -> None:
    """Wait for the log's first lines: it draws them once its width is known (its resize)."""
    log = pilot.app.query_one(EventLog)
    await settle_until(pilot, lambda: log.lines, "the log drew its lines")


def at_end(log: EventLog, last: str) -> bool:
    """Whether the log is scrolled to its end and its last line on screen ends with ``last``
    (a scroll to the end runs after the refresh that lays new lines out)."""
    return log.scroll_y == log.max_scroll_y and on_screen(log)[-1].endswith(last)


async def test_bookkeeping_is_hidden_and_lines_carry_packet_and_seat() -> None:
    app = LogApp(ROWS)
    async with app.run_test(size=SIZE) as pilot:
        await drawn(pilot)
        assert texts(app.log_widget) == [
            "#7    coalition    LYR collects 115 EP",
            "#8    coalition    LYR builds FF LYR-0105 at 0408 for 2.5 EP",
            "#9    alliance   * alliance noted at 2B3: nice frigate",
            "#10   coalition    KLI moves D7 KLI-0001 1411->1210 (2 hexes)",
        ]


async def test_notes_stand_out_in_bold() -> None:
    app = LogApp(ROWS)
    async with app.run_test(size=SIZE) as pilot:
        await drawn(pilot)
        lines = app.log_widget.lines

        def bold(index: int) -> bool:
            return any(
                segment.style is not None and segment.style.bold and "noted" in segment.text
                for segment in lines[index]
            )

        assert bold(2)
        assert not any(segment.style is not None and segment.style.bold for segment in lines[1]), (
            "an ordinary event is not bold"
        )


async def test_v_shows_bookkeeping_and_hides_it_again() -> None:
    app = LogApp(ROWS)
    async with app.run_test(size=SIZE) as pilot:
        await drawn(pilot)
        log = app.log_widget
        await pilot.press("v")
        await pilot.pause()
        assert log.verbose
        assert texts(log) == [
            "#7    coalition    LYR collects 115 EP",
            "#7    -          . 1A2 Supply check 1 for combat: done by the engine",
            "#8    coalition    LYR builds FF LYR-0105 at 0408 for 2.5 EP",
            "#8    coalition  . coalition completed 2B3 Build ships",
            "#9    alliance   * alliance noted at 2B3: nice frigate",
            "#9    coalition  . Phase 3 (Operations) begins for coalition",
            "#10   coalition    KLI moves D7 KLI-0001 1411->1210 (2 hexes)",
        ]
        await pilot.press("v")
        await pilot.pause()
        assert len(texts(log)) == 4


async def test_a_real_game_log_drops_its_bookkeeping() -> None:
    rows = list(wind_rows())
    app = LogApp(rows)
    async with app.run_test(size=SIZE) as pilot:
        await drawn(pilot)
        log = app.log_widget
        wanted = [row for row in rows if row[2] not in BOOKKEEPING]
        assert 0 < len(wanted) < len(rows) // 2, "most events of a turn are bookkeeping"
        shown = [line for line in texts(log) if line.startswith("#")]
        assert len(shown) == len(wanted)
        assert not any(" . " in line[16:19] for line in shown)
        assert any("KLI declares war on KZI" in line for line in shown)
        await pilot.press("v")
        await pilot.pause()
        assert len([line for line in texts(log) if line.startswith("#")]) == len(rows)


async def test_long_events_wrap_under_their_text_and_rewrap_on_resize() -> None:
    words = " ".join(f"word{n}" for n in range(30))
    app = LogApp([(3, "coalition", "note", words)])
    async with app.run_test(size=SIZE) as pilot:
        await drawn(pilot)
        log = app.log_widget
        lines = texts(log)
        assert len(lines) == 4
        assert lines[0].startswith("#3    coalition  * word0 word1")
        assert all(line.startswith(" " * 19 + "word") for line in lines[1:])
        assert all(len(line) < SIZE[0] for line in lines)
        assert " ".join(" ".join(lines).split()[3:]) == words
        await pilot.resize_terminal(50, 24)
        # The new width reaches the log at the next layout.
        await settle_until(pilot, lambda: len(texts(log)) > len(lines), "rewrapped at 50")
        narrow = texts(log)
        assert all(len(line) < 50 for line in narrow)


async def test_new_events_are_followed_at_the_end() -> None:
    app = LogApp(numbered(60))
    async with app.run_test(size=SIZE) as pilot:
        log = app.log_widget
        # The log scrolls to its end after the refresh that lays its lines out.
        await settle_until(pilot, lambda: at_end(log, "event number 159"), "at the end")
        assert log.max_scroll_y > 0
        log.add_events(numbered(10, start=160))
        log.add_events([(170, "coalition", "step-done", "hidden bookkeeping")])
        log.add_events(numbered(5, start=171))
        await settle_until(pilot, lambda: at_end(log, "event number 175"), "followed")
        assert log.following
        assert log.scroll_y == log.max_scroll_y
        assert on_screen(log)[-1].endswith("event number 175")
        assert not any("hidden bookkeeping" in line for line in texts(log))


async def test_scrolling_up_stops_following_until_the_end_again() -> None:
    app = LogApp(numbered(60))
    async with app.run_test(size=SIZE) as pilot:
        log = app.log_widget
        await settle_until(pilot, lambda: at_end(log, "event number 159"), "at the end")
        await pilot.press("home")
        await settle_until(pilot, lambda: log.scroll_y == 0, "scrolled to the top")
        assert not log.following
        longest = log.max_scroll_y
        log.add_events(numbered(10, start=160))
        # Once the new lines are laid out (the scroll range grew), a scroll to the end would
        # have been made: it must not have been.
        await settle_until(pilot, lambda: log.max_scroll_y == longest + 10, "new lines laid out")
        await pilot.pause()
        assert log.scroll_y == 0, "reading older events: the log stays put"
        assert on_screen(log)[0].endswith("event number 100")
        await pilot.press("end")
        await settle_until(pilot, lambda: at_end(log, "event number 169"), "back at the end")
        assert log.following
        log.add_events(numbered(3, start=170))
        await settle_until(pilot, lambda: at_end(log, "event number 172"), "following again")
        assert log.following


async def test_show_events_replaces_the_content() -> None:
    app = LogApp(numbered(5))
    async with app.run_test(size=SIZE) as pilot:
        await drawn(pilot)
        log = app.log_widget
        log.show_events(ROWS[:1])
        await pilot.pause()
        assert texts(log) == ["#7    coalition    LYR collects 115 EP"]
        assert log.rows == (ROWS[0],)


async def test_rows_given_before_mounting_show_once_it_has_a_size() -> None:
    class Early(App[None]):
        def compose(self) -> ComposeResult:
            log = EventLog(verbose=True)
            log.show_events(ROWS)
            log.add_events(numbered(2))
            yield log

    app = Early()
    async with app.run_test(size=SIZE) as pilot:
        await drawn(pilot)
        lines = texts(app.query_one(EventLog))
        assert len(lines) == len(ROWS) + 2
        assert lines[-1].endswith("event number 101")


async def test_events_shown_from_the_top_are_scrolled_there_at_once() -> None:
    """The review shows one packet's events from the first (``from_top``): the log is at its
    top when the call returns, in the frame the new lines are painted in, and stays there (a
    scroll left for after the repaint, the log's own to where it was, would move it again)."""
    app = LogApp(numbered(60))
    async with app.run_test(size=SIZE) as pilot:
        log = app.log_widget
        await settle_until(pilot, lambda: at_end(log, "event number 159"), "at the end")
        log.show_events(numbered(40, start=500), from_top=True)
        assert log.scroll_y == 0 and not log.following
        assert on_screen(log)[0].startswith("#500")
        await pilot.pause(0.1)  # six frames: any scroll still due has run
        assert log.scroll_y == 0 and log.max_scroll_y > 0
        assert on_screen(log)[0].startswith("#500")


async def test_rows_drawn_in_the_first_layout_come_with_their_scrollbar() -> None:
    """Rows given before the log has a size are drawn in the layout that gives it one
    (`EventLog._size_updated`), and the scrollbar they need is sized in that layout too:
    the first repaint that shows the rows shows the scrollbar's thumb (it came a repaint
    later, as a column that changed colour under the rows: the review's first paint, and
    the game screen's first ``e``)."""
    shown: list[object] = []
    real_refresh = Screen._compositor_refresh

    def noted(screen: Screen[Any]) -> None:
        real_refresh(screen)
        log = screen.query(EventLog)
        if log and log.first().lines:
            shown.append(screen_cells(screen))

    class Early(App[None]):
        CSS = "EventLog { height: 6; }"

        def compose(self) -> ComposeResult:
            log = EventLog()
            log.show_events(numbered(20))
            yield log

    app = Early()
    with patch.object(Screen, "_compositor_refresh", noted):
        async with app.run_test(size=SIZE) as pilot:
            await drawn(pilot)
            await pilot.pause(0.1)
            log = app.query_one(EventLog)
            assert log.show_vertical_scrollbar and log.max_scroll_y > 0
            final = screen_cells(app.screen)
    assert shown and shown[0] == final
