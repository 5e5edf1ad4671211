"""Workers that never register because of their own settings, read by doctor and analyze.

Two faults a support engineer meets on a new or moved worker, run in one real lab beside
two healthy workers:

* w3's environment points it at a URL no server answers (FLUX_WORKERS__SERVER_URL wins
  over its flux.toml). Its log shows ``Registering worker`` then ``Connection lost
  (ConnectError …)`` forever; the server logs nothing. The analysis once read "not in the
  (incomplete) worker list: collect it with an API token" (inconclusive): the list was
  read, and the worker never reached the server. It must fail the heartbeat rung, citing
  the failed attempts and the URL its settings send it to.
* w4 holds a bootstrap token the server does not (as after the server's .flux/ was
  recreated). The server answers 403 and logs ``Invalid registration token for worker``.
  The analysis once told the reader to allow anonymous writes (a 401's repair, while
  ``allow_anonymous`` was already true) and added lease-clock advice Flux has no use for.
  It must name the token, cite the server's own line, and say to give the worker the
  server's token.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from samples.flux_lab import LabConfig, faults
from samples.flux_lab.config import DEFAULT_WORKERS
from schemas import AnalysisReport, Layer, LayerStatus, TargetReport
from tests.support.flux import BUNDLE_PASSWORD_ENV, LabFactory, doctor_lab, run_bundler, rung

pytestmark = pytest.mark.flux


def _target(report: AnalysisReport, worker: str) -> TargetReport:
    (target,) = [t for t in report.targets if t.worker == worker and t.job is None]
    return target


def test_a_wrong_server_url_and_a_wrong_token_are_each_named_with_their_own_repair(
    flux_lab_factory: LabFactory, tmp_path: Path
) -> None:
    workers = (
        *DEFAULT_WORKERS,
        faults.wrong_server_url("w3", {"zone": "c"}),
        faults.wrong_bootstrap_token("w4", {"zone": "d"}),
    )
    lab = flux_lab_factory(LabConfig(workers=workers, wait_for_workers=False))
    lab.wait_for_status({"w1": "online", "w2": "online"}, timeout_s=60)
    faults.registration_failing(lab, "w3")
    faults.registration_failing(lab, "w4")
    bundle = tmp_path / "flux.zip"
    doctor_lab(lab, bundle)
    analyzed = run_bundler(
        "analyze", str(bundle), "--format", "json", "--password-env", BUNDLE_PASSWORD_ENV
    )
    assert analyzed.returncode == 1, analyzed.stderr
    report = AnalysisReport.model_validate_json(analyzed.stdout)

    unreachable = _target(report, "w3")
    assert unreachable.first_failed_layer is Layer.HEARTBEAT
    status, found = rung(unreachable, Layer.HEARTBEAT)
    assert status is LayerStatus.FAIL
    assert [f.code for f in found] == ["FLUX_WORKER_CANNOT_REACH_SERVER"]
    (finding,) = found
    assert "never registered" in finding.message
    assert "ConnectError" in finding.message
    assert f"{faults.UNREACHABLE_URL} (FLUX_WORKERS__SERVER_URL" in finding.message
    assert f"answered the collector at {lab.url}" in finding.message
    assert finding.details["server_url"] == faults.UNREACHABLE_URL
    cited = {c.member: c for c in finding.evidence}
    assert any("Connection lost (ConnectError" in (c.excerpt or "") for c in finding.evidence)
    assert cited["evidence/authorization.json"].pointer == "/workers/2/server_url"
    assert finding.recovery is not None
    assert "server_url" in " ".join(finding.recovery.steps)

    refused = _target(report, "w4")
    assert refused.first_failed_layer is Layer.AUTHORIZATION
    status, found = rung(refused, Layer.AUTHORIZATION)
    assert status is LayerStatus.FAIL
    # One cause, one finding: the generic lease and registration texts are Flux's here.
    assert [f.code for f in found] == ["FLUX_BOOTSTRAP_TOKEN_INVALID"]
    (finding,) = found
    assert "403" in finding.message
    assert finding.native_code == "invalid_registration_token"
    excerpts = [c.excerpt or "" for c in finding.evidence]
    assert any("Invalid registration token for worker: w4" in e for e in excerpts)
    assert finding.recovery is not None
    assert "bootstrap token" in finding.recovery.summary
    assert not any("allow_anonymous" in step for step in finding.recovery.steps)
    assert "lab-stale-bootstrap-token" not in analyzed.stdout  # the token itself is never read

    # Both are targets (w3 once was only when nothing else was wrong), the healthy two not.
    assert {t.worker for t in report.targets} == {"w3", "w4"}
