"""The fleet overview: every worker on one line, grouped at hundreds, one JSON entry per worker."""

from __future__ import annotations

import io
import json
from datetime import timedelta

import pytest

from bundler.analyze.engine import analyze
from bundler.analyze.render import render, render_json, render_markdown
from bundler.analyze.render._common import target_title
from bundler.analyze.render._fleet import SECTIONS_SHOWN, target_groups, worker_finding
from schemas import AnalysisReport, Verdict, WorkerOverview
from schemas.evidence import AdminState, ConnectionState, HealthState, WorkerAuthorization
from tests.analyze.test_render import _check_snapshot
from tests.support.big_fleet import big_fleet
from tests.support.evidence import T0, Fleet, lease, worker


def _text(report: AnalysisReport, width: int = 100) -> str:
    out = io.StringIO()
    render(report, "text", out, color=False, width=width)
    return out.getvalue()


def _three(fleet: Fleet) -> AnalysisReport:
    """w1 runs ingest, w2 idles, w3 went offline ten minutes before collection."""
    assert fleet.workers is not None
    assert fleet.authorization is not None
    fleet.authorization.workers.append(
        WorkerAuthorization(
            worker="w3", bootstrap_method="api_key", decision="allow", lease=lease()
        )
    )
    seen = T0 - timedelta(minutes=10)
    fleet.workers.workers.append(
        worker(
            "w3",
            connection=ConnectionState.OFFLINE,
            native_status="offline",
            labels={"zone": "c", "gpu": "1"},
            last_heartbeat_at=seen,
            heartbeat_age_s=600.0,
        )
    )
    return analyze(fleet.evidence())


def test_three_workers_one_line_each_failing_first(fleet: Fleet) -> None:
    report = _three(fleet)
    overview = report.fleet
    assert overview is not None
    assert [w.name for w in overview.workers] == ["w3", "w1", "w2"]
    w3 = overview.workers[0]
    assert (w3.status, w3.verdict, w3.finding) == (
        ConnectionState.OFFLINE,
        Verdict.DEGRADED,
        "WORKER_OFFLINE_IDLE",
    )
    assert w3.heartbeat_age_s == 600.0
    assert w3.evidence is not None
    assert w3.evidence.label() == "evidence/workers.json#/workers/2"
    assert overview.workers[1].jobs_placed == 1  # ingest runs on w1
    assert overview.by_status == {"online": 2, "offline": 1}
    text = _text(report)
    assert "Fleet overview — 3 workers: 2 online, 1 offline" in text
    assert text.index("Fleet overview") < text.index("Targets")
    assert "w3      offline  10m" in text
    _check_snapshot("overview-3.txt", text)
    md = render_markdown(report)
    assert "| w3 | offline | 10m | gpu=1,zone=c | 0/16 | 0 | degraded | WORKER_OFFLINE_IDLE |" in md
    _check_snapshot("overview-3.md", md)


def test_a_healthy_fleet_reads_every_layer_passes_per_worker(fleet: Fleet) -> None:
    report = analyze(fleet.evidence())
    assert report.fleet is not None
    assert {w.verdict for w in report.fleet.workers} == {Verdict.HEALTHY}
    assert "every layer passes" in _text(report)


@pytest.fixture(scope="module")
def five_hundred() -> AnalysisReport:
    return analyze(big_fleet(500).evidence())


def test_five_hundred_workers_group_identical_findings(five_hundred: AnalysisReport) -> None:
    overview = five_hundred.fleet
    assert overview is not None
    assert overview.workers_total == 500 == len(overview.workers)
    assert sum(g.count for g in overview.groups) == 500
    grouped = sorted(w for g in overview.groups for w in g.workers)
    assert grouped == sorted(w.name for w in overview.workers)
    offline = [g for g in overview.groups if g.status is ConnectionState.OFFLINE]
    assert sum(g.count for g in offline) == 312
    text = _text(five_hundred)
    # Identical findings once, with the count and when they went silent:
    assert "268 workers offline, last seen 2026-11-29 16:45:01 – 16:48:00Z" in text
    assert "100 workers online — no trouble found" in text
    assert "w0400" not in text  # no line per worker in the text report at this size
    assert "Same finding for 31 more targets" in text
    _check_snapshot("overview-500.txt", text)
    md = render_markdown(five_hundred)
    assert "- **268 workers offline, last seen" in md
    _check_snapshot("overview-500.md", md)


def test_json_keeps_one_entry_per_worker(five_hundred: AnalysisReport) -> None:
    data = json.loads(render_json(five_hundred))
    assert len(data["fleet"]["workers"]) == 500
    assert len({w["name"] for w in data["fleet"]["workers"]}) == 500
    assert data["fleet"]["groups"][0]["summary"].startswith("32 workers offline")
    assert AnalysisReport.model_validate(data) == five_hundred


def test_a_thousand_failing_workers_fit_in_150_lines_of_text() -> None:
    """The fleet scale target (issue 20): the text report stays a screenful or two."""
    report = analyze(big_fleet(1000, everything_failing=True).evidence())
    assert report.fleet is not None
    assert report.fleet.workers_total == 1000
    text = _text(report, width=110)
    assert len(text.splitlines()) <= 150
    assert "824 workers" not in text  # offline ones split by whether a ladder was walked
    assert sum(g.count for g in report.fleet.groups) == 1000
    assert "workers offline" in text
    assert "not walked" in text


def test_more_groups_than_shown_are_counted_not_dropped() -> None:
    fleet = big_fleet(40)
    assert fleet.workers is not None
    states = list(ConnectionState)
    for index, w in enumerate(fleet.workers.workers):
        w.connection = states[index % len(states)]
        w.health = HealthState.UNHEALTHY if index // len(states) % 2 else HealthState.HEALTHY
        w.admin = AdminState.PAUSED if index // (2 * len(states)) % 2 else AdminState.ACTIVE
    report = analyze(fleet.evidence())
    assert report.fleet is not None
    assert len(report.fleet.groups) > 12
    text = _text(report, width=110)
    rest = sum(g.count for g in report.fleet.groups[12:])
    assert f"… {len(report.fleet.groups) - 12} more groups, {rest} workers" in text


def test_a_big_report_prints_the_first_target_sections_and_counts_the_rest() -> None:
    fleet = big_fleet(40)
    assert fleet.workers is not None
    states = list(ConnectionState)
    for index, w in enumerate(fleet.workers.workers):
        w.connection = states[index % len(states)]
        w.health = HealthState.UNHEALTHY if index % 3 else HealthState.HEALTHY
    report = analyze(fleet.evidence())
    groups = target_groups(report)
    assert len(groups) > SECTIONS_SHOWN
    rest = groups[SECTIONS_SHOWN:]
    line = (
        f"… {len(rest)} more target sections ({sum(g.count for g in rest)} targets) "
        "not shown: every target is in --format json"
    )
    text = _text(report, width=110)
    assert line in " ".join(text.split())
    assert line in render_markdown(report)
    shown_titles = [g for g in groups if target_title(g.index, g.first) in text]
    assert len(shown_titles) == SECTIONS_SHOWN
    data = json.loads(render_json(report))
    assert len(data["targets"]) == len(report.targets)  # nothing dropped from the JSON


def test_an_inconclusive_worker_names_what_is_unknown_not_no_trouble(fleet: Fleet) -> None:
    """w1 runs ingest, but the bundle has no authorization record for it: its ladder is
    inconclusive, so its overview line leads with why, never with "no trouble found"."""
    assert fleet.authorization is not None
    fleet.authorization.workers = [a for a in fleet.authorization.workers if a.worker != "w1"]
    report = analyze(fleet.evidence())
    assert report.fleet is not None
    w1 = next(w for w in report.fleet.workers if w.name == "w1")
    assert (w1.verdict, w1.finding) == (Verdict.INCONCLUSIVE, "AUTHORIZATION_RECORD_MISSING")
    line = next(line for line in _text(report).splitlines() if line.startswith("w1 "))
    assert "AUTHORIZATION_RECORD_MISSING" in line
    assert "no trouble found" not in line


def test_an_inconclusive_row_without_a_code_never_reads_no_trouble_found() -> None:
    row = WorkerOverview(name="w9", status=ConnectionState.ONLINE, verdict=Verdict.INCONCLUSIVE)
    assert worker_finding(row) == "a layer could not be judged"


def _sample_overview(sample: str, columns: int) -> str:
    """The fleet overview lines ``bundler analyze`` prints for a committed sample."""
    from click.testing import CliRunner

    from bundler.cli import cli
    from samples import catalog

    result = CliRunner().invoke(
        cli,
        ["analyze", str(catalog.BUNDLES_DIR / f"{sample}.zip"), *catalog.open_args("password")],
        env={catalog.PASSWORD_ENV: catalog.SAMPLE_PASSWORD, "COLUMNS": str(columns)},
    )
    assert result.exit_code == 1, result.output
    return result.stdout.split("Fleet overview", 1)[1].split("Targets", 1)[0]


def test_a_finding_code_and_a_label_are_not_cut_mid_word_when_there_is_room() -> None:
    """At 100 columns the overview read ``FLUX_WORKER_UNHE`` / ``Y`` and ``tier=gold,zone=`` /
    ``a`` while the verdict column had room to wrap between its words."""
    overview = _sample_overview("flux-starved", 100)
    assert "FLUX_WORKER_UNHEALTHY" in overview
    assert "tier=gold," in overview.split()


def test_a_narrow_terminal_folds_the_overview_and_never_crops_it() -> None:
    """At 80 columns a minimum width on the finding column pushed the table past the screen,
    and the console cropped it: "no trouble f", the rest of the line lost."""
    overview = _sample_overview("flux-starved", 80)
    words = overview.split()
    assert "found" in words
    assert all(len(line.rstrip()) <= 80 for line in overview.splitlines())


def test_a_listing_without_in_flight_shows_the_capacity_rungs_count(fleet: Fleet) -> None:
    """Flux leaves ``in_flight`` out until a worker's first pong after a run: the overview
    read "—/16" beside a capacity rung saying "0 of 16". Counts that disagree stay unknown."""
    assert fleet.capacity is not None
    fleet.worker("w2").in_flight = None
    report = analyze(fleet.evidence())
    assert report.fleet is not None
    rows = {row.name: row for row in report.fleet.workers}
    assert rows["w2"].in_flight == 0
    assert "0/16" in _text(report)
    twice = fleet.capacity.workers[-1].model_copy(update={"slots_in_use": 3})
    fleet.capacity.workers.append(twice)
    report = analyze(fleet.evidence())
    assert report.fleet is not None
    assert {row.name: row for row in report.fleet.workers}["w2"].in_flight is None
