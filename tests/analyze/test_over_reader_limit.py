"""Evidence over a reader's limit is a named gap: never healthy, never an empty fleet, never a fail.

A 100,000-worker control plane can answer ``GET /workers`` with more than the 256 MiB a
reader parses as one JSON document. Here the cap is made test-sized
(``BUNDLER_MAX_JSON_BYTES=128KiB``) and one member of a committed healthy sample (real
evidence from a real Flux, and from the LyftData simulator) is made larger than it,
whitespace after the document, as it would be stored. ``bundler analyze`` must then say
*inconclusive* (exit 3) and name the member, its size, the limit and the setting that
reads it; the rung the member decides reads unknown and says how to decide it. Before,
a Flux ``/health`` answer over the cap read as "the server is not healthy" (blocked), a
LyftData receipt listing over it as "the receipt never came" (blocked), a worker log over
it as nothing at all (healthy), and every other refusal as a failed collector with the
advice to collect it again, which would only refuse it again.
"""

from __future__ import annotations

import json
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bundler.cli import cli
from tests.support.sample_bundles import load_sample, write_sample_dir

CAP = "128KiB"
CAP_BYTES = 128 << 10
READS_IT = "BUNDLER_MAX_JSON_BYTES=1MiB"
"""The setting the report names for a member just over the cap."""

NOT_EVIDENCE = ("manifest.json", "redaction-report.json", "analysis.json")
REDERIVED = "re-derived from raw/ with this bundler's profile: the stored copy is not read"
UNREAD: dict[str, dict[str, str]] = {
    "flux-healthy": {
        "evidence/authorization.json": REDERIVED,
        "evidence/capacity.json": REDERIVED,
        "evidence/deployments.json": REDERIVED,
        "evidence/jobs.json": REDERIVED,
        "evidence/local_state.json": REDERIVED,
        "evidence/outcome.json": REDERIVED,
        "evidence/product.json": REDERIVED,
        "evidence/requirements.json": REDERIVED,
        "evidence/server.json": REDERIVED,
        "evidence/workers.json": REDERIVED,
        "hosts/*/sysinfo.json": "summed up in evidence/hosts.json when collected",
        "raw/http/openapi.json": "kept for support engineers and `bundler serve`",
        "raw/http/workflows.json": "the fan-out's list: each workflow was fetched on its own",
        "raw/http/workflow/*": "read for a job's requirements: the healthy sample has no job",
    },
    "lyftdata-healthy": {
        "evidence/authorization.json": REDERIVED,
        "evidence/capacity.json": REDERIVED,
        "evidence/deployments.json": REDERIVED,
        "evidence/jobs.json": REDERIVED,
        "evidence/local_state.json": REDERIVED,
        "evidence/outcome.json": REDERIVED,
        "evidence/placement.json": REDERIVED,
        "evidence/product.json": REDERIVED,
        "evidence/requirements.json": REDERIVED,
        "evidence/server.json": REDERIVED,
        "evidence/workers.json": REDERIVED,
        "hosts/*/sysinfo.json": "summed up in evidence/hosts.json when collected",
        "hosts/*/lyftdata-doctor.json": "kept for support engineers: no rule reads it",
    },
}
"""Members no analysis parses, so refusing them changes nothing (and the report is healthy)."""


def _members(sample: str) -> list[tuple[str, str]]:
    source, _ = load_sample(sample)
    return [
        (sample, name)
        for name in source.names()
        if name.endswith(".json") and name not in NOT_EVIDENCE
    ]


CASES = _members("flux-healthy") + _members("lyftdata-healthy")


def _over_cap(sample: str, member: str, root: Path) -> Path:
    """``sample`` with ``member`` padded past :data:`CAP`, as its collector would have stored it."""
    source, _ = load_sample(sample)
    data = source.read_bytes(member)
    padded = data + b" " * (CAP_BYTES + 1000 - len(data))
    return write_sample_dir(sample, root, {member: padded})


def _analyze(bundle: Path, *args: str) -> tuple[int, Any]:
    result = CliRunner().invoke(cli, ["analyze", str(bundle), "--format", "json", *args])
    assert result.exit_code in (0, 1, 3), result.output
    return result.exit_code, json.loads(result.stdout)


def _over_limit(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for f in report["fleet_findings"] if f["code"] == "EVIDENCE_OVER_LIMIT"]


@pytest.mark.parametrize(("sample", "member"), CASES, ids=[f"{s}:{m}" for s, m in CASES])
def test_a_member_over_the_json_cap_is_named_and_inconclusive(
    sample: str, member: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BUNDLER_MAX_JSON_BYTES", CAP)
    bundle = _over_cap(sample, member, tmp_path / "b")
    code, report = _analyze(bundle)
    unread = next((why for p, why in UNREAD[sample].items() if fnmatch(member, p)), None)
    if unread is not None:
        assert (code, report["verdict"], _over_limit(report)) == (0, "healthy", []), unread
        return
    assert (code, report["verdict"]) == (3, "inconclusive")
    [finding] = _over_limit(report)
    assert finding["details"]["members"] == [member]
    assert f"{member} is 129.0 KiB, over the 128.0 KiB" in finding["message"]
    assert READS_IT in finding["message"]
    assert [c["member"] for c in finding["evidence"]] == [member]


@pytest.mark.parametrize(
    ("probe", "not_said"),
    [
        ("health", {"SERVER_UNHEALTHY", "FLUX_SERVER_UNHEALTHY", "SERVER_HEALTHY"}),
        ("ready", {"SERVER_NOT_READY", "FLUX_SERVER_NOT_READY", "FLUX_SERVER_HEALTHY"}),
    ],
)
def test_an_unread_flux_probe_leaves_the_server_rung_unknown(
    probe: str, not_said: set[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Flux answered /health (or /ready) with 200, stored whole: unread, it says neither that
    the server is unhealthy nor that it is healthy and ready."""
    monkeypatch.setenv("BUNDLER_MAX_JSON_BYTES", CAP)
    bundle = _over_cap("flux-healthy", f"raw/http/{probe}.json", tmp_path / "b")
    _, report = _analyze(bundle)
    rungs = [
        layer
        for target in report["targets"]
        for layer in target["layers"]
        if layer["name"] == "server"
    ]
    assert {layer["status"] for layer in rungs} == {"unknown"}
    said = {f["code"] for layer in rungs for f in layer["findings"]}
    assert "SERVER_HEALTH_UNKNOWN" in said
    assert not said & not_said


def test_the_rung_an_unread_worker_list_decides_says_how_to_read_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker the list would have shown: unknown, the member named, and the setting
    that reads it as the way to decide it (not "collect it again", which refuses it again)."""
    monkeypatch.setenv("BUNDLER_MAX_JSON_BYTES", CAP)
    bundle = _over_cap("lyftdata-healthy", "raw/http/workers.json", tmp_path / "b")
    _, report = _analyze(bundle)
    heartbeat = next(
        layer
        for target in report["targets"]
        for layer in target["layers"]
        if layer["name"] == "heartbeat"
    )
    assert heartbeat["status"] == "unknown"
    [finding] = heartbeat["findings"]
    assert "raw/http/workers.json" in finding["missing"]
    assert finding["to_decide"].startswith(f"To decide it: analyze again with {READS_IT}")
    assert "did not complete" not in finding["to_decide"]
    incomplete = next(f for f in report["fleet_findings"] if f["code"] == "TARGETS_INCOMPLETE")
    assert "(gaps: http.workers)" in incomplete["message"]


@pytest.mark.parametrize("sample", ["flux-unmatched", "flux-hung"])
def test_an_unread_worker_list_is_no_fleet_without_a_worker_for_the_job(
    sample: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """flux-unmatched: executions ask for a GPU, or an affinity, no worker has (blocked at
    placement); flux-hung: one is pinned to the worker that hung. With the worker list
    unread, that no listed worker meets them proves nothing: unknown, and inconclusive,
    not "the fleet has no workers", "no worker matches" or "pinned to an unknown worker"."""
    monkeypatch.setenv("BUNDLER_MAX_JSON_BYTES", CAP)
    bundle = _over_cap(sample, "raw/http/workers.json", tmp_path / "b")
    code, report = _analyze(bundle)
    assert (code, report["verdict"], report["first_failed_layer"]) == (3, "inconclusive", None)
    placements = [
        layer
        for target in report["targets"]
        if target["job"] is not None
        for layer in target["layers"]
        if layer["name"] == "placement"
    ]
    assert placements
    assert {layer["status"] for layer in placements} == {"unknown"}
    said = {f["code"] for layer in placements for f in layer["findings"]}
    assert not said & {"NO_MATCHING_WORKER", "PINNED_WORKER_UNKNOWN", "FLUX_NO_ELIGIBLE_WORKER"}


def test_the_html_report_names_the_member_and_the_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BUNDLER_MAX_JSON_BYTES", CAP)
    bundle = _over_cap("flux-healthy", "raw/http/workers.json", tmp_path / "b")
    result = CliRunner().invoke(cli, ["analyze", str(bundle), "--format", "html"])
    assert result.exit_code == 3, result.output
    assert "EVIDENCE_OVER_LIMIT" in result.stdout
    assert "raw/http/workers.json is 129.0 KiB" in result.stdout
    assert READS_IT in result.stdout


def test_the_same_bundle_reads_whole_with_the_setting_the_report_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing was lost: raised as the report says, the cap lets the member be read."""
    monkeypatch.setenv("BUNDLER_MAX_JSON_BYTES", CAP)
    bundle = _over_cap("flux-healthy", "raw/http/workers.json", tmp_path / "b")
    monkeypatch.setenv("BUNDLER_MAX_JSON_BYTES", READS_IT.split("=")[1])
    code, report = _analyze(bundle)
    assert (code, report["verdict"], _over_limit(report)) == (0, "healthy", [])
