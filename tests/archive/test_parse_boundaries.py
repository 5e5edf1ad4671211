"""Crash classes at the boundaries where bundle input is parsed: each one is a one-line error.

Deep JSON in bundle documents (anyone holding the public key can build such a
bundle in recipient mode), a deeply nested zip comment, a path component too
long for the file system, a folder given where a bundle is expected, and a
tampered core document that must read "failed verification", never "missing".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bundler.archive import PublicKey, Sealing, keygen
from bundler.jsondoc import MAX_JSON_DEPTH, JsonTooDeep, loads_bounded
from schemas import REDACTION_REPORT_SCHEMA
from tests.support.archive import build_bundle, craft_bundle, data_offset, flip_byte, manifest_for

from .readers import run_all, run_reader
from .zipsurgery import Zip

DEEP = b"[" * 100_000 + b"]" * 100_000


def test_nesting_is_capped_not_recursed() -> None:
    at_cap = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert loads_bounded(at_cap, "x") is not None
    assert loads_bounded('{"a": [{"b": 1}], "c": "[[[["}', "x")["c"] == "[[[["
    for deeper in ("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1), DEEP):
        with pytest.raises(JsonTooDeep, match="deeper than 128 levels"):
            loads_bounded(deeper, "member x")


def _with_schema(tmp_path: Path, member: str, schema: str) -> Path:
    document = json.loads(manifest_for({member: DEEP}))
    document["members"][0]["schema_name"] = schema
    manifest = json.dumps(document).encode()
    return craft_bundle(tmp_path / "deep.zip", {member: DEEP}, manifest=manifest)


@pytest.mark.parametrize(
    ("member", "schema"),
    [
        ("redaction-report.json", REDACTION_REPORT_SCHEMA),
        ("evidence/workers.json", "evidence.workers"),
    ],
)
def test_deep_json_in_a_document_is_a_named_problem(
    tmp_path: Path, member: str, schema: str
) -> None:
    seen = run_all(_with_schema(tmp_path, member, schema), tmp_path / "work")
    assert seen["verify"].code == 1
    assert f"{member}: {member} nests JSON deeper than 128 levels" in seen["verify"].text
    assert seen["review"].code == 2
    assert "unreadable: rejected" in seen["review"].stderr
    assert member in seen["review"].stderr
    assert seen["analyze"].code != 2
    if member.startswith("evidence/"):
        assert "nests JSON deeper than 128 levels" in seen["analyze"].stdout
    assert seen["extract"].code == 0  # the bytes are authentic; extract does not parse them


def test_a_deeply_nested_recipient_envelope_is_a_damaged_envelope(tmp_path: Path) -> None:
    _, identity, public = keygen(tmp_path / "vendor")
    sealing = Sealing.to_recipients((PublicKey.load(public),))
    path = build_bundle(tmp_path / "b.zip", {"a.log": b"x\n"}, sealing=sealing).path
    archive = Zip.parse(path.read_bytes())
    headline = archive.comment.partition(b"\n")[0]
    archive.comment = headline + b'\n{"bundler_envelope":' + b"[" * 30_000
    path.write_bytes(archive.pack())
    for reader, outcome in run_all(path, tmp_path / "work", identity=identity).items():
        assert outcome.code == 2, (reader, outcome.text)
        assert "envelope is damaged" in outcome.stderr, (reader, outcome.stderr)


def test_a_name_too_long_for_the_file_system_is_refused_before_writing(tmp_path: Path) -> None:
    member = "logs/" + "a" * 300 + ".log"
    path = build_bundle(tmp_path / "b.zip", {"ok.log": b"x\n", member: b"y\n"}).path
    seen = run_all(path, tmp_path / "work")
    assert seen["verify"].code == 0  # a valid bundle: only this file system cannot hold it
    assert seen["extract"].code == 2
    assert "longer than 255 bytes" in seen["extract"].stderr
    assert not (tmp_path / "work" / "extracted").exists()


@pytest.mark.parametrize("reader", ["verify", "inspect", "extract"])
def test_a_folder_gets_the_same_one_line_error_as_other_input(tmp_path: Path, reader: str) -> None:
    outcome = run_reader(reader, tmp_path, tmp_path / "work")
    assert outcome.code == 2
    assert outcome.stderr.splitlines()[0] == (
        f"bundler: error: {tmp_path} is a folder; `bundler {reader}` reads a sealed bundle "
        "(a .zip file)"
    )
    assert "bundler analyze DIR" in outcome.stderr


def test_a_core_document_that_fails_its_checksum_is_not_called_missing(tmp_path: Path) -> None:
    workers = json.dumps({"workers": []}).encode() + b" " * 2000
    path = build_bundle(tmp_path / "b.zip", {"evidence/workers.json": workers}).path
    flip_byte(path, data_offset(path, "evidence/workers.json") + 5)
    outcome = run_reader("analyze", path, tmp_path)
    report = json.loads(outcome.stdout)
    assert report["bundle"]["integrity"]["status"] == "tampered"
    text = json.dumps(report)
    assert "evidence/workers.json failed verification" in text
    assert "evidence/workers.json is not in the bundle" not in text
