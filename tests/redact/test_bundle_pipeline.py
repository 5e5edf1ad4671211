"""``bundler redact`` into a bundle: deflate in pass one, keep or redo in pass two, encrypt last.

The pool path runs in forked worker processes; a test that needs a worker to
misbehave patches the worker module before the pool forks.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from bundler.archive import BundleReader, PasswordKey, Sealing, Secret
from bundler.errors import OutputError
from bundler.redaction import handoff, workers
from bundler.redaction.config import RedactConfig
from bundler.redaction.handoff import new_key
from bundler.redaction.outputs import redact_to_bundle
from tests.support.requirements import need_executable

PASSWORD = "a long enough bundle password"
SECRET = b"Sekr3t-Value-77x"
LINES = 100_000  # about 6 MB over the tree: above the pool's minimum, so two workers start


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A tree where a rule finds SECRET in one file and it sits bare in another."""
    src = tmp_path / "src"
    (src / "logs").mkdir(parents=True)
    (src / "app.conf").write_bytes(b"db_password=" + SECRET + b"\n")
    (src / "logs" / "bare.log").write_bytes(
        b"".join(b"%06d connecting as svc ok\n" % i for i in range(LINES))
        + b"retrying with " + SECRET + b" after timeout\n"
    )  # fmt: skip
    (src / "logs" / "clean.log").write_bytes(
        b"".join(b"%06d heartbeat received from worker\n" % i for i in range(LINES))
    )
    (src / "logs" / "old.log.gz").write_bytes(
        gzip.compress(b"rotated: reconnect used " + SECRET + b"\n", mtime=0)
    )
    return src


def _redact(src: Path, out: Path, *, workers: int, key: bytes | None = None) -> Any:
    config = RedactConfig(key=key or os.urandom(32), handoff_key=new_key())
    return redact_to_bundle(src, out, config, Sealing.with_password(PASSWORD), workers=workers)


def _members(path: Path) -> dict[str, bytes]:
    with BundleReader.open(path, PasswordKey(Secret(PASSWORD))) as reader:
        assert not reader.check().problems
        return {name: reader.read_bytes(name) for name in reader.names()}


@pytest.mark.parametrize("count", [1, 2])
def test_a_literal_learned_in_one_file_is_removed_from_the_others(
    tree: Path, tmp_path: Path, count: int
) -> None:
    out = tmp_path / "b.zip"
    _redact(tree, out, workers=count)
    members = _members(out)
    assert SECRET not in members["logs/bare.log"]
    assert SECRET not in members["app.conf"]
    assert SECRET not in gzip.decompress(members["logs/old.log.gz"])
    assert b"retrying with [REDACTED:" in members["logs/bare.log"]
    assert members["logs/clean.log"] == (tree / "logs" / "clean.log").read_bytes()
    with BundleReader.open(out, PasswordKey(Secret(PASSWORD))) as reader:
        for entry in reader.manifest.members:  # type: ignore[union-attr]
            assert hashlib.sha256(members[entry.path]).hexdigest() == entry.sha256
            assert len(members[entry.path]) == entry.size


def test_pool_and_one_process_write_the_same_members(tree: Path, tmp_path: Path) -> None:
    key = os.urandom(32)
    _redact(tree, tmp_path / "one.zip", workers=1, key=key)
    _redact(tree, tmp_path / "two.zip", workers=2, key=key)
    one, two = _members(tmp_path / "one.zip"), _members(tmp_path / "two.zip")
    one.pop("manifest.json"), two.pop("manifest.json")  # bundle ids and times differ
    assert one == two


def test_seven_zip_opens_a_redacted_bundle(tree: Path, tmp_path: Path) -> None:
    seven_zip = need_executable("7z")
    out = tmp_path / "b.zip"
    _redact(tree, out, workers=2)
    tested = subprocess.run(
        [seven_zip, "t", f"-p{PASSWORD}", str(out)], capture_output=True, text=True, check=False
    )
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "Everything is Ok" in tested.stdout


PARENT = os.getpid()


def _crash(*_: Any) -> None:
    if os.getpid() == PARENT:
        raise AssertionError("expected to run in a pool worker, not in the test process")
    os._exit(9)  # a worker killed mid-task (the OOM killer, kill -9)


@pytest.mark.parametrize("stage", ["pass_one", "pass_two_deflated"])
def test_a_worker_crash_leaves_nothing_behind(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stage: str
) -> None:
    monkeypatch.setattr(workers, stage, _crash)  # inherited by the forked workers
    out = tmp_path / "b.zip"
    with pytest.raises(OutputError, match="worker process died"):
        _redact(tree, out, workers=2)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src"]


def test_a_stream_that_does_not_inflate_to_its_hash_is_refused(tmp_path: Path) -> None:
    config = RedactConfig(key=os.urandom(32), handoff_key=new_key())
    workers.init_worker(config)
    source = tmp_path / "one.log"
    source.write_bytes(b"plain line\n" * 1000)
    task = workers.Task(str(source), "one.log", str(tmp_path / "h"), "text/plain", 11000, True)
    first = workers.pass_one(task)
    assert first["deflated"][0] == 11000
    with pytest.raises(handoff.HandoffError, match="does not inflate"):
        workers.pass_two_deflated(task, str(tmp_path / "f"), first["state"], (11000, "0" * 64))


def test_damaged_handoff_files_are_a_one_line_error_and_nothing_is_written(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = workers.pass_one

    def damaging(task: workers.Task) -> dict[str, Any]:
        state = real(task)
        with open(task.handoff, "r+b") as handle:
            handle.seek(40)
            handle.write(b"\x00" * 8)
        return state

    monkeypatch.setattr(workers, "pass_one", damaging)
    out = tmp_path / "b.zip"
    with pytest.raises(OutputError, match="hand-off files were damaged"):
        _redact(tree, out, workers=1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src"]


def test_a_worker_seals_a_whole_member_as_the_zip_stores_it(tmp_path: Path) -> None:
    """Pass two encrypts the final stream in the worker; the coordinator only copies it."""
    from bundler.archive.deflate import inflate_raw
    from bundler.archive.sealed import unseal

    config = RedactConfig(
        key=os.urandom(32), handoff_key=new_key(), seal_password=PASSWORD.encode()
    )
    assert PASSWORD not in repr(config)
    workers.init_worker(config)
    source = tmp_path / "one.log"
    text = b"plain line\n" * 1000
    source.write_bytes(text)
    task = workers.Task(str(source), "one.log", str(tmp_path / "h"), "text/plain", 11000, True)
    first = workers.pass_one(task)
    result = workers.pass_two_deflated(task, str(tmp_path / "f"), first["state"], first["deflated"])
    sealed = Path(result["sealed"]).read_bytes()
    assert Path(result["sealed"]).stat().st_mode & 0o077 == 0
    assert b"plain line" not in sealed
    assert b"".join(inflate_raw(unseal(PASSWORD.encode(), [sealed]))) == text
    with pytest.raises(ValueError, match="password"):
        list(unseal(b"not the password", [sealed]))


@pytest.mark.parametrize("count", [1, 2])
def test_a_rule_files_literal_is_removed_in_every_form_by_the_pool_too(
    tree: Path, tmp_path: Path, count: int
) -> None:
    """Pass two's workers start from the coordinator's learned set (not their own): the
    rule file's literals, learned by every redactor built from the configuration, are in
    it, so their encoded forms go wherever the rule itself cannot see them (hex is not
    decoded at depth 0)."""
    literal = b"Acme-Internal-Name-01"
    (tree / "logs" / "encoded.log").write_bytes(b"blob " + literal.hex().encode() + b" end\n")
    rules = tmp_path / "rules.yaml"
    rules.write_text(f"version: 1\nrules:\n  - id: org\n    literals: ['{literal.decode()}']\n")
    config = RedactConfig(key=os.urandom(32), handoff_key=new_key(), rules_path=str(rules))
    out = tmp_path / "b.zip"
    redact_to_bundle(tree, out, config, Sealing.with_password(PASSWORD), workers=count)
    encoded = _members(out)["logs/encoded.log"]
    assert literal.hex().encode() not in encoded
    assert encoded.startswith(b"blob [REDACTED:")
    assert encoded.endswith(b" end\n")


def test_the_outcomes_report_is_the_one_the_bundle_holds(tree: Path, tmp_path: Path) -> None:
    """The report is built once, when the builder writes it, and returned as the outcome's."""
    out = tmp_path / "b.zip"
    outcome = _redact(tree, out, workers=2)
    held = _members(out)["redaction-report.json"]
    assert outcome.report.model_dump(mode="json", by_alias=True) == json.loads(held)
    assert outcome.report.by_kind  # the tree's secret was found: the report is not empty


def test_a_member_joined_from_segments_that_compresses_too_well_is_stored_uncompressed(
    tmp_path: Path,
) -> None:
    """A 64 MiB file is redacted in segments on two workers and joined by the writer from
    their deflate streams; one repeated line deflates past the 200:1 the readers refuse over
    16 MiB. The run failed; the member is now stored uncompressed, its bytes all there."""
    src = tmp_path / "src"
    src.mkdir()
    looping = (b"ERROR connect: connection refused" + b" " * 990 + b"\n") * (64 * 1024)
    (src / "spam.log").write_bytes(looping)
    phases: list[str] = []
    config = RedactConfig(key=os.urandom(32), handoff_key=new_key())
    out = tmp_path / "b.zip"
    outcome = redact_to_bundle(
        src, out, config, Sealing.with_password(PASSWORD), workers=2, progress=phases.append
    )
    assert any("(2 segments of big files)" in phase for phase in phases), phases
    assert outcome.uncompressed == ("spam.log",)
    assert _members(out)["spam.log"] == looping
