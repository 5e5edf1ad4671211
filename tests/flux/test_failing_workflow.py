"""A workflow whose task always raises, on a healthy fleet, read by doctor and analyze.

Every other lab scenario breaks the fleet; this one breaks only the work. Flux
records each run FAILED with the task's exception as its output; the workers stay
online with free slots. The outcome rung is the one that must fail, citing the
failed execution and its error, with every rung below it passing: the fleet is
not to blame. The rules were so far tested on such a run only in synthetic evidence.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from samples.flux_lab import faults
from schemas import Layer, LayerStatus
from tests.support.flux import LabFactory, analyze_json, doctor_lab, extract, rung

pytestmark = pytest.mark.flux


def test_a_workflow_that_always_fails_fails_the_outcome_rung_only(
    flux_lab_factory: LabFactory, tmp_path: Path
) -> None:
    lab = flux_lab_factory()
    assert lab.api.run_to_end("hello_world", "before")["state"] == "COMPLETED"
    failed = faults.failing_runs(lab, runs=2, worker="w1")
    bundle = tmp_path / "flux.zip"
    doctor_lab(lab, bundle)
    report = analyze_json(bundle, expect_rc=1)
    assert report.verdict.value == "blocked"
    assert report.first_failed_layer is Layer.OUTCOME
    (target,) = [t for t in report.targets if t.job == "default/always_fails"]
    assert (target.worker, target.first_failed_layer) == ("w1", Layer.OUTCOME)
    assert target.job_id in failed.executions
    below = [r.status for r in target.layers if r.name is not Layer.OUTCOME]
    assert set(below) <= {LayerStatus.PASS, LayerStatus.NOT_APPLICABLE}, below
    (outcome,) = [r for r in target.layers if r.name is Layer.OUTCOME]
    (finding,) = [f for f in outcome.findings if f.code == "FLUX_EXECUTION_FAILED"]
    assert target.job_id in finding.message
    assert "RuntimeError: lab task refused" in finding.message
    # The job record holding Flux's own error for that run first, then the raw evidence a
    # support engineer opens: the executions list it was read from, its entry among the last
    # runs and the database row that entry was read from (the generic findings this one
    # replaces cited them; it cited only the error).
    error, *raw = finding.evidence
    assert error.member == "evidence/jobs.json"
    assert (error.pointer or "").endswith("/error")
    assert (error.excerpt or "").startswith("RuntimeError: lab task refused: attempt ")
    members = [c.member for c in raw]
    assert members == [
        "raw/http/executions-failed.json",
        "evidence/outcome.json",
        "hosts/h01/db-last-runs.json",
    ], members
    folder = extract(bundle, tmp_path / "extracted")
    for cited in raw:  # each opens on the failed execution's own record
        record = json.loads((folder / cited.member).read_text())
        parts = (cited.pointer or "").split("/")[1:]
        if cited.member == "evidence/outcome.json":  # /canaries/N/phase: the run's entry
            assert parts[-1] == "phase"
            parts = parts[:-1]
        for part in parts:
            record = record[int(part) if isinstance(record, list) else part]
        assert target.job_id in json.dumps(record), cited
        assert record.get("phase", "failed") == "failed"


def test_a_failed_execution_reads_in_fluxs_words_and_names_the_command_that_shows_its_error(
    flux_lab_factory: LabFactory, tmp_path: Path
) -> None:
    """Flux has no canary and no receipt: the generic outcome path told a Flux operator to
    "run a bounded canary" and "confirm the downstream receipt", beside two more findings of
    the same failure (JOB_RUN_FAILED, CANARY_FAILED). The rung now says it once, in Flux's
    words, and the command its recovery names really shows the failed run's error."""
    lab = flux_lab_factory()
    (failed,) = faults.failing_runs(lab, runs=1, worker="w1").executions
    bundle = tmp_path / "flux.zip"
    doctor_lab(lab, bundle)
    report = analyze_json(bundle, expect_rc=1)
    (target,) = [t for t in report.targets if t.job == "default/always_fails"]
    assert (target.job_id, target.first_failed_layer) == (failed, Layer.OUTCOME)
    status, findings = rung(target, Layer.OUTCOME)
    assert status is LayerStatus.FAIL
    assert [f.code for f in findings] == ["FLUX_EXECUTION_FAILED"]
    (finding,) = findings
    assert finding.recovery is not None
    said = [
        finding.message,
        finding.recovery.summary,
        *finding.recovery.steps,
        *finding.recovery.cautions,
        finding.recovery.reference or "",
        *finding.acceptance,
        *(check.check for check in target.acceptance),
    ]
    for word in ("canary", "receipt"):
        assert not [text for text in said if word in text.lower()], word
    assert "COMPLETED" in finding.recovery.summary
    steps = " ".join(finding.recovery.steps)
    assert "`flux workflow run NAME INPUT --mode sync`" in steps
    (show,) = re.findall(r"`(flux execution show ID --detailed)`", steps)
    shown = subprocess.run(
        [str(lab.flux.flux), *show.replace("ID", failed).split()[1:], "--server-url", lab.url],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert shown.returncode == 0, shown.stderr
    assert "lab task refused: attempt 0" in shown.stdout  # the error the finding quotes
    assert "lab task refused: attempt 0" in finding.message
    for event in ("TASK_FAILED", "WORKFLOW_FAILED"):  # the events the step names
        assert event in steps
        assert f'"type": "{event}"' in shown.stdout, event


def test_of_several_failed_runs_the_latest_is_the_target(
    flux_lab_factory: LabFactory, tmp_path: Path
) -> None:
    """Failed runs on w1, then on w2 until the latest's id is not the smallest of w2's:
    Flux lists executions by id (random), and the first listed of a worker's failed runs
    was its target, and w1's older failure a target of its own. The job's latest failed
    run (by its own events) is now the one target; the earlier ones are counted."""
    lab = flux_lab_factory()
    runs = faults.failing_runs(lab, runs=1, worker="w1").executions
    on_w2: list[str] = []
    while len(on_w2) < 2 or min(on_w2) == on_w2[-1]:
        assert len(on_w2) < 8, "Flux's ids kept decreasing"
        on_w2 += faults.failing_runs(lab, runs=1, worker="w2").executions
    runs += on_w2
    bundle = tmp_path / "flux.zip"
    doctor_lab(lab, bundle)
    report = analyze_json(bundle)
    targets = [t for t in report.targets if t.job == "default/always_fails"]
    assert [(t.worker, t.job_id) for t in targets] == [("w2", runs[-1])]
    assert f"latest of {len(runs)} failed runs" in (targets[0].reason or "")
    assert targets[0].first_failed_layer is Layer.OUTCOME
