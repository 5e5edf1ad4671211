"""The HTML report without a browser: structure snapshot, escaping, CSP, timeline geometry, CLI.

What a browser does with the page is tested in ``test_html_browser.py``.
"""

from __future__ import annotations

import base64
import hashlib
import html as html_lib
import json
import os
import re
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from bundler.analyze.api import TimelineEvent
from bundler.analyze.engine import Analysis, run_analysis
from bundler.analyze.render.html import (
    MAX_PROBLEM_GROUPS,
    MAX_REDACTION_KINDS,
    BundleExtras,
    _code_spans,
    collector_problems,
    render_html,
)
from bundler.analyze.render.timeline import MAX_LANES, _duration, build
from bundler.cli import cli
from schemas import CollectorKind, CollectorOutcome, CollectorStatus, Integrity
from schemas.evidence import ConnectionState, JobPhase, JobRequirements, LogIndex, LogSource
from tests.analyze.test_render import _check_snapshot
from tests.support.big_fleet import big_fleet
from tests.support.evidence import T0, Fleet, StubProfile, job, write_bundle_dir
from tests.support.hostile import EVIL_WORKER, PAYLOADS, PWNED, write_hostile_bundle
from tests.support.html_outline import outline
from tests.support.sample_bundles import write_sample_dir

SERVER_LOG = "hosts/h01/logs/00.log"


def _event(kind: str, seconds: int, worker: str | None, line: int) -> TimelineEvent:
    at = T0 + timedelta(seconds=seconds)
    return TimelineEvent(
        kind=kind,
        member=SERVER_LOG,
        line=line,
        text=f"{at:%Y-%m-%d %H:%M:%S} - flux.server - {kind} {worker or ''}",
        at=at,
        worker=worker,
    )


EVENTS = [
    _event("server_started", -600, None, 1),
    _event("registered", -590, "w1", 2),
    _event("registered", -585, "w2", 3),
    _event("claimed", -300, "w1", 4),
    _event("stale", -120, "w2", 5),
    _event("evicted", -110, "w2", 6),
    _event("unclaimed", -110, "w2", 7),
    _event("server_stopping", -60, None, 8),
    _event("server_started", -30, None, 9),
]


def _blocked(fleet: Fleet) -> Analysis:
    """The text report's 'blocked' fixture, with a timeline and collectors."""
    assert fleet.jobs is not None
    fleet.jobs.jobs.append(
        job(
            "sleeper",
            id="e9",
            phase=JobPhase.UNASSIGNED,
            native_state="CREATED",
            assigned_worker=None,
            requirements=JobRequirements(labels={"zone": "mars"}),
        )
    )
    fleet.worker("w2").connection = ConnectionState.OFFLINE
    done = run_analysis(fleet.evidence(), profile=StubProfile(events=EVENTS))  # type: ignore[arg-type]
    done.report.bundle.integrity = Integrity(status="verified")
    done.report.bundle.created_at = T0
    return done


COLLECTORS = [
    CollectorOutcome(
        id="http.workers",
        kind=CollectorKind.HTTP,
        target="/workers",
        status=CollectorStatus.OK,
        duration_s=0.2,
        bytes=2048,
    ),
    CollectorOutcome(
        id="ssh.h02.log",
        kind=CollectorKind.SSH,
        target="h02",
        status=CollectorStatus.TIMEOUT,
        duration_s=10.0,
        error_class="CollectorTimeout",
        error_message="timed out after 10s",
    ),
]


def test_structure_snapshot(fleet: Fleet) -> None:
    done = _blocked(fleet)
    html = render_html(done.report, done.timeline, BundleExtras(collectors=COLLECTORS))
    tree = outline(html)
    assert "h1 “BLOCKED — first failed layer: placement”" in tree
    assert "svg.timeline" in tree
    assert "li.s-fail.first" in tree
    _check_snapshot("blocked.html.outline", tree)


def test_the_page_leads_with_verdict_layer_and_main_finding(fleet: Fleet) -> None:
    done = _blocked(fleet)
    html = render_html(done.report, done.timeline)
    top = html[html.index("<body>") : html.index('id="fleet"')]
    assert "BLOCKED</span> — first failed layer: placement" in top
    assert "Main finding: <code>NO_MATCHING_WORKER</code>" in top


def test_csp_allows_only_the_inline_stylesheet_by_hash(fleet: Fleet) -> None:
    done = _blocked(fleet)
    html = render_html(done.report, done.timeline)
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    assert csp is not None
    policy = html_lib.unescape(csp[1])
    assert "default-src 'none'" in policy
    assert "script-src 'none'" in policy
    style = re.search(r"<style>(.*?)</style>", html, re.S)
    assert style is not None
    digest = base64.b64encode(hashlib.sha256(style[1].encode()).digest()).decode()
    assert f"style-src 'sha256-{digest}'" in policy
    assert html.count("<style>") == 1
    assert "<script" not in html
    assert " style=" not in html  # inline style attributes would be blocked by the policy
    assert not re.search(r'(?:src|href)="(?!#)', html)  # nothing loaded, links are anchors only


def test_every_bundle_string_is_text(tmp_path: Path) -> None:
    bundle = write_hostile_bundle(tmp_path / "b")
    out = tmp_path / "r.html"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "bundler",
            "analyze",
            str(bundle),
            "--format",
            "html",
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 1, run.stderr
    html = out.read_text()
    assert "<script" not in html
    assert "<img" not in html
    assert 'href="javascript' not in html
    assert "&lt;script&gt;document.title=&#39;" + PWNED in html
    assert "&#34;&gt;&lt;img src=x onerror=&#34;document.title=" in html
    body = html[html.index("<body>") :]
    assert body.count(PWNED) >= len(PAYLOADS)  # shown, as text, where they occur
    assert "Connection lost" in html  # the worker log line reached the timeline's titles
    assert EVIL_WORKER not in html  # never raw


def test_timeline_draws_states_marks_bands_and_collection(fleet: Fleet) -> None:
    done = _blocked(fleet)
    view = build(done.report, done.timeline)
    assert view is not None
    labels = [lane.label for lane in view.lanes]
    assert labels[0] == "server, no worker named"
    assert labels.index("w2") < labels.index("w1")  # failing worker first
    w2 = view.lanes[labels.index("w2")]
    assert [b.state for b in w2.bars] == ["up", "stale", "down"]
    assert {m.category for m in w2.marks} >= {"registration", "stale", "evicted", "unclaim"}
    assert all(f"{SERVER_LOG}:" in m.title for m in w2.marks if m.category != "heartbeat")
    assert len(view.bands) == 1
    assert "server down" in view.bands[0].title
    assert view.bands[0].x1 < view.bands[0].x2
    assert view.collected_x is not None
    assert view.collected_x == max(x for x, _ in view.ticks)  # collection is the last moment


def test_timeline_at_five_hundred_workers_folds_lanes_failing_first() -> None:
    fleet = big_fleet(500)
    events = [_event("evicted", -60, f"w{n:04d}", n) for n in range(1, 320)]
    events += [_event("registered", -900, f"w{n:04d}", 1000 + n) for n in range(1, 501)]
    done = run_analysis(fleet.evidence(), profile=StubProfile(events=events))  # type: ignore[arg-type]
    view = build(done.report, done.timeline)
    assert view is not None
    groups = done.report.fleet.groups if done.report.fleet else []
    assert len(view.lanes) <= MAX_LANES + len(groups)
    assert view.folded == 500 - MAX_LANES
    assert view.lanes[0].css == "blocked"
    folded = [lane for lane in view.lanes if lane.note]
    assert folded
    assert all(len(lane.marks) <= 2 * 120 for lane in folded)
    html = render_html(done.report, done.timeline)
    assert len(html.encode()) < 1_000_000


def test_no_dated_evidence_means_no_timeline_said_in_words() -> None:
    from bundler.analyze.api import EvidenceSet
    from bundler.analyze.engine import analyze
    from bundler.source import MemorySource

    report = analyze(EvidenceSet(MemorySource()))
    assert build(report, None) is None
    html = render_html(report)
    assert "no timeline to draw" in html
    assert "The bundle lists no worker." in html


def test_cli_writes_the_page_and_exits_by_verdict(tmp_path: Path) -> None:
    bundle = write_hostile_bundle(tmp_path / "b")
    out = tmp_path / "report.html"
    out.write_text("old report")
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "bundler",
            "analyze",
            str(bundle),
            "--format",
            "html",
            "--output",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 1
    assert run.stdout == ""
    assert out.read_text().startswith("<!DOCTYPE html>")
    assert not list(tmp_path.glob(".*tmp-bundler"))


def test_output_refuses_to_overwrite_the_bundle_itself(tmp_path: Path) -> None:
    zipped = tmp_path / "b.zip"
    zipped.write_bytes(b"PK")
    same = subprocess.run(
        [sys.executable, "-m", "bundler", "analyze", str(zipped), "-o", str(zipped)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert same.returncode == 2
    assert "is the bundle itself" in same.stderr
    assert zipped.read_bytes() == b"PK"


def test_diff_renders_as_a_page_with_the_same_policy(tmp_path: Path) -> None:
    from samples.catalog import BUNDLES_DIR, PASSWORD_ENV, SAMPLE_PASSWORD

    out = tmp_path / "diff.html"
    run = subprocess.run(
        [
            sys.executable, "-m", "bundler", "diff",
            str(BUNDLES_DIR / "flux-healthy.zip"), str(BUNDLES_DIR / "flux-hung.zip"),
            "--format", "html", "--output", str(out), "--password-env", PASSWORD_ENV,
        ],
        capture_output=True, text=True, check=False,
        env={**os.environ, PASSWORD_ENV: SAMPLE_PASSWORD},
    )  # fmt: skip
    assert run.returncode == 1, run.stderr
    html = out.read_text()
    tree = outline(html)
    assert "h1 “REGRESSED — something that passed in BEFORE fails in AFTER”" in tree
    assert "h2#acceptance “Recovery acceptance (on AFTER)”" in tree
    assert "<code>FLUX_WORKER_EVICTED</code>" in html
    assert "heartbeat: pass -&gt; fail (REGRESSION)" in html
    assert "script-src &#39;none&#39;" in html
    assert "<script" not in html


def test_a_connection_after_an_eviction_is_a_reconnect_and_same_second_marks_stay_apart(
    fleet: Fleet,
) -> None:
    events = [
        _event("registered", -300, "w2", 1),
        _event("stale", -60, "w2", 2),
        _event("evicted", -50, "w2", 3),
        _event("connected", -50, "w2", 4),  # the same second: Flux stamps to the second
    ]
    done = run_analysis(fleet.evidence(), profile=StubProfile(events=events))  # type: ignore[arg-type]
    view = build(done.report, done.timeline)
    assert view is not None
    lane = next(lane for lane in view.lanes if lane.label == "w2")
    marks = [m for m in lane.marks if m.category != "heartbeat"]
    assert [m.category for m in marks] == ["registration", "stale", "evicted", "reconnect"]
    assert marks[3].x - marks[2].x >= 7  # side by side, not on top of each other
    assert "evicted — hosts/h01/logs/00.log:3" in marks[2].title


def _outcome(index: int, status: CollectorStatus, **fields: object) -> CollectorOutcome:
    return CollectorOutcome(
        id=f"ssh.h{index:04d}.worker_status",
        kind=CollectorKind.SSH,
        target=f"h{index:04d}",
        status=status,
        duration_s=0.1 * (index % 7),
        bytes=0,
        **fields,  # type: ignore[arg-type]
    )


def test_collectors_that_ended_the_same_way_share_one_row(fleet: Fleet) -> None:
    lacks = "command needs variable flux_bin_dir this host lacks"
    collectors = [_outcome(n, CollectorStatus.SKIPPED, note=lacks) for n in range(3000)]
    collectors += [
        _outcome(n, CollectorStatus.FAILED, error_class="SSHError", error_message="refused")
        for n in range(3000, 3005)
    ]
    collectors += [_outcome(9999, CollectorStatus.TIMEOUT, error_class="CollectorTimeout")]
    problems = collector_problems(collectors)
    assert [(p.status, len(p.ids)) for p in problems] == [
        ("failed", 5),
        ("timeout", 1),
        ("skipped", 3000),
    ]
    assert problems[0].error == "SSHError: refused"
    assert problems[2].error == f"({lacks})"
    assert problems[2].longest_s == pytest.approx(0.6)
    done = _blocked(fleet)
    html = render_html(done.report, done.timeline, BundleExtras(collectors=collectors))
    assert len(html.encode()) < 200_000  # one row per problem, not per collector
    assert "ssh.h0000.worker_status, ssh.h0001.worker_status, ssh.h0002.worker_status" in html
    assert "and 2997 more" in html
    assert html.count("ssh.h2999.worker_status") == 0


def test_past_a_hundred_problems_the_rest_are_counted(fleet: Fleet) -> None:
    collectors = [
        _outcome(n, CollectorStatus.FAILED, error_class="SSHError", error_message=f"host {n}")
        for n in range(MAX_PROBLEM_GROUPS + 20)
    ]
    done = _blocked(fleet)
    html = render_html(done.report, done.timeline, BundleExtras(collectors=collectors))
    assert f"host {MAX_PROBLEM_GROUPS - 1}<" in html
    assert f"host {MAX_PROBLEM_GROUPS}<" not in html
    assert "… and 20 more collectors that did not end ok" in html


def test_a_long_quiet_stretch_is_drawn_as_a_narrow_break(fleet: Fleet) -> None:
    """Logs that stopped three days before the bundle was made: the marks keep the plot."""
    done = _blocked(fleet)
    done.report.bundle.created_at = T0 + timedelta(days=3, hours=6)
    view = build(done.report, done.timeline)
    assert view is not None
    assert view.gap is not None
    assert view.gap.label == "3 d 6 h"  # from the last heartbeat (T0) to the collection
    assert "drawn narrow, not to scale" in view.gap.title
    marks = [m.x for lane in view.lanes for m in lane.marks if m.category != "heartbeat"]
    assert max(marks) - min(marks) > view.plot_w / 2  # the hour of events fills the plot
    assert view.collected_x == view.plot_x + view.plot_w  # the collection right after the break
    assert all(x <= view.gap.x1 for x, _ in view.ticks)  # ticks on the side with a span
    assert view.collected_label.startswith("bundle created 12-02 23:")
    html = render_html(done.report, done.timeline)
    assert "3 d 6 h with nothing dated, drawn narrow" in html
    assert 'class="gap"' in html


def test_events_close_together_are_drawn_to_scale(fleet: Fleet) -> None:
    done = _blocked(fleet)
    view = build(done.report, done.timeline)
    assert view is not None
    assert view.gap is None


def test_a_gap_between_two_bursts_keeps_ticks_on_both_sides(fleet: Fleet) -> None:
    done = _blocked(fleet)
    later = [_event("registered", 2 * 86400 + s, "w1", 100 + s) for s in (0, 600, 1200)]
    done.timeline.events.extend(later)
    done.report.bundle.created_at = T0 + timedelta(days=2, seconds=1800)
    view = build(done.report, done.timeline)
    assert view is not None
    assert view.gap is not None
    assert view.gap.label == "2 d"  # from the last heartbeat (T0 - 4 s) to the burst
    assert any(x <= view.gap.x1 for x, _ in view.ticks)
    assert any(x >= view.gap.x2 for x, _ in view.ticks)
    html = render_html(done.report, done.timeline)
    assert f'x="{view.gap.x1}" y="13" text-anchor="end"' in html  # the labels beside the break
    assert f'x="{view.gap.x2}" y="13" text-anchor="start"' in html  # point away from it


@pytest.mark.parametrize(
    ("minutes", "text"),
    [(42, "42 min"), (120, "2 h"), (312, "5 h 12 min"), (2880, "2 d"), (4 * 1440 + 61, "4 d 1 h")],
)
def test_a_gap_says_how_long_it_is(minutes: int, text: str) -> None:
    assert _duration(timedelta(minutes=minutes)) == text


def test_marks_crowding_before_a_break_are_not_nudged_into_it(fleet: Fleet) -> None:
    done = _blocked(fleet)
    burst = [_event("claimed", -5, "w1", 200 + n) for n in range(12)]  # one second, 12 marks
    done.timeline.events.extend(burst)
    done.report.bundle.created_at = T0 + timedelta(days=3)
    view = build(done.report, done.timeline)
    assert view is not None
    assert view.gap is not None
    w1 = view.lanes[[lane.label for lane in view.lanes].index("w1")]
    assert all(m.x <= view.gap.x1 for m in w1.marks if m.category != "heartbeat")


def _page(bundle: Path, tmp_path: Path) -> str:
    """``bundler analyze BUNDLE --format html -o FILE`` through the real CLI; the page."""
    out = tmp_path / "report.html"
    result = CliRunner().invoke(cli, ["analyze", str(bundle), "--format", "html", "-o", str(out)])
    assert result.exit_code in (0, 1, 3), result.output
    return out.read_text("utf-8")


def test_workers_named_only_in_logs_stay_within_the_lane_cap(tmp_path: Path, fleet: Fleet) -> None:
    """A server log naming 2,000 workers the API never listed drew 2,000 lanes."""
    names = 2000
    log = "".join(
        f"{T0 - timedelta(seconds=n % 600):%Y-%m-%d %H:%M:%S} - flux.api.worker_routes - INFO - "
        f"Worker registered successfully: ghost{n:05d}\n"
        for n in range(names)
    )
    fleet.extra.append(
        LogIndex(
            observed_at=T0,
            product="flux",
            logs=[LogSource(member=SERVER_LOG, host_alias="h01", role="server")],
        )
    )
    members = {SERVER_LOG: log.encode()}
    page = _page(write_bundle_dir(fleet, tmp_path / "b", members=members, profile="flux"), tmp_path)
    lanes = page.count('<g class="lane ')
    assert lanes <= MAX_LANES + 2  # the overview's two workers, the log-only ones, one shared
    shared = names - (MAX_LANES - 2)
    assert f"{shared} more workers named only in logs share one lane" in page
    assert f"{shared} more named only in logs" in page  # the shared lane's label
    assert len(page.encode()) < 300_000


@pytest.mark.parametrize(
    ("beat", "created"),
    [
        ("9999-12-31T23:59:58Z", "9999-12-31T23:59:59Z"),
        # A second past Go's zero time (which reads "never", undated: not drawn at all).
        ("0001-01-01T00:00:01Z", "0001-01-01T00:00:02Z"),
    ],
)
def test_a_timeline_at_the_ends_of_time_is_drawn_not_overflowed(
    tmp_path: Path, fleet: Fleet, beat: str, created: str
) -> None:
    """Everything dated within 10 s of datetime.max/min: the 5 s pad is clamped."""
    at = datetime.fromisoformat(beat)
    for worker in fleet.workers.workers if fleet.workers else []:
        worker.last_heartbeat_at = at
    bundle = write_bundle_dir(fleet, tmp_path / "b")
    manifest = bundle / "manifest.json"  # not a checksummed member: edited in place
    manifest.write_text(json.dumps({**json.loads(manifest.read_text()), "created_at": created}))
    page = _page(bundle, tmp_path)
    assert '<svg class="timeline"' in page


def test_a_redaction_report_with_many_kinds_is_a_bounded_table(
    tmp_path: Path, fleet: Fleet
) -> None:
    """300,000 made-up kinds made a 22 MB page; the largest are listed, the rest counted."""
    kinds = {f"kind{n:05d}": 1 + n % 7 for n in range(5000)}
    report = {
        "ruleset_id": "r",
        "ruleset_sha256": "0" * 64,
        "by_kind": kinds,
        "pseudonyms": kinds,
        "total": sum(kinds.values()),
    }
    members = {"redaction-report.json": json.dumps(report).encode()}
    page = _page(write_bundle_dir(fleet, tmp_path / "b", members=members), tmp_path)
    table = page.split('<table class="redaction">')[1].split("</table>")[0]
    assert table.count("<tr>") == MAX_REDACTION_KINDS + 1  # and the heading
    assert f"… and {5000 - MAX_REDACTION_KINDS} more kinds with fewer redactions" in page
    assert f"and {5000 - MAX_REDACTION_KINDS} more kinds (see" in page
    assert "kind00006" in table  # the largest counts (7) come first
    assert len(page.encode()) < 300_000


def test_commands_in_next_steps_are_code_not_backquotes(tmp_path: Path) -> None:
    """The recovery paths quote the commands to run in backquotes; the page sets them as
    code (the text and Markdown reports keep the backquotes, which read as code there)."""
    page = tmp_path / "r.html"
    run = CliRunner().invoke(
        cli,
        ["analyze", str(_sample_dir(tmp_path)), "--format", "html", "-o", str(page)],
    )
    assert run.exit_code == 1, run.output
    html = page.read_text()
    steps = html[html.index("<h4>Next steps</h4>") : html.index("<h4>Recovery acceptance</h4>")]
    assert "<code>lyftdata workers logs &lt;worker-id&gt; --limit 200</code>" in steps
    assert "`" not in steps


def test_a_backquote_in_bundle_text_never_opens_markup() -> None:
    shown = _code_spans("restart `<script>alert(1)</script>` on w`1\u202e`")
    assert shown == (
        "restart <code>&lt;script&gt;alert(1)&lt;/script&gt;</code> on w<code>1\\u202e</code>"
    )


def _sample_dir(tmp_path: Path) -> Path:
    return write_sample_dir("lyftdata-fleet_mixed", tmp_path / "bundle", {})
