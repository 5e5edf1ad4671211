"""Bundle text that is not Unicode never reaches a report, and the writers never crash on it.

JSON may escape half a UTF-16 surrogate pair (``"w\\ud800x"``) and Python's
parser keeps it; pydantic, a UTF-8 file and the terminal all refuse to encode
it. The reading boundary (``bundler/jsondoc.py``) refuses such a document as
invalid evidence, whichever document it is (evidence, manifest, redaction
report, a raw API response re-derived by the product's normalizer). A
directory bundle can still carry a file name that is not UTF-8 (Linux hands
it back with surrogate escapes): the report names it as not in the manifest,
and the final writers escape it rather than crash.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from bundler.analyze.api import EvidenceSet
from bundler.analyze.engine import analyze
from bundler.analyze.rederive import rederive
from bundler.cli import cli
from bundler.products import get_profile
from schemas.evidence import WorkersEvidence
from tests.support.evidence import Fleet, write_bundle_dir
from tests.support.sample_bundles import load_sample

FORMATS = ("json", "text", "markdown", "html")
LONE = b"\\ud800"
"""A lone high surrogate, as JSON escapes it."""


def _analyze(bundle: Path, fmt: str, output: Path | None = None) -> tuple[int, str, str]:
    args = ["analyze", str(bundle), "--format", fmt]
    if output is not None:
        args += ["-o", str(output)]
    result = CliRunner().invoke(cli, args, env={"BUNDLER_DEBUG": ""})
    return result.exit_code, result.stdout, result.stderr


def _every_format(bundle: Path, tmp_path: Path) -> dict[str, str]:
    """Each format to stdout and to a file: never an internal error; the reports, by format."""
    reports = {}
    for fmt in FORMATS:
        code, out, err = _analyze(bundle, fmt)
        assert code in (0, 1, 3), (fmt, code, err)
        written = tmp_path / f"report.{fmt}"
        code, _, err = _analyze(bundle, fmt, written)
        assert code in (0, 1, 3), (fmt, code, err)
        assert written.read_text("utf-8") == out, fmt
        reports[fmt] = out
    json.loads(reports["json"])
    return reports


def _workers_with(fleet: Fleet, field: str) -> bytes:
    """``evidence/workers.json`` of ``fleet`` with ``field`` of w1 holding a lone surrogate."""
    assert fleet.workers is not None
    document = fleet.workers.model_dump(mode="json", by_alias=True)
    document["workers"][0][field] = "MARK"
    return json.dumps(document).encode().replace(b"MARK", b"w" + LONE + b"x")


@pytest.mark.parametrize("field", ["name", "native_status"])
def test_a_lone_surrogate_in_evidence_makes_the_document_invalid(
    tmp_path: Path, fleet: Fleet, field: str
) -> None:
    members = {WorkersEvidence.member_path: _workers_with(fleet, field)}
    fleet.workers = None
    bundle = write_bundle_dir(fleet, tmp_path / "b", members=members)
    reports = _every_format(bundle, tmp_path)
    problem = (
        "evidence/workers.json has a string that is not Unicode text at "
        f"/workers/0/{field} (an unpaired UTF-16 surrogate"
    )
    for fmt in ("json", "html"):
        assert problem in reports[fmt], fmt
    assert json.loads(reports["json"])["verdict"] != "healthy"


@pytest.mark.parametrize(
    ("old", "new", "where"),
    [
        (b'"bundle_id": "b-test-', b'"bundle_id": "b' + LONE + b"-", "/bundle_id"),
        (b'"name": "bundler"', b'"name": "' + LONE + b'"', "/tool/name"),
    ],
)
def test_a_lone_surrogate_in_the_manifest_leaves_it_unverified(
    tmp_path: Path, fleet: Fleet, old: bytes, new: bytes, where: str
) -> None:
    bundle = write_bundle_dir(fleet, tmp_path / "b")
    manifest = bundle / "manifest.json"
    assert old in manifest.read_bytes()
    manifest.write_bytes(manifest.read_bytes().replace(old, new))
    report = json.loads(_every_format(bundle, tmp_path)["json"])
    integrity = report["bundle"]["integrity"]
    assert integrity["status"] == "unverified"
    assert f"manifest.json has a string that is not Unicode text at {where}" in json.dumps(
        integrity
    )


def test_a_lone_surrogate_in_the_redaction_report_is_named_not_shown(
    tmp_path: Path, fleet: Fleet
) -> None:
    report = {"ruleset_id": "r", "ruleset_sha256": "0" * 64, "by_kind": {"MARK": 1}, "total": 1}
    data = json.dumps(report).encode().replace(b"MARK", b"k" + LONE)
    bundle = write_bundle_dir(fleet, tmp_path / "b", members={"redaction-report.json": data})
    html = _every_format(bundle, tmp_path)["html"]
    assert (
        "No redaction summary: member redaction-report.json has a string that is not Unicode "
        "text at /by_kind/k\\ud800"
    ) in html


def test_a_lone_surrogate_in_a_raw_response_is_a_gap_in_the_rederived_evidence() -> None:
    source, manifest = load_sample("lyftdata-healthy")
    raw = source.read_bytes("raw/http/workers.json")
    assert b'"group": "ingest"' in raw
    source.add("raw/http/workers.json", raw.replace(b'"ingest"', b'"in' + LONE + b'gest"'))
    profile = get_profile("lyftdata")
    used = rederive(EvidenceSet(source, manifest), profile)
    workers = used.evidence.get(WorkersEvidence)
    assert workers is not None
    assert workers.complete is False
    assert workers.gaps == ["http.workers"]
    report = analyze(used.evidence, profile=profile)
    assert report.verdict.value == "inconclusive"
    assert "\\udc00" not in report.model_dump_json()  # and it serializes


def test_a_file_name_that_is_not_utf8_is_reported_escaped(tmp_path: Path, fleet: Fleet) -> None:
    """The one way such text still reaches a report: the writers escape it, never crash."""
    bundle = write_bundle_dir(fleet, tmp_path / "b")
    (bundle / "evidence").joinpath(os.fsdecode(b"\xfe.json")).write_bytes(b"{}")
    reports = _every_format(bundle, tmp_path)
    for fmt in FORMATS:
        # Markdown escapes the backslash of the escape itself, so it renders as written.
        shown = "\\\\udcfe" if fmt == "markdown" else "\\udcfe"
        assert f"evidence/{shown}.json" in reports[fmt], fmt
    after = write_bundle_dir(fleet, tmp_path / "after")
    (after / "evidence").joinpath(os.fsdecode(b"\xfe.json")).write_bytes(b"{}")
    result = CliRunner().invoke(cli, ["diff", str(bundle), str(after), "--format", "text"])
    assert result.exit_code in (0, 1, 3), result.output
