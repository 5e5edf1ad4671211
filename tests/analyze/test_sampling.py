"""The timeline of a huge log is a bounded sample with exact counts."""

from __future__ import annotations

from datetime import timedelta

from bundler.analyze import sampling
from bundler.analyze.api import EvidenceSet, Timeline, TimelineEvent
from bundler.analyze.engine import analyze
from schemas.evidence import ClockOffset
from tests.support.evidence import T0, Fleet, StubProfile


def _events(kind: str, worker: str | None, n: int) -> list[TimelineEvent]:
    return [
        TimelineEvent(
            kind=kind,
            member="hosts/h01/logs/1.log",
            line=i + 1,
            text=f"{kind} {i}",
            at=T0 + timedelta(seconds=i),
            worker=worker,
        )
        for i in range(n)
    ]


def test_small_timelines_are_kept_whole() -> None:
    events = _events("evicted", "w1", 10)
    result = sampling.sample(events)
    assert (result.seen, result.kept) == (10, 10)
    assert result.timeline.totals == {}
    assert result.timeline.count("evicted", worker="w1") == 10


def test_big_timelines_keep_first_and_latest_per_kind_and_worker() -> None:
    claimed = _events("claimed", "w1", 10_000)
    evicted = _events("evicted", "w2", 3)
    result = sampling.sample([*reversed(claimed), *evicted])  # log order is not time order
    kept = result.timeline.of_kind("claimed", worker="w1")
    assert len(kept) == sampling.FIRST_KEPT + sampling.LATEST_KEPT
    latest = {e.line for e in kept[-sampling.LATEST_KEPT :]}
    assert latest == set(range(10_000 - sampling.LATEST_KEPT + 1, 10_001))  # the latest in time
    assert result.timeline.count("claimed") == 10_000
    assert result.timeline.count("claimed", worker="w2") == 0
    assert len(result.timeline.of_kind("evicted", worker="w2")) == 3


def test_of_kind_merges_kinds_in_time_order() -> None:
    timeline = Timeline(_events("stale", "w1", 3) + _events("evicted", "w1", 3))
    found = timeline.of_kind("stale", "evicted", worker="w1")
    assert [e.at for e in found] == sorted(e.at for e in found)
    assert len(found) == 6


def test_engine_notes_sampling(fleet: Fleet) -> None:
    report = analyze(fleet.evidence(), profile=StubProfile(events=_events("claimed", "w1", 500)))
    [note] = [f for f in report.fleet_findings if f.code == "TIMELINE_SAMPLED"]
    assert note.details == {"seen": 500, "kept": sampling.FIRST_KEPT + sampling.LATEST_KEPT}


def test_the_note_says_when_a_fleet_kept_fewer_routine_events(fleet: Fleet) -> None:
    from dataclasses import dataclass

    from bundler.analyze.api import TimelineStream, routine_kept

    @dataclass
    class FleetProfile(StubProfile):
        def parse_logs(self, evidence: EvidenceSet) -> TimelineStream:  # type: ignore[override]
            return TimelineStream(list(self.events), {("claimed", "w1"): 900}, routine_kept(1000))

    report = analyze(fleet.evidence(), profile=FleetProfile(events=_events("claimed", "w1", 6)))
    [note] = [f for f in report.fleet_findings if f.code == "TIMELINE_SAMPLED"]
    assert note.details == {"seen": 906, "kept": 6}
    assert "of routine progress lines, in a fleet this size, the first 1 and the latest 5" in (
        note.message
    )


def test_the_timeline_index_answers_like_a_filter_over_every_event() -> None:
    from datetime import UTC, datetime, timedelta

    from bundler.analyze.api import Timeline, TimelineEvent

    start = datetime(2026, 12, 1, tzinfo=UTC)
    events = [
        TimelineEvent(
            kind=("stale", "evicted", "connected")[i % 3],
            member=f"m{i % 4}",
            line=i,
            text="t",
            at=start + timedelta(seconds=(i * 7) % 50) if i % 11 else None,
            worker=f"w{i % 5}" if i % 6 else None,
        )
        for i in range(300)
    ]
    totals = {("stale", "w1"): 500, ("stale", "w2"): 3, ("evicted", None): 9}
    for kept in (Timeline(list(events)), Timeline(list(events), totals=totals)):
        everything = list(kept.events)
        for worker in (None, "w0", "w1", "w4", "nobody"):
            for kinds in (("stale",), ("evicted", "stale"), ("connected", "stale", "evicted")):
                assert kept.of_kind(*kinds, worker=worker) == [
                    e
                    for e in everything
                    if e.kind in kinds and (worker is None or e.worker == worker)
                ]
            if worker is not None:
                assert kept.for_worker(worker) == [e for e in everything if e.worker == worker]
        stale_w1 = sum(1 for e in everything if e.kind == "stale" and e.worker == "w1")
        assert kept.count("stale", "w1") == (500 if kept.totals else stale_w1)
        assert kept.count("stale") == (503 if kept.totals else 100)


def _reference_sample(
    events: list[TimelineEvent], clocks: dict[str, ClockOffset] | None = None
) -> list[TimelineEvent]:
    """What the sampler keeps, by definition: per key the first FIRST_KEPT in log order and,
    of the rest, the LATEST_KEPT greatest by (place in the timeline of every event, arrival)."""
    whole = Timeline(list(events), clocks=clocks or {}).events
    place = {id(event): position for position, event in enumerate(whole)}
    by_key: dict[tuple[str, str | None], list[tuple[int, TimelineEvent]]] = {}
    for arrival, event in enumerate(events):
        by_key.setdefault((event.kind, event.worker), []).append((arrival, event))
    kept = []
    for items in by_key.values():
        head, rest = items[: sampling.FIRST_KEPT], items[sampling.FIRST_KEPT :]
        rest.sort(key=lambda item: (place[id(item[1])], item[0]))
        kept += [e for _, e in head] + [e for _, e in rest[-sampling.LATEST_KEPT :]]
    return kept


def test_the_sampler_keeps_the_latest_in_time_however_the_log_is_ordered() -> None:
    """In order (the common case, a bounded deque), going back in time once or often (a
    heap from then on), equal timestamps, undated events: the same events as by definition."""
    import random

    rng = random.Random(20261202)
    for shape in ("ordered", "one_step_back", "shuffled", "ties", "undated"):
        events = []
        for i in range(400):
            second = {"ties": i // 7, "one_step_back": i - 200 if i >= 300 else i}.get(shape, i)
            at = None if shape == "undated" and i % 3 == 0 else T0 + timedelta(seconds=second)
            worker = f"w{i % 3}"
            events.append(
                TimelineEvent(
                    kind="claimed", member="m.log", line=i + 1, text="", at=at, worker=worker
                )
            )
        if shape == "shuffled":
            rng.shuffle(events)
        kept = sampling.sample(events).timeline.events
        expected = Timeline(_reference_sample(events)).events
        assert [(e.line, e.at) for e in kept] == [(e.line, e.at) for e in expected], shape
        assert len(kept) == 3 * (sampling.FIRST_KEPT + sampling.LATEST_KEPT)


def test_the_timeline_sorts_by_time_then_member_then_line() -> None:
    events = [
        TimelineEvent(kind="k", member=member, line=line, text="", at=at)
        for member in ("b.log", "a.log")
        for line in (3, 1, 2)
        for at in (T0 + timedelta(seconds=line % 2), T0)
    ]
    assert Timeline(list(events)).events == sorted(
        events, key=lambda e: (e.at.timestamp() if e.at else 0.0, e.member, e.line)
    )


def test_an_undated_event_keeps_its_place_in_its_log() -> None:
    """Between its dated neighbours (after the one before it, else before the one after it);
    a log with nothing dated comes last, in line order. Sorted last, a stall stamped at a zero
    time came after its recovery."""

    def event(member: str, line: int, seconds: int | None) -> TimelineEvent:
        at = None if seconds is None else T0 + timedelta(seconds=seconds)
        return TimelineEvent(kind="k", member=member, line=line, text="", at=at)

    a = [event("a.log", 1, None), event("a.log", 2, 10), event("a.log", 3, None)]
    a += [event("a.log", 4, None), event("a.log", 5, 30)]
    b = [event("b.log", 1, 5), event("b.log", 2, 20), event("b.log", 3, 40)]
    c = [event("c.log", 2, None), event("c.log", 1, None)]
    timeline = Timeline([*c, *reversed(b), *reversed(a)])
    assert [(e.member, e.line) for e in timeline.events] == [
        ("b.log", 1),
        ("a.log", 1),
        ("a.log", 2),
        ("a.log", 3),
        ("a.log", 4),
        ("b.log", 2),
        ("a.log", 5),
        ("b.log", 3),
        ("c.log", 1),
        ("c.log", 2),
    ]
    assert timeline.of_kind("k") == timeline.events
    assert timeline.bounds(a[2]) == (T0 + timedelta(seconds=10), T0 + timedelta(seconds=30))
    assert timeline.bounds(a[0]) == (None, T0 + timedelta(seconds=10))
    assert timeline.bounds(c[0]) == (None, None)
    assert timeline.bounds(b[0]) == (b[0].at, b[0].at)


def test_undated_lines_do_not_crowd_out_the_latest_dated_ones() -> None:
    """Counted as the latest of all, 60 lines stamped at a zero time early in a log were kept
    and the log's real last events of that kind were dropped. They are kept where the
    timeline puts them: after the dated line before them."""
    events = [TimelineEvent(kind="evicted", member="s.log", line=1, text="", at=T0, worker="w1")]
    events += [
        TimelineEvent(kind="evicted", member="s.log", line=line, text="", at=None, worker="w1")
        for line in range(2, 62)
    ]
    events += [
        TimelineEvent(
            kind="evicted",
            member="s.log",
            line=line,
            text="",
            at=T0 + timedelta(minutes=line),
            worker="w1",
        )
        for line in range(62, 122)
    ]
    kept = sampling.sample(events).timeline.of_kind("evicted", worker="w1")
    assert kept[-1].line == 121
    assert [e.line for e in kept[-sampling.LATEST_KEPT :]] == list(range(72, 122))


def test_the_sampler_keeps_what_the_timeline_places_last_across_logs() -> None:
    """Undated lines before a log's first dated line (they sort at it), in the middle of a log
    (at the line before them), in a log with none dated (last), logs one after another and
    each in line order, as parsers give them: the same events as by definition."""
    import random

    rng = random.Random(20261206)
    events = []
    for member, size in (("a.log", 300), ("b.log", 200), ("c.log", 120), ("d.log", 150)):
        for line in range(1, size + 1):
            undated = {
                "a.log": line <= 120 or line % 7 == 0,
                "b.log": 60 <= line < 140,
                "c.log": True,
            }.get(member, rng.random() < 0.5)
            at = None if undated else T0 + timedelta(seconds=rng.randrange(0, 500))
            kind = ("stale", "evicted")[line % 2]
            worker = f"w{line % 2 + (member == 'd.log')}"
            events.append(
                TimelineEvent(kind=kind, member=member, line=line, text="", at=at, worker=worker)
            )
    kept = sampling.sample(events).timeline.events
    expected = Timeline(_reference_sample(events)).events
    assert [(e.member, e.line) for e in kept] == [(e.member, e.line) for e in expected]


def test_the_latest_lines_are_chosen_on_the_server_s_clock_where_a_worker_s_offset_is_proven():
    """One key holds the server's lines about w2 and w2's own (``unhealthy``). w2's clock is
    2 h ahead, proven both ways: its 80 lines, stamped 2 h late, happened before the server's
    80. By their stamps w2's lines were "the latest" and the server's last 50 were dropped;
    on the server's clock, where the timeline places them, the server's are the latest."""
    ahead = ClockOffset(at_least_s=7198, at_most_s=7202)
    worker_log, server_log = "hosts/h02/logs/0.log", "hosts/h01/logs/0.log"

    def lines(member: str, first: timedelta, shift: timedelta) -> list[TimelineEvent]:
        return [
            TimelineEvent(
                kind="unhealthy",
                member=member,
                line=i + 1,
                text="",
                at=T0 + first + timedelta(seconds=i) + shift,
                worker="w2",
            )
            for i in range(80)
        ]

    server = lines(server_log, timedelta(minutes=10), timedelta(0))
    worker = lines(worker_log, timedelta(0), timedelta(hours=2))
    clocks = {worker_log: ahead}
    for events in (server + worker, worker + server):  # logs come one after another
        kept = sampling.sample(events, clocks).timeline
        latest = kept.of_kind("unhealthy", worker="w2")[-sampling.LATEST_KEPT :]
        assert {e.member for e in latest} == {server_log}
        assert latest[-1].line == 80
        expected = Timeline(_reference_sample(events, clocks), clocks=clocks).events
        assert [(e.member, e.line) for e in kept.events] == [(e.member, e.line) for e in expected]
