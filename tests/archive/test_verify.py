"""verify_bundle: canonical evidence and the redaction report against their schemas."""

from __future__ import annotations

import json
from pathlib import Path

from bundler.archive import verify_bundle
from tests.support.archive import build_bundle, open_test_bundle

WORKERS = {"product": "flux", "observed_at": "2024-05-01T12:00:00Z", "workers": []}


def _verify(tmp_path: Path, members: dict[str, bytes], schemas: dict[str, str]):  # type: ignore[no-untyped-def]
    path = build_bundle(tmp_path / "b.zip", members, schema_names=schemas).path
    with open_test_bundle(path, lenient=True) as reader:
        return verify_bundle(reader)


def test_valid_evidence_and_report(tmp_path: Path) -> None:
    report = _verify(
        tmp_path,
        {"evidence/workers.json": json.dumps(WORKERS).encode()},
        {"evidence/workers.json": "evidence.workers"},
    )
    assert report.ok
    assert report.integrity.status == "verified"
    schema = {c.member: c.status for c in report.checks if c.check == "schema"}
    assert schema == {"evidence/workers.json": "ok", "redaction-report.json": "ok"}


def test_invalid_evidence_is_a_problem_naming_the_field(tmp_path: Path) -> None:
    bad = {**WORKERS, "workers": [{"name": 7}]}
    report = _verify(
        tmp_path,
        {"evidence/workers.json": json.dumps(bad).encode()},
        {"evidence/workers.json": "evidence.workers"},
    )
    assert not report.ok
    (problem,) = report.problems
    assert problem.member == "evidence/workers.json"
    assert "workers/0" in (problem.detail or "")


def test_evidence_at_the_wrong_path_and_non_json(tmp_path: Path) -> None:
    report = _verify(
        tmp_path,
        {"evidence/elsewhere.json": json.dumps(WORKERS).encode(), "evidence/x.json": b"{"},
        {"evidence/elsewhere.json": "evidence.workers", "evidence/x.json": "evidence.jobs"},
    )
    details = sorted(c.detail or "" for c in report.problems)
    assert len(details) == 2
    assert "belongs at evidence/workers.json" in details[0]
    assert "not valid JSON" in details[1]


def test_product_records_are_listed_as_not_checked(tmp_path: Path) -> None:
    report = _verify(
        tmp_path, {"raw/http/workers.json": b"[]"}, {"raw/http/workers.json": "flux.worker[]"}
    )
    assert report.ok
    (unchecked,) = [c for c in report.checks if c.status == "not_checked"]
    assert unchecked.member == "raw/http/workers.json"
