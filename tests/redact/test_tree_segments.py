"""bundler redact splits one big file across the pool, and the result is the one-process result.

Segments are made small here (``SEGMENT_MIN`` patched down) so a few MB
exercise them: planning the cuts, the joins of the deflate streams, a
literal found in or across segments (the member is finalized whole), a
segment that cannot stop where it was cut (the member is redacted whole),
the directory output, and 7-Zip opening a member made of joined streams.
"""

from __future__ import annotations

import json
import os
import random
import string
import subprocess
from pathlib import Path
from typing import Any

import pytest

from bundler.archive import BundleReader, PasswordKey, Secret
from bundler.archive.passwords import Sealing
from bundler.redaction import segments, tree
from bundler.redaction.config import RedactConfig
from bundler.redaction.handoff import new_key
from bundler.redaction.outputs import redact_to_bundle, redact_to_directory
from tests.support.requirements import need_executable

from .corpus import RSA, RSA_BODY

PASSWORD = "a long enough bundle password"
KEY = b"s" * 32
SECRET_EARLY = "Early-Bare-Literal-" + "7f3a9c"
LINE_SECRETS = [f"Seg-Pw-{i:04d}-{i * 7919 % 10007:05d}" for i in range(400)]


@pytest.fixture(autouse=True)
def small_segments(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(segments, "SEGMENT_MIN", 256 << 10)


def _log(lines: int, seed: int, *, bare_first: bool = False) -> bytes:
    """A log with a secret per few hundred lines, a private key, and one value that is bare
    near the start but only recognisable (after ``password=``) near the end."""
    rng = random.Random(seed)
    out = []
    if bare_first:
        out.append(f"2026-11-30 note {SECRET_EARLY} appeared\n")
    for i in range(lines):
        word = "".join(rng.choice(string.ascii_lowercase) for _ in range(12))
        if i == lines // 3:
            out.append(RSA + "\n")
        elif i % 250 == 0:
            out.append(f"2026-11-30 job={i} db_password={LINE_SECRETS[i // 250 % 400]} ok\n")
        else:
            out.append(f"2026-11-30T00:00:00Z worker-{i % 7} step {i} {word} done\n")
    out.append(f"2026-11-30 config password={SECRET_EARLY}\n")
    return "".join(out).encode()


def _config() -> RedactConfig:
    return RedactConfig(key=KEY, handoff_key=new_key())


def _bundle(src: Path, out: Path, workers: int) -> tuple[dict[str, bytes], dict[str, Any], Any]:
    outcome = redact_to_bundle(
        src, out, _config(), Sealing.with_password(PASSWORD), workers=workers
    )
    with BundleReader.open(out, PasswordKey(Secret(PASSWORD))) as reader:
        assert reader.check().problems == []
        members = {n: reader.read_bytes(n) for n in reader.names() if n.endswith(".log")}
        manifest = json.loads(reader.read_bytes("manifest.json"))
    return members, manifest, outcome


def _lines(outcome: Any) -> list[tuple[str, int | None, str]]:
    return sorted(
        (f.member, h.line, h.token) for f in outcome.report.files for h in f.hits
    )  # fmt: skip


@pytest.fixture
def source(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    (src / "big.log").write_bytes(_log(90_000, 1))
    (src / "small.log").write_bytes(b"token=ghp_" + b"a1B2" * 9 + b"\n")
    return src


def _planned(run: list[tree.Member]) -> list[int]:
    return [len(m.parts) for m in run]


def test_a_big_file_is_split_and_gives_the_one_process_bundle(
    source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parts: list[list[int]] = []
    real = tree.TreeRedaction.pass_one

    def spy(self: tree.TreeRedaction, *args: Any, **kwargs: Any) -> list[tree.Member]:
        members = real(self, *args, **kwargs)
        parts.append(_planned(members))
        return members

    monkeypatch.setattr(tree.TreeRedaction, "pass_one", spy)
    refinalized = _spy_refinalize(monkeypatch)
    one, one_manifest, one_outcome = _bundle(source, tmp_path / "one.zip", workers=1)
    two, two_manifest, two_outcome = _bundle(source, tmp_path / "two.zip", workers=2)
    assert parts == [[1, 1], [4, 1]]
    assert refinalized == [0, 0]  # nothing to change: the segments' streams are joined as made
    assert two == one
    assert _lines(two_outcome) == _lines(one_outcome)
    entries = {e["path"]: (e["sha256"], e["size"]) for e in two_manifest["members"]}
    assert entries == {e["path"]: (e["sha256"], e["size"]) for e in one_manifest["members"]}
    joined = b"".join(two.values())
    assert RSA_BODY[0].encode() in (source / "big.log").read_bytes()
    assert not any(s.encode() in joined for s in LINE_SECRETS)
    assert not any(line.encode() in joined for line in RSA_BODY)


def _spy_runs(monkeypatch: pytest.MonkeyPatch) -> list[tree.TreeRedaction]:
    """Every TreeRedaction that runs pass one, to read its counters afterwards."""
    runs: list[tree.TreeRedaction] = []
    real = tree.TreeRedaction.pass_one

    def spy(self: tree.TreeRedaction, *args: Any, **kwargs: Any) -> list[tree.Member]:
        runs.append(self)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(tree.TreeRedaction, "pass_one", spy)
    return runs


def _spy_refinalize(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    refinalized: list[int] = []
    real = tree.TreeRedaction._refinalize

    def spy(self: tree.TreeRedaction, members: list[tree.Member], target_of: Any) -> Any:
        refinalized.append(len(members))
        return real(self, members, target_of)

    monkeypatch.setattr(tree.TreeRedaction, "_refinalize", spy)
    return refinalized


def _spy_finished_parts(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, list[int]]]:
    finished: list[dict[str, list[int]]] = []
    real = tree.TreeRedaction._finish_segments

    def spy(self: tree.TreeRedaction, members: list[tree.Member], changed: Any) -> Any:
        finished.append({k: [t.part for t, _ in v] for k, v in changed.items()})
        return real(self, members, changed)

    monkeypatch.setattr(tree.TreeRedaction, "_finish_segments", spy)
    return finished


@pytest.mark.parametrize("output", ["bundle", "directory"])
def test_a_value_learned_late_and_bare_early_is_removed_from_that_segment_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, output: str
) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "big.log").write_bytes(_log(90_000, 2, bare_first=True))
    refinalized = _spy_refinalize(monkeypatch)
    finished = _spy_finished_parts(monkeypatch)
    if output == "bundle":
        one, _, one_outcome = _bundle(src, tmp_path / "one.zip", workers=1)
        two, _, two_outcome = _bundle(src, tmp_path / "two.zip", workers=2)
    else:
        one_outcome = redact_to_directory(src, tmp_path / "one", _config(), workers=1)
        two_outcome = redact_to_directory(src, tmp_path / "two", _config(), workers=2)
        one = {"big.log": (tmp_path / "one" / "big.log").read_bytes()}
        two = {"big.log": (tmp_path / "two" / "big.log").read_bytes()}
        assert {f.member: f.sha256 for f in two_outcome.report.files} == {
            f.member: f.sha256 for f in one_outcome.report.files
        }
    assert refinalized == [0, 0]  # no member finalized in one piece
    assert finished == [{}, {"big.log": [0]}]  # one process: none; two: the first segment alone
    assert two == one
    assert _lines(two_outcome) == _lines(one_outcome)
    assert SECRET_EARLY.encode() not in two["big.log"]


def test_a_value_across_a_cut_is_found_and_the_member_finalized_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cuts are line starts, and learned values rarely hold a newline, but a cut may fall
    inside one (a multi-line value): here a cut is forced into the middle of a bare value."""
    src = tmp_path / "src"
    src.mkdir()
    value = b"Straddle-Literal-91xQ"
    data = _log(90_000, 3) + b"bare " + value + b" here\n" + _log(20_000, 4)
    data += b"2026-11-30 config password=" + value + b"\n"
    (src / "big.log").write_bytes(data)
    inside = data.index(value) + 9
    monkeypatch.setattr(segments, "plan_cuts", lambda path, size, parts: [inside])
    refinalized = _spy_refinalize(monkeypatch)
    one, _, _ = _bundle(src, tmp_path / "one.zip", workers=1)
    two, _, _ = _bundle(src, tmp_path / "two.zip", workers=2)
    assert refinalized == [0, 1]
    assert two == one
    assert value not in two["big.log"]


def test_a_segment_that_cannot_stop_at_its_cut_makes_the_member_redact_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = tmp_path / "src"
    src.mkdir()
    data = _log(90_000, 5)
    (src / "big.log").write_bytes(data)
    inside_key = data.index(RSA_BODY[3].encode())
    monkeypatch.setattr(segments, "plan_cuts", lambda path, size, parts: [inside_key])
    one, _, one_outcome = _bundle(src, tmp_path / "one.zip", workers=1)
    runs = _spy_runs(monkeypatch)
    two, _, two_outcome = _bundle(src, tmp_path / "two.zip", workers=2)
    assert runs[0].resegmented == 1
    assert two == one
    assert _lines(two_outcome) == _lines(one_outcome)
    assert not any(line.encode() in two["big.log"] for line in RSA_BODY)


def test_a_file_that_shrinks_after_its_cuts_were_planned_is_redacted_as_it_now_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A log rotated (truncated) while bundler reads it: no error, no half-joined member."""
    src = tmp_path / "src"
    src.mkdir()
    big = src / "big.log"
    big.write_bytes(_log(90_000, 6))
    planned = segments.plan_cuts

    def plan_then_truncate(path: Path, size: int, parts: int) -> list[int]:
        cuts = planned(path, size, parts)
        with big.open("r+b") as handle:
            handle.truncate(cuts[-1] - 100)
        return cuts

    monkeypatch.setattr(segments, "plan_cuts", plan_then_truncate)
    runs = _spy_runs(monkeypatch)
    two, _, _ = _bundle(src, tmp_path / "two.zip", workers=2)
    assert runs[0].resegmented == 1
    now = big.read_bytes()
    (tmp_path / "now").mkdir()
    (tmp_path / "now" / "big.log").write_bytes(now)
    one, _, _ = _bundle(tmp_path / "now", tmp_path / "one.zip", workers=1)
    assert two == one


def test_a_big_file_to_a_directory_is_the_one_process_directory(
    source: Path, tmp_path: Path
) -> None:
    one = redact_to_directory(source, tmp_path / "one", _config(), workers=1)
    two = redact_to_directory(source, tmp_path / "two", _config(), workers=2)
    for name in ("big.log", "small.log"):
        assert (tmp_path / "two" / name).read_bytes() == (tmp_path / "one" / name).read_bytes()
    assert _lines(two) == _lines(one)
    assert {f.member: f.sha256 for f in two.report.files} == {
        f.member: f.sha256 for f in one.report.files
    }


def test_a_member_of_joined_deflate_streams_opens_in_7z(source: Path, tmp_path: Path) -> None:
    seven_zip = need_executable("7z")
    members, _, _ = _bundle(source, tmp_path / "two.zip", workers=2)
    out = tmp_path / "x"
    done = subprocess.run(
        [seven_zip, "x", f"-p{PASSWORD}", f"-o{out}", str(tmp_path / "two.zip")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (out / "big.log").read_bytes() == members["big.log"]


def test_cuts_are_line_starts_after_quiet_lines(tmp_path: Path) -> None:
    data = _log(90_000, 4)
    path = tmp_path / "big.log"
    path.write_bytes(data)
    cuts = segments.plan_cuts(path, len(data), 4)
    assert len(cuts) == 3
    assert cuts == sorted(cuts)
    for cut in cuts:
        assert data[cut - 1 : cut] == b"\n"
        previous = data[data.rfind(b"\n", 0, cut - 1) + 1 : cut - 1]
        assert not segments._RISKY_LINE.search(previous)


def test_a_giant_line_gets_no_cut(tmp_path: Path) -> None:
    path = tmp_path / "one-line.json"
    path.write_bytes(b'{"k": "' + b"x" * (4 << 20) + b'"}')
    assert segments.plan_cuts(path, os.path.getsize(path), 4) == []


@pytest.mark.parametrize(
    ("size", "total", "workers", "parts"),
    [
        (300 << 20, 300 << 20, 2, 4),
        (300 << 20, 300 << 20, 1, 1),
        (16 << 20, 16 << 20, 2, 1),
        (25 << 20, 200 << 20, 2, 1),
        (1 << 30, (1 << 30) + (20 << 20), 2, 4),
    ],
)
def test_how_many_segments(
    monkeypatch: pytest.MonkeyPatch, size: int, total: int, workers: int, parts: int
) -> None:
    monkeypatch.setattr(segments, "SEGMENT_MIN", 32 << 20)
    assert segments.parts_for(size, total, workers) == parts


def test_a_big_file_with_a_gzip_appended_is_left_out_not_split_and_kept(tmp_path: Path) -> None:
    """Text with a gzip stream appended after its head: the segment that meets the stream
    cannot be redacted as text, so the member is redacted whole, which leaves it out (as
    ``review`` would refuse it). Before, the appended stream was written as it came."""
    import gzip

    src = tmp_path / "src"
    src.mkdir()
    inner = b"2026-12-07 password=Appended-Gz-Secret-9 ok\n" * 50
    (src / "all.log").write_bytes(_log(90_000, 3) + gzip.compress(inner))
    (src / "small.log").write_bytes(b"fine\n")
    members, _manifest, outcome = _bundle(src, tmp_path / "two.zip", workers=2)
    assert set(members) == {"small.log"}
    [skipped] = [s for s in outcome.report.skipped if s.member == "all.log"]
    assert skipped.reason == "policy"
    assert "a gzip stream at byte" in skipped.detail
    assert "left out" in skipped.detail
    out = tmp_path / "dir"
    redact_to_directory(src, out, _config(), workers=2)
    assert sorted(p.name for p in out.iterdir()) == ["redaction-report.json", "small.log"]
