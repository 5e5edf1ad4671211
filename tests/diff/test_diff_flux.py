"""``bundler diff`` on a real Flux lab: healthy, then a hung worker, then the worker resumed.

One lab, three bundles collected by the real ``bundler doctor`` (API and this
machine's hosts): healthy → hung must read as a regression of w2's heartbeat
(exit 1); hung → resumed (SIGCONT, reconnected, a run on w2 after the repair,
collected ``--since`` the repair) must read as recovered (exit 0): heartbeat
fixed and every acceptance check holding, the canary newer than the
incident's bundle.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from bundler.analyze.checklist import Proof
from bundler.products.flux import PROFILE as FLUX
from samples.flux_lab import FluxLab, faults
from samples.pair import after_the_repair
from schemas import DiffReport
from tests.support.flux import BUNDLE_PASSWORD_ENV, LabFactory, run_bundler

pytestmark = pytest.mark.flux


def collect(lab: FluxLab, bundle: Path, *extra: str) -> Path:
    inventory = lab.write_inventory()
    doctor = run_bundler(
        "doctor", "--profile", "flux", "--server", lab.url, "--inventory", str(inventory),
        "--local", "--bundle", str(bundle), "--password-env", BUNDLE_PASSWORD_ENV, *extra,
    )  # fmt: skip
    assert bundle.exists(), doctor.stderr[-2000:]
    return bundle


def diff(before: Path, after: Path) -> tuple[int, DiffReport]:
    result = run_bundler(
        "diff", str(before), str(after), "--format", "json", "--password-env", BUNDLE_PASSWORD_ENV
    )
    assert result.returncode in (0, 1, 3), result.stderr
    return result.returncode, DiffReport.model_validate(json.loads(result.stdout))


def heartbeat(report: DiffReport, worker: str) -> tuple[str, bool]:
    changes = [
        layer
        for target in report.targets
        if target.worker == worker
        for layer in target.layers
        if layer.layer.value == "heartbeat"
    ]
    assert changes, [(t.worker, t.job) for t in report.targets]
    return changes[0].change, changes[0].regression


def test_hung_then_resumed_is_recovered_and_healthy_then_hung_regressed(
    flux_lab_factory: LabFactory, tmp_path: Path
) -> None:
    lab = flux_lab_factory()
    lab.api.run_to_end("hello_world", "before")
    healthy = collect(lab, tmp_path / "healthy.zip")
    faults.hang_worker(lab, "w2", with_work=False)
    hung = collect(lab, tmp_path / "hung.zip")
    lab.workers["w2"].signal(signal.SIGCONT)
    lab.wait_for_status({"w2": "online"}, timeout_s=60)
    repaired = after_the_repair()  # AFTER reads the logs from the repair on
    run = lab.api.run_to_end("hello_world", "after the repair", require_worker="w2")
    assert run["state"] == "COMPLETED", run
    resumed = collect(lab, tmp_path / "resumed.zip", "--since", repaired)

    code, regression = diff(healthy, hung)
    assert (code, regression.verdict) == (1, "regressed")
    assert heartbeat(regression, "w2") == ("newly_failing", True)
    assert any(f.change == "new" and f.code.startswith("FLUX_WORKER") for f in regression.findings)
    assert any(c.subject == "w2" and c.field == "connection" for c in regression.workers)

    code, recovery = diff(hung, resumed)
    assert (code, recovery.verdict) == (0, "recovered"), [
        (c.check, c.status, c.detail) for c in recovery.acceptance
    ]
    assert heartbeat(recovery, "w2") == ("fixed", False)
    assert {c.status for c in recovery.acceptance} <= {"pass", "not_applicable"}
    checks = {c.check: c.status for c in recovery.acceptance}
    flux = FLUX.acceptance_checklist
    assert checks[flux.canary_newer] == "pass"
    assert checks[flux.texts([Proof.HEARTBEAT])[0]] == "pass"
    assert not any("receipt" in check for check in checks)
    assert any(f.change == "resolved" for f in recovery.findings)
    assert recovery.warnings == []
