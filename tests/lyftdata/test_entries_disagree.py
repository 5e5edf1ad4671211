"""An entry LyftData lists twice, its records disagreeing, decides no rung by order.

From the committed ``lyftdata-healthy`` sample (edge-01 runs ingest-events end to
end), one raw answer is made to hold an entry twice: a placement verdict, a
placement report (the job asked for twice), a runtime-requirements report, a
deployment, a job deployment. The bundle is written as the collector would have
written it and read by ``bundler analyze``, which re-derives the evidence with the
LyftData profile, once with the changed record first and once with it last. Before,
the placement rung took the first matching record (healthy one way, blocked the
other), and the requirements and deployment rungs let the failing record win
whichever came first, though the other record says the rung passes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bundler.cli import cli
from tests.support.sample_bundles import load_sample, write_sample_dir

SAMPLE = "lyftdata-healthy"
PLACEMENT = "raw/http/job-placement/000.json"
REQUIREMENTS = "raw/http/job-requirements/000.json"
DEPLOYMENTS = "raw/http/deployments.json"
CONFLICT = "EVIDENCE_RECORDS_CONFLICT"


def _raw(member: str, sample: str = SAMPLE) -> Any:
    source, _ = load_sample(sample)
    return json.loads(source.read_bytes(member))


def _analyzed(
    root: Path,
    changed: dict[str, Any],
    fanned: dict[str, tuple[str, Any]] | None = None,
    *args: str,
    sample: str = SAMPLE,
) -> tuple[int, dict[str, Any]]:
    bundle = write_sample_dir(
        sample,
        root,
        {member: json.dumps(body).encode() for member, body in changed.items()},
        {path: (like, json.dumps(body).encode()) for path, (like, body) in (fanned or {}).items()},
    )
    result = CliRunner().invoke(cli, ["analyze", str(bundle), "--format", "json", *args])
    assert result.exit_code in (0, 1, 3), result.stderr
    report = json.loads(result.stdout)
    assert report["bundle"]["integrity"]["status"] == "verified"
    assert report["fleet_findings"][0]["code"] == "EVIDENCE_REDERIVED"
    return result.exit_code, report


def _rungs(report: dict[str, Any]) -> dict[str, tuple[str, list[str]]]:
    [target] = report["targets"]
    return {
        layer["name"]: (layer["status"], sorted({f["code"] for f in layer["findings"]}))
        for layer in target["layers"]
    }


def _finding(report: dict[str, Any], layer: str, code: str) -> dict[str, Any]:
    [target] = report["targets"]
    [rung] = [r for r in target["layers"] if r["name"] == layer]
    return next(f for f in rung["findings"] if f["code"] == code)


def _both(records: list[Any], first: bool) -> list[Any]:
    """The original record and the changed one: the changed one first, or last."""
    original, changed = records
    return [changed, original] if first else [original, changed]


def _assert_doubted(code: int, report: dict[str, Any], layer: str, cited: set[str]) -> None:
    """``layer`` unknown with the conflict citing both records; everything else passing."""
    assert (code, report["verdict"], report["first_failed_layer"]) == (3, "inconclusive", None)
    rungs = _rungs(report)
    assert rungs[layer] == ("unknown", [CONFLICT])
    assert {name for name, (status, _) in rungs.items() if status != "pass"} == {layer}
    finding = _finding(report, layer, CONFLICT)
    assert cited <= {c["pointer"] for c in finding["evidence"]}
    assert "pass by" in finding["message"]
    assert "fail by" in finding["message"]


@pytest.mark.parametrize("first", [False, True])
def test_a_placement_verdict_listed_twice_does_not_place_the_job_by_order(
    tmp_path: Path, first: bool
) -> None:
    report_body = _raw(PLACEMENT)
    [placed] = report_body["per_worker"]
    filtered = dict(placed, verdict="filtered", reasons=["NOT_IN_WORKER_GROUP"])
    report_body["per_worker"] = _both([placed, filtered], first)
    code, report = _analyzed(tmp_path, {PLACEMENT: report_body})
    _assert_doubted(
        code,
        report,
        "placement",
        {"/placements/0/per_worker/0/verdict", "/placements/0/per_worker/1/verdict"},
    )


@pytest.mark.parametrize("first", [False, True])
def test_a_job_whose_placement_was_asked_twice_and_answered_differently_is_in_doubt(
    tmp_path: Path, first: bool
) -> None:
    """``jobs.json`` naming the job twice makes doctor ask for its placement twice; the second
    answer finds no eligible worker. Neither answer is the job's placement by its position."""
    placed = _raw(PLACEMENT)
    nowhere = dict(
        placed,
        candidates=dict(placed["candidates"], eligible=0, placed=0),
        per_worker=[dict(placed["per_worker"][0], verdict="filtered", reasons=["LABEL_MISMATCH"])],
    )
    one, two = _both([placed, nowhere], first)
    code, report = _analyzed(
        tmp_path, {PLACEMENT: one}, {PLACEMENT[:-8] + "001.json": (PLACEMENT, two)}
    )
    _assert_doubted(code, report, "placement", {"/placements/0/eligible", "/placements/1/eligible"})


@pytest.mark.parametrize("first", [False, True])
def test_a_requirements_report_listed_twice_is_not_failed_by_its_worse_record(
    tmp_path: Path, first: bool
) -> None:
    body = _raw(REQUIREMENTS)
    [met] = body["reports"]
    unbound = json.loads(json.dumps(met))
    unbound["requirements"][0]["status"] = "missing"
    unbound["blockers"] = [
        {"code": "CREDENTIAL_NOT_BOUND", "requirement": "cred:hec_token", "message": "unbound"}
    ]
    body["reports"] = _both([met, unbound], first)
    code, report = _analyzed(tmp_path, {REQUIREMENTS: body})
    _assert_doubted(
        code,
        report,
        "requirements",
        {"/reports/0/requirements/0/status", "/reports/1/requirements/0/status"},
    )


def _failed(deployment: dict[str, Any], reason: str) -> dict[str, Any]:
    changed = json.loads(json.dumps(deployment))
    changed["job_deployments"][0].update(state="failed", reason=reason)
    return changed


@pytest.mark.parametrize("first", [False, True])
def test_a_deployment_listed_twice_is_not_failed_by_its_worse_record(
    tmp_path: Path, first: bool
) -> None:
    [active] = _raw(DEPLOYMENTS)
    code, report = _analyzed(
        tmp_path, {DEPLOYMENTS: _both([active, _failed(active, "JOB_START_FAILED")], first)}
    )
    _assert_doubted(
        code,
        report,
        "deployment",
        {"/deployments/0/job_deployments/0/state", "/deployments/1/job_deployments/0/state"},
    )


@pytest.mark.parametrize("first", [False, True])
def test_a_job_deployment_listed_twice_in_its_deployment_is_in_doubt(
    tmp_path: Path, first: bool
) -> None:
    [deployment] = _raw(DEPLOYMENTS)
    [active] = deployment["job_deployments"]
    failed = dict(active, state="failed", reason="DELIVERY_TIMEOUT")
    deployment["job_deployments"] = _both([active, failed], first)
    code, report = _analyzed(tmp_path, {DEPLOYMENTS: [deployment]})
    _assert_doubted(
        code,
        report,
        "deployment",
        {"/deployments/0/job_deployments/0/state", "/deployments/0/job_deployments/1/state"},
    )


@pytest.mark.parametrize("first", [False, True])
def test_records_that_fail_the_rung_either_way_fail_it_with_each_reason(
    tmp_path: Path, first: bool
) -> None:
    """Both records fail the deployment, for different reasons: the rung fails whichever is
    true, and says both, each cited where its own record stands in the member."""
    [active] = _raw(DEPLOYMENTS)
    records = [_failed(active, "JOB_START_FAILED"), _failed(active, "DELIVERY_TIMEOUT")]
    code, report = _analyzed(tmp_path, {DEPLOYMENTS: _both(records, first)})
    assert (code, report["verdict"], report["first_failed_layer"]) == (1, "blocked", "deployment")
    assert _rungs(report)["deployment"] == ("fail", ["DEPLOYMENT_FAILED", CONFLICT])
    [target] = report["targets"]
    [rung] = [r for r in target["layers"] if r["name"] == "deployment"]
    failed = [f for f in rung["findings"] if f["code"] == "DEPLOYMENT_FAILED"]
    assert sorted(f["native_code"] for f in failed) == [
        "DELIVERY_TIMEOUT",
        "JOB_START_FAILED",
    ]
    cited = {c["pointer"] for f in failed for c in f["evidence"] if c["member"].startswith("ev")}
    assert cited == {
        "/deployments/0/job_deployments/0/state",
        "/deployments/1/job_deployments/0/state",
    }
    assert "reads fail either way" in _finding(report, "deployment", CONFLICT)["message"]


def test_records_that_differ_only_where_no_rung_looks_decide_as_one(tmp_path: Path) -> None:
    """Two requirements reports of edge-01 generated a second apart: the rung passes."""
    body = _raw(REQUIREMENTS)
    [met] = body["reports"]
    body["reports"] = [met, dict(met, generated_at="2026-12-06T16:39:47.956043Z")]
    code, report = _analyzed(tmp_path, {REQUIREMENTS: body})
    assert (code, report["verdict"]) == (0, "healthy")
    assert _rungs(report)["requirements"] == ("pass", ["REQUIREMENTS_SATISFIED"])


def test_an_entry_listed_twice_alike_is_one_entry(tmp_path: Path) -> None:
    """The same deployment listed twice (its records read from two places) is one fact."""
    [active] = _raw(DEPLOYMENTS)
    code, report = _analyzed(tmp_path, {DEPLOYMENTS: [active, active]})
    assert (code, report["verdict"]) == (0, "healthy")
    assert _rungs(report)["deployment"] == ("pass", ["DEPLOYMENT_RUNNABLE"])


@pytest.mark.parametrize("first", [False, True])
def test_the_worker_a_job_is_walked_on_does_not_depend_on_which_placement_answer_came_last(
    tmp_path: Path, first: bool
) -> None:
    """``lyftdata-fleet_mixed``: ingest-events placed on edge-01, edge-02 offline. A second
    answer for its placement places it on edge-02. LyftData's job list then assigned the job
    to whichever answer came last, and the ladder walked that worker: blocked at the heartbeat
    one way round, not the other. Now the job is assigned to neither, and it is walked on the
    troubled one of the workers the answers name, whichever order they came in."""
    sample = "lyftdata-fleet_mixed"
    answer = _raw(PLACEMENT, sample)
    moved = json.loads(json.dumps(answer))
    for verdict in moved["per_worker"]:
        verdict["verdict"] = "placed" if verdict["worker_id"] == "edge-02" else "filtered"
    one, two = _both([answer, moved], first)
    again = {"raw/http/job-placement/002.json": (PLACEMENT, two)}
    code, report = _analyzed(
        tmp_path, {PLACEMENT: one}, again, "--job", "ingest-events", sample=sample
    )
    assert [(t["worker"], t["job"]) for t in report["targets"]] == [("edge-02", "ingest-events")]
    assert (code, report["verdict"], report["first_failed_layer"]) == (1, "blocked", "heartbeat")
    assert report["targets"][0]["reason"] == "latest run; meant for edge-02"  # not assigned
