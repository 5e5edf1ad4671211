"""Crash classes at the boundaries where bundle input is parsed: each one is a one-line error.

Deep JSON in bundle documents (anyone holding the public key can build such a
bundle in recipient mode), a string that is not Unicode text (a lone UTF-16
surrogate, which JSON may escape), a deeply nested zip comment, a path component too
long for the file system, a folder given where a bundle is expected, and a
tampered core document that must read "failed verification", never "missing".
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bundler.archive import PublicKey, Sealing, keygen
from bundler.jsondoc import (
    MAX_JSON_DEPTH,
    JsonDuplicateKey,
    JsonNotFinite,
    JsonNotText,
    JsonTooDeep,
    loads_bounded,
)
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


def test_a_lone_surrogate_is_refused_and_named_by_where_it_is() -> None:
    for document, where in [
        (b'{"workers": [{"name": "w\\ud800x"}]}', "/workers/0/name"),
        (b'{"by_kind": {"k\\udfff/~": 1}}', "/by_kind/k\\udfff~1~0"),  # a key, shown escaped
        (b'["ok", "\xed\xa0\x80"]', "/1"),  # the 3-byte form json.loads lets through
        ('{"a": "\\ud800"}'.encode("utf-16"), "/a"),
        ('"\ud800"', "/"),  # text that already holds one
    ]:
        with pytest.raises(
            JsonNotText,
            match=f"member x has a string that is not Unicode text at {re.escape(where)} ",
        ):
            loads_bounded(document, "member x")
    paired = loads_bounded(b'{"e": "\\ud83d\\ude00", "k": "\xed\x95\x9c"}', "x")
    assert paired == {"e": "\U0001f600", "k": "\ud55c"}  # a pair and Hangul are text


def test_a_number_that_is_not_finite_is_refused_and_named_by_where_it_is() -> None:
    """Python's json reads NaN, Infinity and a number past a float's range (as inf)."""
    for document, where in [
        (b'{"collectors": [{"duration_s": 1e400}]}', "/collectors/0/duration_s"),
        (b'{"a": [1, NaN]}', "/a/1"),
        (b'{"a": {"b/~": -Infinity}}', "/a/b~1~0"),
        (b'{"t": Infinity}', "/t"),
        (b"[" + b"9" * 400 + b".5]", "/0"),  # no exponent, 400 digits: inf all the same
        (b"[1" + b"0" * 250 + b"e99]", "/0"),
        ("1E+309", "/"),
    ]:
        with pytest.raises(
            JsonNotFinite, match=f"member x has a number that is not finite at {re.escape(where)} "
        ):
            loads_bounded(document, "member x")
    finite = loads_bounded(b'{"small": 1e-400, "big": 1.7e308, "NaN": "Infinity e999"}', "x")
    assert finite == {"small": 0.0, "big": 1.7e308, "NaN": "Infinity e999"}
    assert loads_bounded(b"[" + b"9" * 400 + b"]", "x") == [int("9" * 400)]  # an int stays exact


def test_a_key_named_twice_is_refused_and_named_by_where_it_is() -> None:
    """Python's json keeps the last of two equal keys: the reading would be the parser's."""
    for document, where in [
        (b'{"status": "online", "status": "offline"}', "/status"),
        (b'[{"a": 1}, {"w": {"s": 1, "s": 2}}]', "/1/w/s"),
        (b'{"a/b~": 1, "a/b~": 2}', "/a~1b~0"),
        ('{"k\u00e9": 1, "k\u00e9": 2}', "/k\\xe9"),
    ]:
        with pytest.raises(
            JsonDuplicateKey, match=f"member x has a duplicate key at {re.escape(where)} "
        ):
            loads_bounded(document, "member x")
    assert loads_bounded(b'[{"s": 1}, {"s": 2}, {"S": 3, "s": 4}]', "x")[2] == {"S": 3, "s": 4}


def _with_schema(tmp_path: Path, member: str, schema: str, data: bytes = DEEP) -> Path:
    document = json.loads(manifest_for({member: data}))
    document["members"][0]["schema_name"] = schema
    manifest = json.dumps(document).encode()
    return craft_bundle(tmp_path / "deep.zip", {member: data}, manifest=manifest)


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


@pytest.mark.parametrize(
    ("member", "schema"),
    [
        ("redaction-report.json", REDACTION_REPORT_SCHEMA),
        ("evidence/workers.json", "evidence.workers"),
    ],
)
def test_a_lone_surrogate_in_a_document_is_a_named_problem(
    tmp_path: Path, member: str, schema: str
) -> None:
    data = b'{"workers": [{"name": "w\\ud800"}], "ruleset_id": "r"}'
    seen = run_all(_with_schema(tmp_path, member, schema, data), tmp_path / "work")
    named = f"{member} has a string that is not Unicode text at /"
    assert seen["verify"].code == 1
    assert named in seen["verify"].text
    assert seen["review"].code == 2
    assert seen["analyze"].code != 2
    if member.startswith("evidence/"):
        assert f"{named}workers/0/name" in seen["analyze"].stdout
    assert seen["extract"].code == 0


def test_a_lone_surrogate_in_the_manifest_is_an_invalid_manifest(tmp_path: Path) -> None:
    members = {"a.log": b"x\n"}
    manifest = manifest_for(members, bundle_id="MARK").replace(b"MARK", b"b\\udc00")
    path = craft_bundle(tmp_path / "b.zip", members, manifest=manifest)
    seen = run_all(path, tmp_path / "work")  # no reader crashes (exit 70)
    named = "manifest.json has a string that is not Unicode text at /bundle_id"
    assert seen["verify"].code == 1  # as for any invalid manifest: tampered, named
    assert named in seen["verify"].text
    for reader in ("extract", "review"):
        assert seen[reader].code == 2, reader
        assert named in seen[reader].stderr, reader
    assert seen["analyze"].integrity() == "tampered"


def test_a_number_that_is_not_finite_in_the_manifest_is_an_invalid_manifest(tmp_path: Path) -> None:
    """A collector's duration of 1e400 was accepted (inspect printed ``inf``): no reader
    crashes or accepts it; each names it, as for any invalid manifest."""
    members = {"a.log": b"x\n"}
    collector = {"id": "http.workers", "kind": "http", "target": "x", "status": "ok"}
    manifest = manifest_for(members, collectors=[{**collector, "duration_s": 12345.5}])
    path = craft_bundle(
        tmp_path / "b.zip", members, manifest=manifest.replace(b"12345.5", b"1e400")
    )
    seen = run_all(path, tmp_path / "work")  # no reader crashes (exit 70)
    named = "manifest.json has a number that is not finite at /collectors/0/duration_s"
    assert seen["verify"].code == 1
    assert named in seen["verify"].text
    for reader in ("extract", "review"):
        assert seen[reader].code == 2, reader
        assert named in seen[reader].stderr, reader
    assert seen["inspect"].code == 1  # an integrity problem visible without the contents
    assert named in seen["inspect"].stdout
    assert "inf s" not in seen["inspect"].stdout
    assert seen["analyze"].integrity() == "tampered"


@pytest.mark.parametrize(
    ("member", "schema"),
    [
        ("redaction-report.json", REDACTION_REPORT_SCHEMA),
        ("evidence/workers.json", "evidence.workers"),
    ],
)
def test_a_number_that_is_not_finite_in_a_document_is_a_named_problem(
    tmp_path: Path, member: str, schema: str
) -> None:
    data = b'{"workers": [{"name": "w1", "heartbeat_age_s": 1e400}], "total": NaN}'
    seen = run_all(_with_schema(tmp_path, member, schema, data), tmp_path / "work")
    named = f"{member} has a number that is not finite at /"
    assert seen["verify"].code == 1
    assert named in seen["verify"].text
    assert seen["review"].code == 2
    assert seen["analyze"].code not in (0, 2, 70)
    if member.startswith("evidence/"):
        assert f"{named}workers/0/heartbeat_age_s" in seen["analyze"].stdout
    assert seen["extract"].code == 0  # the bytes are authentic; extract does not parse them


@pytest.mark.parametrize(
    ("member", "schema"),
    [
        ("redaction-report.json", REDACTION_REPORT_SCHEMA),
        ("evidence/workers.json", "evidence.workers"),
    ],
)
def test_a_key_named_twice_in_a_document_is_a_named_problem(
    tmp_path: Path, member: str, schema: str
) -> None:
    """Which of a worker's two states the analysis judged was the order of its keys."""
    data = b'{"workers": [{"name": "w1", "connection": "online", "connection": "offline"}]}'
    seen = run_all(_with_schema(tmp_path, member, schema, data), tmp_path / "work")
    named = f"{member} has a duplicate key at /"
    assert seen["verify"].code == 1
    assert named in seen["verify"].text
    assert seen["review"].code == 2
    assert seen["analyze"].code not in (0, 2, 70)
    if member.startswith("evidence/"):
        assert f"{named}workers/0/connection" in seen["analyze"].stdout
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
