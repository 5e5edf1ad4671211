"""What happened to which worker, when: the timeline the HTML report draws as SVG.

Input is the engine's :class:`~bundler.analyze.api.Timeline` (the product's
log parser's events, sampled with exact counts) and the fleet overview (last
heartbeat per worker, failing workers first). Output is pure geometry — lanes,
state bars, marks, bands, ticks — so the template only draws, and a test can
check the layout without a browser.

Readable at hundreds of workers: the first :data:`MAX_LANES` workers of the
overview (failing first) get a lane each, every other worker is folded into
one lane per overview group ("268 workers offline"), whose marks are thinned
to :data:`MAX_GROUP_MARKS`. Every mark says where it came from (member and
line) in its ``<title>``, which a browser shows on hover.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import pairwise
from typing import TypeVar

from schemas import AnalysisReport, FleetOverview, WorkerOverview

from ...timetext import utc
from ..api import Timeline, TimelineEvent
from .timeline_clocks import CLOCK_NOTE, lane_note, on_server_clock, sentence
from .timeline_kinds import CATEGORIES, KINDS, STATES, category

T = TypeVar("T")
_XOf = Callable[[datetime], float]
"""Maps a time to its x coordinate on the plot."""

MAX_LANES = 40
MAX_GROUP_MARKS = 120
MAX_LANE_MARKS = 60
"""Marks per worker lane: a busy worker's 160 kept events drew 160 overlapping circles in
900 px (1.7 MB of SVG at 1,000 workers); the rare kinds are kept whole, routine ones thinned."""
WIDTH = 1100
LABEL_W = 190
LANE_H = 22
AXIS_H = 28
RIGHT_PAD = 16


@dataclass(frozen=True)
class Mark:
    x: float
    category: str
    title: str


@dataclass(frozen=True)
class Bar:
    x1: float
    x2: float
    state: str
    title: str


@dataclass
class Lane:
    label: str
    y: float
    css: str
    """Verdict class of the lane's worker(s): blocked, degraded, ... or 'ok'."""
    marks: list[Mark] = field(default_factory=list)
    bars: list[Bar] = field(default_factory=list)
    note: str = ""


@dataclass(frozen=True)
class Band:
    x1: float
    x2: float
    title: str


@dataclass(frozen=True)
class Gap:
    x1: float
    x2: float
    label: str
    title: str


@dataclass
class TimelineView:
    width: int
    height: int
    plot_x: float
    plot_w: float
    lanes: list[Lane]
    ticks: list[tuple[float, str]]
    bands: list[Band]
    collected_x: float | None
    collected_label: str
    undated: int
    folded: int
    """Workers drawn in a group lane instead of one of their own."""
    start: datetime
    end: datetime
    log_only_folded: int = 0
    """Workers named only in logs, past :data:`MAX_LANES`, drawn in one shared lane: a
    server log naming 50,000 workers drew 50,000 lanes (a 31 MB page)."""
    gap: Gap | None = None
    """A quiet stretch drawn as a narrow break rather than to scale."""
    clocks: list[str] = field(default_factory=list)
    """One sentence per worker whose clock is off: how its lines are drawn."""

    @property
    def categories(self) -> list[tuple[str, str]]:
        used = {m.category for lane in self.lanes for m in lane.marks}
        return [(c, text) for c, text in CATEGORIES.items() if c in used]

    @property
    def states(self) -> list[tuple[str, str]]:
        used = {b.state for lane in self.lanes for b in lane.bars}
        return [(s, text) for s, text in STATES.items() if s in used]


def build(report: AnalysisReport, timeline: Timeline | None) -> TimelineView | None:
    """The timeline's geometry, or None when nothing in the bundle is dated.

    A worker's log lines written on a clock the bundle proves off are drawn on the server's
    clock where its offset is bounded both ways (:mod:`.timeline_clocks`)."""
    events, skewed = on_server_clock(timeline, timeline.events if timeline is not None else [])
    dated = [e for e in events if e.at is not None]
    overview = report.fleet or FleetOverview()
    beats = [w.last_heartbeat_at for w in overview.workers if w.last_heartbeat_at is not None]
    collected = report.bundle.created_at
    stamps = [e.at for e in dated if e.at is not None] + beats + ([collected] if collected else [])
    if not dated and not beats:
        return None
    start, end = _widened(min(stamps), max(stamps))
    plot_x, plot_w = LABEL_W, WIDTH - LABEL_W - RIGHT_PAD
    scale = _Scale(start, end, stamps, plot_x, plot_w)
    x_of = scale.x_of
    wall = scale.gap.x1 if scale.gap else None

    by_worker: dict[str | None, list[TimelineEvent]] = {}
    for event in dated:
        by_worker.setdefault(event.worker, []).append(event)
    lanes: list[Lane] = []
    server = by_worker.pop(None, [])
    if server:
        lanes.append(_lane("server, no worker named", "ok", server, x_of, None, None, wall=wall))
    own, folded = _split(overview, by_worker)
    for row in own:
        lanes.append(
            _lane(row.name, _css(row), by_worker.get(row.name, []), x_of, row, end, row.name, wall)
        )
    known = {r.name for r in overview.workers}
    extra = [name for name in by_worker if name not in known]
    room = max(0, MAX_LANES - len(own))
    for name in extra[:room]:  # named in logs only: still drawn, within the same cap
        lanes.append(_lane(str(name), "ok", by_worker[name], x_of, None, end, str(name), wall))
    log_only = extra[room:]
    if log_only:
        merged = [e for name in log_only for e in by_worker[name]]
        lane = _lane(
            f"{len(log_only)} more named only in logs",
            "ok",
            _thin(merged),
            x_of,
            None,
            None,
            wall=wall,
        )
        lane.note = f"{len(log_only)} workers, marks overlaid"
        lanes.append(lane)
    folded_count = 0
    for label, css, rows in folded:
        folded_count += len(rows)
        merged = [e for r in rows for e in by_worker.get(r.name, [])]
        lane = _lane(label, css, _thin(merged), x_of, None, None, wall=wall)
        lane.marks += [_beat(r, x_of) for r in rows[:MAX_GROUP_MARKS] if r.last_heartbeat_at]
        lane.note = f"{len(rows)} workers, marks overlaid"
        lanes.append(lane)
    for lane in lanes:
        offset = skewed.get(lane.label)
        if offset is not None:
            lane.note = "; ".join(n for n in (lane_note(offset), lane.note) if n)
    for index, lane in enumerate(lanes):
        lane.y = AXIS_H + index * LANE_H
    height = AXIS_H + len(lanes) * LANE_H + 8
    return TimelineView(
        width=WIDTH,
        height=height,
        plot_x=plot_x,
        plot_w=plot_w,
        lanes=lanes,
        ticks=scale.ticks(),
        bands=_bands(dated, end, x_of),
        collected_x=x_of(collected) if collected else None,
        collected_label=f"bundle created {collected.strftime(scale.fmt)}Z" if collected else "",
        undated=len(events) - len(dated),
        folded=folded_count,
        log_only_folded=len(log_only),
        start=start,
        end=end,
        gap=scale.gap,
        clocks=[sentence(worker, offset) for worker, offset in sorted(skewed.items(), key=str)],
    )


PAD = timedelta(seconds=5)
"""A span shorter than two of these is widened by one on each side, so a lone instant has room."""


def _widened(start: datetime, end: datetime) -> tuple[datetime, datetime]:
    """``start``..``end``, padded when under 10 s, never past ``datetime``'s range.

    Everything dated within seconds of year 1 or 9999 (a bundle's own times,
    however odd) overflowed ``start - PAD``; the pad is clamped instead.
    """
    if end - start >= 2 * PAD:
        return start, end
    lowest = datetime.min.replace(tzinfo=start.tzinfo)
    highest = datetime.max.replace(tzinfo=end.tzinfo)
    start = start - PAD if start - lowest >= PAD else lowest
    end = end + PAD if highest - end >= PAD else highest
    return start, end


def _css(row: WorkerOverview) -> str:
    if row.verdict is not None and row.verdict.value != "healthy":
        return row.verdict.value
    return "flagged" if row.trouble else "ok"


def _split(
    overview: FleetOverview, by_worker: dict[str | None, list[TimelineEvent]]
) -> tuple[list[WorkerOverview], list[tuple[str, str, list[WorkerOverview]]]]:
    """Workers with a lane of their own, and the rest folded per overview group."""
    rows = overview.workers
    if len(rows) <= MAX_LANES:
        return list(rows), []
    own = list(rows[:MAX_LANES])
    named = {r.name for r in own}
    index = {r.name: r for r in rows}
    folded = []
    for group in overview.groups:
        rest = [index[n] for n in group.workers if n not in named and n in index]
        if rest:
            css = _css(rest[0])
            folded.append((f"{len(rest)} more: {_short(group.summary)}", css, rest))
    return own, folded


def _short(summary: str) -> str:
    text = summary.split(" — ")[0].split(", last seen")[0].split(" since ")[0]
    words = text.split(" ", 1)
    return words[1] if len(words) > 1 else text


def _lane(
    label: str,
    css: str,
    events: Sequence[TimelineEvent],
    x_of: _XOf,
    row: WorkerOverview | None,
    end: datetime | None,
    worker: str | None = None,
    wall: float | None = None,
) -> Lane:
    lane = Lane(label=label, y=0, css=css)
    marks = [Mark(x_of(e.at), c, _title(e)) for e, c in _categorised(events) if e.at]
    kept = _bounded(marks)
    if len(kept) < len(marks):
        lane.note = f"{len(kept)} of {len(marks)} marks drawn, routine ones thinned"
    lane.marks = _spread(kept, wall)
    if row is not None and row.last_heartbeat_at is not None:
        lane.marks.append(_beat(row, x_of))
    if end is not None:
        lane.bars = _bars(events, end, x_of, worker)
    return lane


def _bounded(marks: list[Mark], limit: int = MAX_LANE_MARKS) -> list[Mark]:
    """At most ``limit`` marks: categories from the rarest up each get an equal share of what
    is left (a category within its share keeps every mark), thinned evenly in time."""
    if len(marks) <= limit:
        return marks
    by_category: dict[str, list[Mark]] = {}
    for mark in marks:
        by_category.setdefault(mark.category, []).append(mark)
    kept: list[Mark] = []
    budget, left = limit, len(by_category)
    for _, group in sorted(by_category.items(), key=lambda item: len(item[1])):
        taken = _evenly(group, max(1, budget // left))
        kept += taken
        budget, left = budget - len(taken), left - 1
    return kept  # in category order: _spread puts them in time order


NUDGE = 7.0
"""Marks closer than this (px) are set side by side: logs stamp to the second, and an
eviction, its disconnect and the reconnect often share one."""
MAX_NUDGE = 35.0


def _spread(marks: list[Mark], wall: float | None = None) -> list[Mark]:
    """Marks in time order, each at least NUDGE right of the one before (within MAX_NUDGE),
    never nudged across ``wall`` (the start of a break: it would look dated inside it)."""
    out: list[Mark] = []
    for mark in sorted(marks, key=lambda m: m.x):
        x = mark.x
        if out and x - out[-1].x < NUDGE and out[-1].x + NUDGE - mark.x <= MAX_NUDGE:
            nudged = round(out[-1].x + NUDGE, 1)
            x = nudged if wall is None or mark.x > wall or nudged <= wall else wall
        out.append(Mark(x, mark.category, mark.title))
    return out


def _categorised(events: Sequence[TimelineEvent]) -> list[tuple[TimelineEvent, str]]:
    """Each event's category; a connection after being stale, offline or cut off is a reconnect."""
    out = []
    state: str | None = None
    for event in events:
        kind = category(event.kind)
        if kind == "registration" and state in ("stale", "down", "lost"):
            kind = "reconnect"
        out.append((event, kind))
        after = KINDS.get(event.kind, ("", None))[1]
        state = after or state
    return out


def _beat(row: WorkerOverview, x_of: _XOf) -> Mark:
    assert row.last_heartbeat_at is not None
    where = row.evidence.label() if row.evidence else "evidence/workers.json"
    return Mark(
        x_of(row.last_heartbeat_at),
        "heartbeat",
        f"{row.last_heartbeat_at:%H:%M:%S}Z {row.name}: last heartbeat ({row.status.value}) "
        f"— {where}",
    )


def _title(event: TimelineEvent) -> str:
    assert event.at is not None
    who = f" {event.worker}" if event.worker else ""
    what = event.kind.replace("_", " ")
    clock = event.detail.get(CLOCK_NOTE)
    when = f"{event.at:%H:%M:%S}Z" + (f" ({clock})" if clock else "")
    return f"{when}{who}: {what} — {event.member}:{event.line}\n{event.text[:300]}"


def _bars(
    events: Sequence[TimelineEvent], end: datetime, x_of: _XOf, worker: str | None
) -> list[Bar]:
    """State from one state-changing event to the next (the last one up to collection)."""
    changes = [(e, KINDS[e.kind][1]) for e in events if e.kind in KINDS and KINDS[e.kind][1]]
    bars = []
    for i, (event, state) in enumerate(changes):
        assert event.at is not None
        assert state is not None
        until = changes[i + 1][0].at if i + 1 < len(changes) else end
        assert until is not None
        if until <= event.at:
            continue
        title = (
            f"{worker or ''} {STATES[state]} {event.at:%H:%M:%S}Z – {until:%H:%M:%S}Z "
            f"(from {event.member}:{event.line})"
        ).strip()
        bars.append(Bar(x_of(event.at), x_of(until), state, title))
    return bars


def _bands(events: Iterable[TimelineEvent], end: datetime, x_of: _XOf) -> list[Band]:
    """Server-down windows: from 'server stopping' (or a worker losing it) to its next start."""
    bands = []
    down_at: TimelineEvent | None = None
    for event in events:
        assert event.at is not None
        if event.kind == "server_stopping" and down_at is None:
            down_at = event
        elif event.kind == "server_started" and down_at is not None:
            bands.append(_band(down_at, event.at, x_of))
            down_at = None
    if down_at is not None:
        bands.append(_band(down_at, end, x_of))
    if not bands:
        lost = [e for e in events if e.kind == "connection_lost" and e.at is not None]
        if lost and all(e.worker for e in lost) and len({e.worker for e in lost}) > 1:
            first = lost[0]
            bands.append(_band(first, end, x_of, "workers cannot reach the server"))
    return bands


def _band(event: TimelineEvent, until: datetime, x_of: _XOf, what: str = "server down") -> Band:
    assert event.at is not None
    return Band(
        x_of(event.at),
        x_of(until),
        f"{what} {event.at:%H:%M:%S}Z – {until:%H:%M:%S}Z (from {event.member}:{event.line})",
    )


def _thin(events: list[TimelineEvent]) -> list[TimelineEvent]:
    """At most MAX_GROUP_MARKS events, spread evenly in time."""
    events.sort(key=lambda e: e.at or datetime.min)
    return _evenly(events, MAX_GROUP_MARKS)


def _evenly(items: list[T], count: int) -> list[T]:
    """At most ``count`` of ``items`` (in order), taken at even steps through them."""
    if len(items) <= count:
        return items
    step = len(items) / count
    return [items[int(i * step)] for i in range(count)]


GAP_SHARE = 0.5
"""A stretch with nothing dated in it, longer than this share of the whole span (and than
GAP_MIN), is drawn as a narrow break: a fleet whose logs stopped days before the bundle
was made had every mark squeezed into the plot's first pixels."""
GAP_MIN = timedelta(hours=1)
GAP_W = 44.0
TICK_EVERY = 160.0
"""About one tick label per this many pixels of a scale's segment."""


class _Scale:
    """Time to x: linear over the span, or over the two sides of one long quiet gap."""

    def __init__(
        self,
        start: datetime,
        end: datetime,
        stamps: Sequence[datetime],
        plot_x: float,
        plot_w: float,
    ) -> None:
        self.start, self.end, self.plot_x, self.plot_w = start, end, plot_x, plot_w
        self.fmt = "%H:%M:%S" if end - start < timedelta(days=1) else "%m-%d %H:%M"
        self.gap: Gap | None = None
        self._cut: tuple[datetime, datetime, float] | None = None
        ordered = sorted(set(stamps))
        quiet = max(pairwise(ordered), key=lambda ab: ab[1] - ab[0], default=None)
        if quiet is None:
            return
        before, after = quiet
        length = after - before
        if length < GAP_MIN or length.total_seconds() <= GAP_SHARE * (end - start).total_seconds():
            return
        left = (before - start).total_seconds()
        right = (end - after).total_seconds()
        usable = plot_w - GAP_W
        left_w = usable * left / (left + right) if left + right > 0 else usable
        self._cut = (before, after, left_w)
        x1 = round(plot_x + left_w, 1)
        self.gap = Gap(
            x1,
            round(x1 + GAP_W, 1),
            _duration(length),
            f"nothing dated from {utc(before)} to {utc(after)} "
            f"({_duration(length)}): drawn narrow, not to scale",
        )

    def x_of(self, at: datetime) -> float:
        if self._cut is None:
            return self._linear(at, self.start, self.end, self.plot_x, self.plot_w)
        before, after, left_w = self._cut
        if at <= before:
            return self._linear(at, self.start, before, self.plot_x, left_w)
        if at >= after:
            right_w = self.plot_w - left_w - GAP_W
            return self._linear(at, after, self.end, self.plot_x + left_w + GAP_W, right_w)
        return self._linear(at, before, after, self.plot_x + left_w, GAP_W)

    @staticmethod
    def _linear(at: datetime, t0: datetime, t1: datetime, x0: float, width: float) -> float:
        span = (t1 - t0).total_seconds()
        share = (at - t0).total_seconds() / span if span > 0 else 0.0
        return round(x0 + width * share, 1)

    def ticks(self) -> list[tuple[float, str]]:
        """Evenly spaced labelled times: over the span, or over each side of the gap."""
        if self._cut is None:
            return self._segment(self.start, self.end, self.plot_w)
        before, after, left_w = self._cut
        right_w = self.plot_w - left_w - GAP_W
        # A lone instant after the gap (the collection, most often) has a label of its own;
        # a tick there would run off the plot.
        right = self._segment(after, self.end, right_w) if self.end > after else []
        return self._segment(self.start, before, left_w) + right

    def _segment(self, t0: datetime, t1: datetime, width: float) -> list[tuple[float, str]]:
        count = max(2, min(6, round(width / TICK_EVERY) + 1)) if t1 > t0 else 1
        moments = [t0 + (t1 - t0) * i / max(count - 1, 1) for i in range(count)]
        return [(self.x_of(at), at.strftime(self.fmt)) for at in moments]


def _duration(length: timedelta) -> str:
    """``3 d 6 h``, ``5 h 12 min``, ``42 min``: how long a gap is, to the nearest unit shown."""
    minutes = int(length.total_seconds() // 60)
    days, hours, mins = minutes // 1440, minutes // 60 % 24, minutes % 60
    if days:
        return f"{days} d {hours} h" if hours else f"{days} d"
    if hours:
        return f"{hours} h {mins} min" if mins else f"{hours} h"
    return f"{mins} min"
