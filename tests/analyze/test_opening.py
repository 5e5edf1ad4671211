"""Opening bundles for analysis, and integrity checked in the same pass that reads them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bundler.analyze.opening import open_for_analysis, read_manifest
from bundler.analyze.verify import VerifyingSource
from bundler.errors import InputError, NotABundle
from bundler.source import DirectorySource, MemorySource, iter_lines
from tests.support.evidence import Fleet, write_bundle_dir

LOG = b"".join(
    b"2026-11-29 17:00:%02d - flux.server - INFO - line %d\n" % (i % 60, i) for i in range(500)
)


@pytest.fixture
def bundle(tmp_path: Path, fleet: Fleet) -> Path:
    return write_bundle_dir(fleet, tmp_path / "b", members={"hosts/h01/logs/1.log": LOG})


def test_clean_bundle_verifies(bundle: Path) -> None:
    with open_for_analysis(bundle) as opened:
        assert opened.manifest is not None
        assert opened.integrity().status == "verified"


def test_streamed_members_are_checked_without_a_second_read(bundle: Path) -> None:
    reads: list[str] = []

    class Counting(DirectorySource):
        def iter_chunks(self, name: str, chunk_size: int = 1 << 20):  # type: ignore[no-untyped-def]
            reads.append(name)
            yield from super().iter_chunks(name, chunk_size)

    inner = Counting(bundle)
    manifest, _ = read_manifest(inner)
    source = VerifyingSource(inner, manifest)
    assert sum(1 for _ in iter_lines(source, "hosts/h01/logs/1.log")) == 500
    assert source.finish().status == "verified"
    assert reads.count("hosts/h01/logs/1.log") == 1  # hashed while streaming, not re-read


def test_tampered_member_is_reported(bundle: Path) -> None:
    (bundle / "hosts/h01/logs/1.log").write_bytes(LOG.replace(b"line 7\n", b"line 8\n"))
    with open_for_analysis(bundle) as opened:
        integrity = opened.integrity()
    assert integrity.status == "tampered"
    assert integrity.problems == ["checksum mismatch: hosts/h01/logs/1.log"]


def test_unlisted_member_is_tampering_and_missing_member_is_partial(bundle: Path) -> None:
    (bundle / "evidence/extra.json").write_text("{}")
    with open_for_analysis(bundle) as opened:
        assert opened.integrity().problems == ["member not in the manifest: evidence/extra.json"]
    (bundle / "evidence/extra.json").unlink()
    (bundle / "hosts/h01/logs/1.log").unlink()
    with open_for_analysis(bundle) as opened:
        integrity = opened.integrity()
    assert integrity.status == "partial"
    assert integrity.problems == ["listed member missing: hosts/h01/logs/1.log"]


def test_interrupted_collection_is_partial(tmp_path: Path, fleet: Fleet) -> None:
    root = write_bundle_dir(fleet, tmp_path / "b", interrupted=True)
    with open_for_analysis(root) as opened:
        assert opened.integrity().status == "partial"


def test_without_manifest_it_is_analyzed_but_unverified(bundle: Path) -> None:
    (bundle / "manifest.json").unlink()
    with open_for_analysis(bundle) as opened:
        assert opened.manifest is None
        integrity = opened.integrity()
    assert integrity.status == "unverified"
    assert "no manifest.json" in integrity.problems[0]


def test_schema_invalid_manifest_is_unverified(bundle: Path) -> None:
    data = json.loads((bundle / "manifest.json").read_text())
    del data["bundle_id"]
    (bundle / "manifest.json").write_text(json.dumps(data))
    with open_for_analysis(bundle) as opened:
        integrity = opened.integrity()
    assert integrity.status == "unverified"
    assert integrity.problems == ["manifest.json is invalid at /bundle_id: Field required"]


def test_unknown_format_major_is_refused(bundle: Path) -> None:
    data = json.loads((bundle / "manifest.json").read_text())
    data["format"] = "bundler/2.0"
    (bundle / "manifest.json").write_text(json.dumps(data))
    with pytest.raises(NotABundle, match="needs a newer bundler"):
        open_for_analysis(bundle)


def test_not_a_bundle_and_missing_path(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(NotABundle, match="holds no bundle"):
        open_for_analysis(tmp_path)
    with pytest.raises(InputError, match="no such file"):
        open_for_analysis(tmp_path / "nope")


def test_partially_read_member_is_verified_at_the_end() -> None:
    source = MemorySource({"a.log": b"x" * 3_000_000})
    import hashlib
    from datetime import UTC, datetime

    from schemas import EncryptionInfo, Manifest, MemberEntry, ToolInfo

    data = source.read_bytes("a.log")
    manifest = Manifest(
        tool=ToolInfo(version="0"),
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        bundle_id="x",
        encryption=EncryptionInfo(mode="password"),
        members=[
            MemberEntry(path="a.log", sha256=hashlib.sha256(data).hexdigest(), size=len(data))
        ],
    )
    verifying = VerifyingSource(source, manifest)
    next(iter(verifying.iter_chunks("a.log")))  # stop after the first chunk
    assert verifying.finish().status == "verified"


def test_tampered_evidence_is_not_trusted(tmp_path: Path, fleet: Fleet) -> None:
    from bundler.analyze.engine import analyze
    from schemas import Layer, LayerStatus

    bundle = write_bundle_dir(fleet, tmp_path / "b")
    path = bundle / "evidence" / "outcome.json"
    path.write_text(path.read_text().replace('"phase": "successful"', '"phase": "failed"'))
    with open_for_analysis(bundle) as opened:
        report = analyze(opened.evidence(), job="ingest")
        integrity = opened.integrity()
    assert integrity.status == "tampered"
    assert integrity.problems == ["checksum mismatch: evidence/outcome.json"]
    outcome = report.targets[0].layers[Layer.OUTCOME.index]
    assert outcome.status is LayerStatus.UNKNOWN  # the forged "failed" is not believed
