"""The runtime-authorization rung on doubtful evidence, through real bundles of the simulator.

Unknown evidence reads unknown, never pass: a decision the server did not give and a lease
whose signature nobody checked prove nothing. The worker's own log may still decide the rung
where the *Worker Recovery and Serviceability* guide says so ("if the UI or logs report
community_edition_no_external_workers or license_expired_or_invalid").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from bundler.analyze.engine import analyze
from bundler.products.lyftdata import PROFILE
from bundler.products.lyftdata.logs import CLI_LOG
from samples.lyftdata_sim.loader import SCENARIO_DIR, merge
from schemas import AnalysisReport, LayerResult, LayerStatus
from tests.support.lyftdata_collect import collect
from tests.support.lyftdata_sim import running_simulator

REJECTED = "runtime authorization denied: license_expired_or_invalid"
RENEWED = "runtime lease wl_edge-01 renewed, expires in 900s"
EDITION = "runtime authorization denied: community_edition_no_external_workers"


def _scenario(tmp_path: Path, name: str, changes: dict[str, Any]) -> str:
    """The healthy scenario with ``changes`` merged over it, written as a file of its own."""
    healthy = yaml.safe_load((SCENARIO_DIR / "healthy.yaml").read_text())
    healthy.pop("expect", None)
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(merge(healthy, {"description": name, **changes})))
    return str(path)


def _analyzed(tmp_path: Path, name: str, changes: dict[str, Any]) -> AnalysisReport:
    with running_simulator(_scenario(tmp_path, name, changes), tmp_path / "run") as sim:
        return analyze(collect(sim).evidence(), profile=PROFILE)


def _authorization(report: AnalysisReport) -> LayerResult:
    target = next(t for t in report.targets if t.worker == "edge-01")
    return next(layer for layer in target.layers if layer.name.value == "authorization")


def _log(*lines: tuple[str, str]) -> list[dict[str, str]]:
    """The healthy host's log, with ``(at, message)`` lines of the auth module added."""
    healthy = yaml.safe_load((SCENARIO_DIR / "healthy.yaml").read_text())
    kept = [dict(line) for line in healthy["hosts"][0]["log_lines"]]
    added = [
        {"at": at, "level": "ERROR", "target": "lyftdata_worker::auth", "message": message}
        for at, message in lines
    ]
    return kept + added


def test_an_undecided_server_and_an_unchecked_lease_signature_read_unknown(
    tmp_path: Path,
) -> None:
    report = _analyzed(
        tmp_path,
        "undecided-unchecked",
        {"workers": [{"id": "edge-01", "auth": {"decision": "unknown",
                                                "lease": {"signature": "unchecked"}}}]},
    )  # fmt: skip
    rung = _authorization(report)
    assert rung.status is LayerStatus.UNKNOWN, rung
    codes = {f.code for f in rung.findings}
    assert "AUTHORIZED" not in codes
    (undecided,) = [f for f in rung.findings if f.code == "AUTHORIZATION_UNDECIDED"]
    assert "not checked" in undecided.message
    pointers = {c.pointer for c in undecided.evidence}
    assert "/workers/0/decision" in pointers
    assert "/workers/0/lease/signature" in pointers


def test_an_undecided_server_with_a_verified_unexpired_lease_still_passes(
    tmp_path: Path,
) -> None:
    report = _analyzed(
        tmp_path,
        "undecided-verified",
        {"workers": [{"id": "edge-01", "auth": {"decision": "unknown"}}]},
    )
    rung = _authorization(report)
    assert rung.status is LayerStatus.PASS, rung
    assert [f.code for f in rung.findings] == ["AUTHORIZED"]


def test_a_failed_auth_request_is_decided_by_the_license_code_in_the_worker_log(
    tmp_path: Path,
) -> None:
    report = _analyzed(
        tmp_path,
        "auth-failed-log-says-license",
        {
            "server": {"faults": [{"path": "/api/workers/*/auth", "answer": "error"}]},
            "hosts": [{"worker": "edge-01", "log_lines": _log(("-1m", REJECTED))}],
        },
    )
    rung = _authorization(report)
    assert rung.status is LayerStatus.FAIL, rung
    (finding,) = [f for f in rung.findings if f.code == "LICENSE_EXPIRED_OR_INVALID"]
    assert finding.native_code == "license_expired_or_invalid"
    line = finding.evidence[0]
    assert line.lines is not None
    assert line.member.startswith("hosts/")
    assert REJECTED in (line.excerpt or "")
    assert finding.recovery is not None
    assert "restart" in " ".join(finding.recovery.cautions)


def test_without_ssh_the_api_copy_of_the_worker_log_decides_the_rung(tmp_path: Path) -> None:
    """No host collected, no auth record, no license read: the lines the control plane's API
    returned still say why the worker is refused, and the finding cites them as that copy."""
    healthy = yaml.safe_load((SCENARIO_DIR / "healthy.yaml").read_text())
    logs = healthy["workers"][0]["logs"] + [
        {"at": "-1m", "level": "ERROR", "target": "lyftdata_worker::auth", "message": EDITION}
    ]
    report = _analyzed(
        tmp_path,
        "api-log-says-edition",
        {
            "server": {"faults": [{"path": "/api/workers/*/auth", "answer": "error"},
                                  {"path": "/api/license/show", "answer": "error"}]},
            "workers": [{"id": "edge-01", "logs": logs}],
            "hosts": [],
        },
    )  # fmt: skip
    rung = _authorization(report)
    assert rung.status is LayerStatus.FAIL, rung
    (finding,) = rung.findings
    assert finding.code == "COMMUNITY_EDITION_NO_EXTERNAL_WORKERS"
    assert "the worker log the control plane's API returned reports" in finding.message
    assert "disagree" not in finding.message
    (line,) = finding.evidence
    assert line.member.startswith("raw/http/worker-logs/")
    assert line.pointer == "/lines/2"
    assert EDITION in (line.excerpt or "")


def test_a_host_log_and_an_api_copy_that_disagree_are_both_named(tmp_path: Path) -> None:
    """The host log ends on a refusal, the API's copy on the renewal before it: the later
    line decides, and the finding says the copies disagree, citing each one's last line."""
    report = _analyzed(
        tmp_path,
        "copies-disagree",
        {
            "server": {"faults": [{"path": "/api/workers/*/auth", "answer": "error"}]},
            "hosts": [{"worker": "edge-01", "log_lines": _log(("-1m", REJECTED))}],
        },
    )
    rung = _authorization(report)
    (finding,) = [f for f in rung.findings if f.code == "LICENSE_EXPIRED_OR_INVALID"]
    assert "the worker host's log reports" in finding.message
    assert "copies of its log disagree" in finding.message
    assert "the control plane's API returned last says its lease was renewed" in finding.message
    assert f"{CLI_LOG} last says its lease was renewed" in finding.message
    members = [c.member.split("/")[0] + ("#" if c.pointer else ":") for c in finding.evidence]
    assert members == ["hosts:", "raw#", "hosts:"]
    assert RENEWED in (finding.evidence[1].excerpt or "")
    assert finding.evidence[2].member.endswith("/lyftdata-workers-logs.txt")
    assert RENEWED in (finding.evidence[2].excerpt or "")


def test_a_line_in_both_copies_is_one_event_and_no_disagreement(tmp_path: Path) -> None:
    """The same refusal in the host log and the API's copy: one line, cited in each copy, and
    nothing to disagree about."""
    healthy = yaml.safe_load((SCENARIO_DIR / "healthy.yaml").read_text())
    rejected = {"at": "-1m", "level": "ERROR", "target": "lyftdata_worker::auth",
                "message": REJECTED}  # fmt: skip
    report = _analyzed(
        tmp_path,
        "copies-agree",
        {
            "server": {"faults": [{"path": "/api/workers/*/auth", "answer": "error"}]},
            "workers": [{"id": "edge-01", "logs": healthy["workers"][0]["logs"] + [rejected]}],
            "hosts": [{"worker": "edge-01", "log_lines": _log(("-1m", REJECTED))}],
        },
    )
    rung = _authorization(report)
    (finding,) = [f for f in rung.findings if f.code == "LICENSE_EXPIRED_OR_INVALID"]
    assert "disagree" not in finding.message
    assert (
        f"the worker host's log, the worker log the control plane's API returned and {CLI_LOG} "
        "reports" in finding.message
    )
    assert [c.member.split("/")[0] for c in finding.evidence] == ["hosts", "raw", "hosts"]


def test_the_cli_output_on_a_worker_host_is_that_workers_log(tmp_path: Path) -> None:
    """``lyftdata workers logs <worker-id> --limit 200`` prints lines, no worker id; doctor runs
    it on each worker host with that host's inventory ``worker``, so the copy is that worker's
    (the manifest names the host's worker). It was read with no worker, so no per-worker rule
    used it: the refusal it holds, like the API's copy, is now cited in it too, and the one
    line both hold is one event."""
    healthy = yaml.safe_load((SCENARIO_DIR / "healthy.yaml").read_text())
    logs = healthy["workers"][0]["logs"] + [
        {"at": "-1m", "level": "ERROR", "target": "lyftdata_worker::auth", "message": EDITION}
    ]
    report = _analyzed(
        tmp_path,
        "cli-log-says-edition",
        {
            "server": {"faults": [{"path": "/api/workers/*/auth", "answer": "error"},
                                  {"path": "/api/license/show", "answer": "error"}]},
            "workers": [{"id": "edge-01", "logs": logs}],
        },
    )  # fmt: skip
    rung = _authorization(report)
    (finding,) = [f for f in rung.findings if f.code == "COMMUNITY_EDITION_NO_EXTERNAL_WORKERS"]
    assert f"the worker log the control plane's API returned and {CLI_LOG} reports" in (
        finding.message
    )
    cited = {c.member: c for c in finding.evidence}
    cli = next(member for member in cited if member.endswith("/lyftdata-workers-logs.txt"))
    assert cited[cli].lines is not None
    assert EDITION in (cited[cli].excerpt or "")
    assert sum(EDITION in (c.excerpt or "") for c in finding.evidence) == 2


def test_an_undecided_server_is_decided_by_the_license_code_in_the_worker_log(
    tmp_path: Path,
) -> None:
    report = _analyzed(
        tmp_path,
        "undecided-log-says-license",
        {
            "workers": [{"id": "edge-01", "auth": {"decision": "unknown",
                                                   "lease": {"signature": "unchecked"}}}],
            "hosts": [{"worker": "edge-01", "log_lines": _log(("-1m", REJECTED))}],
        },
    )  # fmt: skip
    rung = _authorization(report)
    assert rung.status is LayerStatus.FAIL, rung
    assert [f.code for f in rung.findings] == ["LICENSE_EXPIRED_OR_INVALID"]


def test_a_refusal_logged_before_a_renewal_decides_nothing(tmp_path: Path) -> None:
    report = _analyzed(
        tmp_path,
        "auth-failed-log-recovered",
        {
            "server": {"faults": [{"path": "/api/workers/*/auth", "answer": "error"}]},
            "hosts": [
                {"worker": "edge-01", "log_lines": _log(("-20m", REJECTED), ("-1m", RENEWED))}
            ],
        },
    )
    rung = _authorization(report)
    assert rung.status is LayerStatus.UNKNOWN, rung
    assert [f.code for f in rung.findings] == ["AUTHORIZATION_RECORD_MISSING"]
