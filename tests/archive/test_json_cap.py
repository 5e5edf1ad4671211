"""The JSON cap is a reader's limit like the others: set by environment, named when it refuses.

``BUNDLER_MAX_JSON_BYTES`` (default 256 MiB) caps one JSON document a reader parses.
It can be lowered, so these tests use kilobytes where a real fleet needs hundreds of
megabytes, and a malformed value is a one-line usage error. What it refuses is never
vouched for: ``verify`` does not call an evidence document over it valid, and ``review``
(which reads every member to its end whatever its size) then rejects the bundle rather
than calling it clean.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from bundler.archive import ReaderLimits
from bundler.cli import cli
from bundler.errors import UsageError
from bundler.source import (
    DEFAULT_MAX_JSON_BYTES,
    DirectorySource,
    JsonTooLarge,
    MemorySource,
    max_json_bytes,
    read_json,
)
from schemas.evidence import WorkersEvidence
from tests.support.archive import PASSWORD, build_bundle, open_test_bundle
from tests.support.sample_bundles import write_sample_dir

from .readers import SECRET

ENV = {"BUNDLE_PW": PASSWORD, "BUNDLER_DEBUG": ""}


def _run(*argv: str, cap: str | None = None) -> tuple[int, str, str]:
    env = ENV | ({"BUNDLER_MAX_JSON_BYTES": cap} if cap is not None else {})
    result = CliRunner().invoke(cli, [*argv, "--password-env", "BUNDLE_PW"], env=env)
    return result.exit_code, result.stdout, result.stderr


def test_the_cap_defaults_to_256_mib_and_reads_the_environment() -> None:
    assert max_json_bytes({}) == DEFAULT_MAX_JSON_BYTES == 256 << 20
    assert max_json_bytes({"BUNDLER_MAX_JSON_BYTES": "512MiB"}) == 512 << 20
    assert max_json_bytes({"BUNDLER_MAX_JSON_BYTES": "4096"}) == 4096


@pytest.mark.parametrize("value", ["lots", "0", "-1", "1.5GiB"])
def test_a_malformed_cap_is_refused_when_a_bundle_is_opened(value: str) -> None:
    with pytest.raises(UsageError, match="BUNDLER_MAX_JSON_BYTES"):
        max_json_bytes({"BUNDLER_MAX_JSON_BYTES": value})
    with pytest.raises(UsageError, match="BUNDLER_MAX_JSON_BYTES"):
        ReaderLimits.from_env({"BUNDLER_MAX_JSON_BYTES": value})


def test_read_json_refuses_past_the_cap_naming_member_size_limit_and_setting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    source = MemorySource({"raw/http/workers.json": b"[]" + b" " * 3000})
    monkeypatch.setenv("BUNDLER_MAX_JSON_BYTES", "2KiB")
    with pytest.raises(JsonTooLarge) as refused:
        read_json(source, "raw/http/workers.json")
    assert isinstance(refused.value, ValueError)  # like malformed JSON, to every catcher
    assert str(refused.value) == (
        "raw/http/workers.json is 2.9 KiB, over the 2.0 KiB a reader parses as one JSON "
        "document (BUNDLER_MAX_JSON_BYTES=1MiB reads it)"
    )
    monkeypatch.setenv("BUNDLER_MAX_JSON_BYTES", "4KiB")
    assert read_json(source, "raw/http/workers.json") == []


class ReadCounting(DirectorySource):
    """A real directory source that counts what is read through it, and refuses to read a
    member whole (as the old ``read_json`` did first): a 10 GiB read is the bug."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.read = 0

    def read_bytes(self, name: str) -> bytes:
        raise AssertionError(f"{name} read whole")

    def iter_chunks(self, name: str, chunk_size: int = 1 << 20) -> Iterator[bytes]:
        for chunk in super().iter_chunks(name, chunk_size):
            self.read += len(chunk)
            yield chunk


def test_a_member_declared_over_the_cap_is_refused_without_being_read(tmp_path: Path) -> None:
    """A 10 GiB member (a sparse file: no disk) is refused from its declared size alone."""
    member = tmp_path / "raw" / "http" / "workers.json"
    member.parent.mkdir(parents=True)
    with member.open("wb") as handle:
        handle.truncate(10 << 30)
    source = ReadCounting(tmp_path)
    with pytest.raises(JsonTooLarge) as refused:
        read_json(source, "raw/http/workers.json")
    assert (refused.value.size, refused.value.limit) == (10 << 30, DEFAULT_MAX_JSON_BYTES)
    assert source.read == 0


def test_a_bundle_member_over_the_cap_is_refused_from_its_directory_record(
    tmp_path: Path,
) -> None:
    """In a sealed bundle the size is the zip directory's, which the reader never inflates
    past: the member is refused before a byte of it is decrypted."""
    body = b"[]" + b" " * (3 << 20)
    sealed = build_bundle(tmp_path / "b.zip", {"raw/http/workers.json": body})
    with open_test_bundle(sealed.path) as reader:
        assert reader.member_size("raw/http/workers.json") == len(body)
        with pytest.raises(JsonTooLarge) as refused:
            read_json(reader, "raw/http/workers.json", max_bytes=1 << 20)
        problems = reader.check().problems  # the member itself is sound, and still readable
    assert refused.value.size == len(body)
    assert problems == []


class Unsized(ReadCounting):
    """A source that cannot say a member's size before reading it (a view of another)."""

    member_size = None  # type: ignore[assignment]


def test_a_member_of_unknown_size_is_read_no_further_than_the_cap(tmp_path: Path) -> None:
    member = tmp_path / "raw" / "http" / "workers.json"
    member.parent.mkdir(parents=True)
    member.write_bytes(b"[]" + b" " * (8 << 20))
    source = Unsized(tmp_path)
    with pytest.raises(JsonTooLarge):
        read_json(source, "raw/http/workers.json", max_bytes=2 << 20)
    assert 2 << 20 < source.read <= 3 << 20  # one chunk past the cap, not 8 MiB
    assert read_json(source, "raw/http/workers.json", max_bytes=9 << 20) == []


def _workers_document(size: int) -> bytes:
    document = WorkersEvidence(product="flux").model_dump_json().encode()
    return document + b" " * (size - len(document))


def test_verify_does_not_vouch_for_evidence_over_the_cap_and_review_rejects_it(
    tmp_path: Path,
) -> None:
    path = build_bundle(
        tmp_path / "b.zip",
        {"evidence/workers.json": _workers_document(8000)},
        media_types={"evidence/workers.json": "application/json"},
        schema_names={"evidence/workers.json": WorkersEvidence.schema_name},
    ).path
    assert _run("verify", str(path))[0] == 0
    assert _run("review", str(path))[0] == 0
    code, out, _ = _run("verify", str(path), cap="4KiB")
    assert code == 1
    assert "evidence/workers.json: not validated: evidence/workers.json is 7.8 KiB" in out
    assert "BUNDLER_MAX_JSON_BYTES=1MiB reads it" in out
    code, _, err = _run("review", str(path), cap="4KiB")
    assert code == 2
    assert "unreadable: rejected: not validated: evidence/workers.json" in err


def test_review_reads_a_raw_member_over_the_cap_to_its_end(tmp_path: Path) -> None:
    """A secret past the cap is found: the cap bounds parsing, never what review scans."""
    body = b'{"workers": []}' + b" " * 6000 + b"\n"
    members = {"raw/http/clean.json": body}
    clean = build_bundle(tmp_path / "clean.zip", members).path
    assert _run("review", str(clean), cap="4KiB")[0] == 0
    leaky = build_bundle(tmp_path / "leaky.zip", {"raw/http/leak.json": body + SECRET}).path
    code, out, _ = _run("review", str(leaky), cap="4KiB")
    assert code == 1
    assert "raw/http/leak.json:2" in out


def test_a_manifest_over_its_limit_names_the_setting_that_raises_it(tmp_path: Path) -> None:
    path = build_bundle(tmp_path / "b.zip", {"notes/a.txt": b"fine\n"}).path
    result = CliRunner().invoke(
        cli,
        ["inspect", str(path), "--password-env", "BUNDLE_PW"],
        env=ENV | {"BUNDLER_MAX_MANIFEST_BYTES": "100"},
    )
    assert result.exit_code == 2
    assert "raise BUNDLER_MAX_MANIFEST_BYTES if genuine" in result.stderr


@pytest.mark.parametrize("command", ["analyze", "doctor"])
def test_a_malformed_cap_is_a_usage_error_before_anything_is_read(
    command: str, tmp_path: Path
) -> None:
    """A directory's documents are read through the cap too, and doctor's normalizer reads
    what it collected with it: both refuse a malformed one first, in one line."""
    if command == "analyze":
        argv = ["analyze", str(write_sample_dir("flux-healthy", tmp_path / "b", {}))]
    else:  # nothing listens there: a run that got as far as collecting would say so
        argv = ["doctor", "--profile", "flux", "--server", "http://127.0.0.1:9", "--json"]
    result = CliRunner().invoke(cli, argv, env={"BUNDLER_MAX_JSON_BYTES": "lots"})
    assert result.exit_code == 2
    error = "bundler: error: BUNDLER_MAX_JSON_BYTES must be a positive size such as 20GiB"
    assert [line for line in result.stderr.splitlines() if "error" in line] == [
        f"{error} or 100000 (got 'lots')"
    ]
    assert result.stdout == ""


@pytest.mark.parametrize("kind", ["bundle", "directory", "file"])
@pytest.mark.parametrize("variable", ["BUNDLER_MAX_JSON_BYTES", "BUNDLER_MAX_MEMBERS"])
def test_review_refuses_a_malformed_limit_whatever_it_reviews(
    kind: str, variable: str, tmp_path: Path
) -> None:
    """Opening a bundle reads the limits and refused a malformed one (exit 2); a directory
    or a plain file was reviewed as if it were not set, and called clean (exit 0)."""
    sealed = build_bundle(tmp_path / "b.zip", {"raw/http/workers.json": b"[]"})
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "workers.json").write_bytes(b"[]")
    target = {"bundle": sealed.path, "directory": folder, "file": folder / "workers.json"}[kind]
    result = CliRunner().invoke(
        cli, ["review", str(target), "--password-env", "BUNDLE_PW"], env=ENV | {variable: "lots"}
    )
    assert result.exit_code == 2, result.stderr
    assert [line for line in result.stderr.splitlines() if "error" in line] == [
        f"bundler: error: {variable} must be a positive size such as 20GiB or 100000 (got 'lots')"
    ]
    assert result.stdout == ""


def test_a_directory_manifest_over_the_cap_is_named_not_called_invalid_json(
    tmp_path: Path,
) -> None:
    """An extracted bundle's manifest is read through the cap: over it, the analysis says
    which limit it broke (and, without checksums, cannot call the bundle verified)."""
    bundle = write_sample_dir("lyftdata-healthy", tmp_path / "b", {})
    size = (bundle / "manifest.json").stat().st_size
    result = CliRunner().invoke(
        cli, ["analyze", str(bundle), "--format", "json"], env={"BUNDLER_MAX_JSON_BYTES": "20KiB"}
    )
    assert result.exit_code == 3, result.output
    [problem] = json.loads(result.stdout)["bundle"]["integrity"]["problems"]
    assert problem.startswith(f"manifest.json is {size / 1024:.1f} KiB, over the 20.0 KiB")
    assert problem.endswith("reads it): checksums cannot be verified")
