"""A local state file or control socket listed twice, its records disagreeing, is doubt.

Each case is a real bundle directory (``write_bundle_dir``) of the hand-made healthy
fleet with a local-state document for w1's host, read by ``bundler analyze`` once
with the second record listed after the first and once before it. Before, the
local-state rules failed (or warned) on any record that said so, whichever the other
record said: the verdict did not flip with the order, but it rested on the record
that suited the rule.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bundler.cli import cli
from schemas.evidence import ControlSocket, JobPhase, LocalStateEvidence, StateFileCheck
from tests.support.evidence import T0, Fleet, healthy_fleet, write_bundle_dir

CONFLICT = "EVIDENCE_RECORDS_CONFLICT"


def _with_state(files: list[StateFileCheck], sockets: list[ControlSocket]) -> Fleet:
    fleet = healthy_fleet()
    fleet.extra.append(
        LocalStateEvidence(observed_at=T0, product="test", files=files, sockets=sockets)
    )
    return fleet


def _analyzed(fleet: Fleet, root: Path) -> tuple[int, dict[str, Any]]:
    bundle = write_bundle_dir(fleet, root)
    result = CliRunner().invoke(cli, ["analyze", str(bundle), "--format", "json"])
    assert result.exit_code in (0, 1, 3), result.stderr
    return result.exit_code, json.loads(result.stdout)


def _rung(report: dict[str, Any], layer: str) -> dict[str, Any]:
    target = next(t for t in report["targets"] if t["worker"] == "w1")
    return next(r for r in target["layers"] if r["name"] == layer)


def _file(path: str, integrity: str) -> StateFileCheck:
    return StateFileCheck(
        host_alias="h02",
        worker="w1",
        path=path,
        kind="sqlite",
        integrity=integrity,  # type: ignore[arg-type]
        detail="database disk image is malformed" if integrity == "corrupt" else None,
    )


def _both(records: list[Any], first: bool) -> list[Any]:
    original, changed = records
    return [changed, original] if first else [original, changed]


@pytest.mark.parametrize(
    ("path", "layer"), [("jobs.db", "deployment"), ("auth.db", "authorization")]
)
@pytest.mark.parametrize("first", [False, True])
def test_a_state_file_checked_twice_with_different_results_is_unknown(
    tmp_path: Path, first: bool, path: str, layer: str
) -> None:
    """A corrupt job-state database fails deployment, a corrupt auth cache authorization; the
    same file also read ``ok`` leaves that rung unknown, whichever record comes first."""
    files = _both([_file(path, "ok"), _file(path, "corrupt")], first)
    code, report = _analyzed(_with_state(files, []), tmp_path)
    assert (code, report["verdict"], report["first_failed_layer"]) == (3, "inconclusive", None)
    rung = _rung(report, layer)
    assert rung["status"] == "unknown"
    [finding] = rung["findings"]
    assert finding["code"] == CONFLICT
    assert {c["pointer"] for c in finding["evidence"]} == {
        "/files/0/integrity",
        "/files/1/integrity",
    }
    assert "ok / corrupt" in finding["message"] or "corrupt / ok" in finding["message"]


@pytest.mark.parametrize("first", [False, True])
def test_a_control_socket_listed_twice_does_not_warn_by_its_stale_record(
    tmp_path: Path, first: bool
) -> None:
    live = ControlSocket(host_alias="h02", worker="w1", path="worker-w1.sock", responsive=True)
    stale = live.model_copy(update={"responsive": False, "detail": "stale: connection refused"})
    code, report = _analyzed(_with_state([], _both([live, stale], first)), tmp_path)
    assert (code, report["verdict"]) == (3, "inconclusive")
    rung = _rung(report, "heartbeat")
    assert (rung["status"], [f["code"] for f in rung["findings"]]) == ("unknown", [CONFLICT])


@pytest.mark.parametrize("first", [False, True])
def test_two_corrupt_readings_of_one_file_fail_it_either_way(tmp_path: Path, first: bool) -> None:
    """Both records say corrupt, in other words: the rung fails whichever is true."""
    other = _file("jobs.db", "corrupt").model_copy(update={"detail": "page 4 is never used"})
    files = _both([_file("jobs.db", "corrupt"), other], first)
    code, report = _analyzed(_with_state(files, []), tmp_path)
    assert (code, report["verdict"], report["first_failed_layer"]) == (1, "blocked", "deployment")
    rung = _rung(report, "deployment")
    corrupt = [f for f in rung["findings"] if f["code"] == "LOCAL_STATE_CORRUPT"]
    assert sorted(f["message"].split("(")[-1] for f in corrupt) == [
        "database disk image is malformed).",
        "page 4 is never used).",
    ]
    assert CONFLICT in {f["code"] for f in rung["findings"]}


def test_a_file_of_another_worker_listed_twice_leaves_w1_alone(tmp_path: Path) -> None:
    """Only the entries a target's ladder reads are its doubt."""
    w2 = [
        f.model_copy(update={"worker": "w2", "host_alias": "h03"})
        for f in (_file("jobs.db", "ok"), _file("jobs.db", "unreadable"))
    ]
    _, report = _analyzed(_with_state(w2, []), tmp_path)
    assert _rung(report, "deployment")["status"] == "pass"
    w2_rung = next(
        r
        for t in report["targets"]
        if t["worker"] == "w2"
        for r in t["layers"]
        if r["name"] == "deployment"
    )
    assert w2_rung["status"] == "unknown"


def _target_rung(report: dict[str, Any], layer: str) -> dict[str, Any]:
    [target] = [t for t in report["targets"] if t["job"] == "ingest"]
    return next(r for r in target["layers"] if r["name"] == layer)


@pytest.mark.parametrize("first", [False, True])
def test_a_requirement_listed_twice_in_one_report_is_unknown(tmp_path: Path, first: bool) -> None:
    """One report lists cred:dsn satisfied and again missing. The rule judged every entry and
    let the missing one fail the rung, whichever came first; the other says it passes."""
    from schemas.evidence import Requirement

    fleet = healthy_fleet()
    assert fleet.requirements is not None
    [report] = fleet.requirements.reports
    satisfied = Requirement(id="cred:dsn", kind="credential", status="satisfied")
    missing = satisfied.model_copy(update={"status": "missing", "code": "CREDENTIAL_NOT_BOUND"})
    report.requirements = _both([satisfied, missing], first)
    code, analyzed = _analyzed(fleet, tmp_path)
    assert (code, analyzed["verdict"], analyzed["first_failed_layer"]) == (3, "inconclusive", None)
    rung = _target_rung(analyzed, "requirements")
    assert (rung["status"], [f["code"] for f in rung["findings"]]) == ("unknown", [CONFLICT])
    [finding] = rung["findings"]
    assert finding["message"].startswith(
        "Requirement cred:dsn of ingest on w1 is listed 2 times in evidence/requirements.json"
    )
    assert {c["pointer"] for c in finding["evidence"]} == {
        "/reports/0/requirements/0/status",
        "/reports/0/requirements/1/status",
    }


@pytest.mark.parametrize("first", [False, True])
def test_a_job_listed_twice_running_and_failed_is_unknown(tmp_path: Path, first: bool) -> None:
    """jobs.json lists run ingest-1 once running and once failed. The failed record was the
    target and failed the outcome (JOB_RUN_FAILED), whichever came first; the running one
    passes it. Which record is true is unknown."""
    fleet = healthy_fleet()
    assert fleet.jobs is not None
    running = fleet.jobs.jobs[0]
    failed = running.model_copy(
        update={"phase": JobPhase.FAILED, "native_state": "FAILED", "error": "boom"}
    )
    fleet.jobs.jobs = _both([running, failed], first)
    code, analyzed = _analyzed(fleet, tmp_path)
    assert (code, analyzed["verdict"], analyzed["first_failed_layer"]) == (3, "inconclusive", None)
    [target] = [t for t in analyzed["targets"] if t["job"] == "ingest"]
    assert "listed 2 times, its records disagree" in target["reason"]
    rung = _target_rung(analyzed, "outcome")
    assert (rung["status"], [f["code"] for f in rung["findings"]]) == ("unknown", [CONFLICT])
    [finding] = rung["findings"]
    assert "is listed 2 times in evidence/jobs.json" in finding["message"]
    # the disputed entry is the job itself: no "the job's outcome on it"
    assert "so the job's outcome is unknown." in finding["message"]
    assert " on it " not in finding["message"]
    assert {c["pointer"] for c in finding["evidence"]} == {
        "/jobs/0/native_state",
        "/jobs/1/native_state",
    }
    assert (
        "phase: running / failed" in finding["message"]
        or "failed / running" in (finding["message"])
    )


def test_a_job_listed_twice_alike_is_one_run(tmp_path: Path) -> None:
    fleet = healthy_fleet()
    assert fleet.jobs is not None
    fleet.jobs.jobs = [fleet.jobs.jobs[0], fleet.jobs.jobs[0].model_copy()]
    code, analyzed = _analyzed(fleet, tmp_path)
    assert (code, analyzed["verdict"]) == (0, "healthy")
    [target] = [t for t in analyzed["targets"] if t["job"] == "ingest"]
    assert target["reason"].startswith("latest run")
