"""Analysis re-derives canonical evidence from raw/ with the running profile.

The case the issue names: a bundle collected by a bundler whose LyftData
normalizer lost ``limits.metrics_enabled = false``. Its stored capacity
document says nothing about metrics, so analyzing the stored evidence calls
capacity adequate; its raw response says ``"metrics_enabled": false``, so the
re-derived evidence gives METRICS_NOT_ENABLED (unknown) and the report says
which evidence was used and that it differs.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from bundler.analyze.api import EvidenceSet
from bundler.analyze.engine import analyze
from bundler.analyze.rederive import rederive, step_results
from bundler.cli import cli
from bundler.products import get_profile
from samples import catalog
from schemas import LayerStatus, Manifest, Verdict
from schemas.evidence import CapacityEvidence, ProductInfo, WorkersEvidence
from tests.support.sample_bundles import load_sample


def _with_the_old_normalizer_bug():  # type: ignore[no-untyped-def]
    source, manifest = load_sample("lyftdata-metrics_disabled")
    stored = json.loads(source.read_bytes(CapacityEvidence.member_path))
    for entry in stored["workers"]:
        entry["limits"].pop("metrics_enabled", None)
    source.add(CapacityEvidence.member_path, stored)
    return source, manifest


def _capacity_codes(report) -> set[str]:  # type: ignore[no-untyped-def]
    return {
        f.code
        for t in report.targets
        for layer in t.layers
        if layer.name.value == "capacity"
        for f in layer.findings
    }


def test_stored_evidence_wrong_raw_right_gives_the_right_verdict() -> None:
    source, manifest = _with_the_old_normalizer_bug()
    profile = get_profile("lyftdata")
    as_stored = analyze(EvidenceSet(source, manifest), profile=profile)
    assert "METRICS_NOT_ENABLED" not in _capacity_codes(as_stored)  # the old bug, reproduced
    used = rederive(EvidenceSet(source, manifest), profile)
    report = analyze(used.evidence, profile=profile)
    assert report.verdict is Verdict.INCONCLUSIVE
    assert "METRICS_NOT_ENABLED" in _capacity_codes(report)
    assert used.note.code == "EVIDENCE_REDERIVED"
    assert used.differs == [CapacityEvidence.member_path]
    assert CapacityEvidence.member_path in used.note.message


def test_a_current_bundle_rederives_to_its_stored_evidence() -> None:
    source, manifest = load_sample("lyftdata-healthy")
    used = rederive(EvidenceSet(source, manifest), get_profile("lyftdata"))
    assert used.note.code == "EVIDENCE_REDERIVED"
    report = analyze(used.evidence, profile=get_profile("lyftdata"))
    assert report.verdict is Verdict.HEALTHY


def test_a_value_the_sealing_redacted_is_no_difference() -> None:
    """Flux's settings_sources maps ``security.auth.allow_anonymous`` to ``flux.toml``. The
    redactor took that label for an auth value until f03b626 and replaced it, everywhere in
    the document, when the bundle was sealed: the stored document holds a token where the
    re-derived one holds ``flux.toml``. Same normalizer, so no difference."""
    source, manifest = load_sample("flux-healthy")
    stored = json.loads(source.read_bytes(ProductInfo.member_path))
    sources = stored["settings_sources"]
    assert sources["security.auth.allow_anonymous"] == "flux.toml"  # kept since f03b626
    token = "[REDACTED:auth:2496a911]"
    stored["settings_sources"] = {k: token if v == "flux.toml" else v for k, v in sources.items()}
    source.add(ProductInfo.member_path, stored)
    used = rederive(EvidenceSet(source, manifest), get_profile("flux"))
    assert used.differs == []
    assert "It matches the stored evidence." in used.note.message


def test_a_manifest_from_before_steps_were_recorded_rederives_the_same() -> None:
    """Older bundles name no step, bound values or HTTP exchange per collector: the step
    results are rebuilt from collector ids and the parents' raw documents instead."""
    source, manifest = load_sample("flux-hung")
    older = manifest.model_dump(mode="json")
    for collector in older["collectors"]:
        for name in ("step", "bound", "exit_code", "http"):
            collector.pop(name, None)
    used = rederive(EvidenceSet(source, Manifest.model_validate(older)), get_profile("flux"))
    assert used.note.code == "EVIDENCE_REDERIVED"
    assert used.differs == []


def _stored_worker_named(name: str):  # type: ignore[no-untyped-def]
    source, manifest = load_sample("lyftdata-healthy")
    stored = json.loads(source.read_bytes(WorkersEvidence.member_path))
    worker = stored["workers"][0]
    assert (worker["name"], worker["id"]) == ("edge-01", "edge-01")
    worker["name"] = name
    return source, manifest, stored


def test_a_token_stands_for_one_value_and_the_text_around_it_must_match() -> None:
    profile = get_profile("lyftdata")
    token = "[REDACTED:auth:0a1b2c3d]"
    for name, worker_id, differs in (
        (token, token, []),  # one token, one value: as the sealing redacted it
        (f"edge-{token}", "edge-01", []),  # a token inside a text
        (f"edge-{token}", token, [WorkersEvidence.member_path]),  # one token, two values
        (f"node-{token}", "edge-01", [WorkersEvidence.member_path]),  # the text differs
    ):
        source, manifest, stored = _stored_worker_named(name)
        stored["workers"][0]["id"] = worker_id
        source.add(WorkersEvidence.member_path, stored)
        used = rederive(EvidenceSet(source, manifest), profile)
        assert used.differs == differs, (name, worker_id)


def test_fan_out_bindings_are_rebuilt_from_the_parents_raw_documents() -> None:
    source, manifest = load_sample("lyftdata-fleet_mixed")
    profile = get_profile("lyftdata")
    results = {r.collector: r for r in step_results(source, manifest, profile.plan())}
    workers = json.loads(source.read_bytes("raw/http/workers.json"))
    status = sorted(
        (r for r in results.values() if r.step == "worker-status"), key=lambda r: r.collector
    )
    assert [r.bound["id"] for r in status] == [w["id"] for w in workers]


def test_without_raw_members_the_stored_evidence_is_used_and_said_so() -> None:
    source, manifest = load_sample("lyftdata-healthy")
    for name in [n for n in source.names() if n.startswith("raw/")]:
        source._members.pop(name)
    used = rederive(EvidenceSet(source, manifest), get_profile("lyftdata"))
    assert used.note.code == "EVIDENCE_STORED"
    assert used.evidence.source is source


def test_the_cli_report_says_which_evidence_it_used(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli,
        [
            "analyze",
            str(catalog.BUNDLES_DIR / "lyftdata-healthy.zip"),
            "--password-env",
            catalog.PASSWORD_ENV,
            "--format",
            "json",
        ],
        env={catalog.PASSWORD_ENV: catalog.SAMPLE_PASSWORD},
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["fleet_findings"][0]["code"] == "EVIDENCE_REDERIVED"
    assert report["fleet_findings"][0]["details"]["source"] == "raw"
    layers = [layer for t in report["targets"] for layer in t["layers"]]
    assert all(layer["status"] != LayerStatus.UNKNOWN.value for layer in layers)
