"""bundler redact on awkward local input: links, special files, names, files that change
under it, outputs it cannot write, Ctrl-C. Each case once ended in an internal error, a
hang, a file silently missing from the report, or a secret left in a member name."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bundler.archive import open_bundle
from bundler.cli import cli
from bundler.cli.options import OpenSecrets
from bundler.redaction import tree
from bundler.redaction.config import RedactConfig
from bundler.redaction.handoff import new_key
from bundler.redaction.outputs import redact_to_directory
from bundler.redaction.walk import Walk
from samples.stopping import alive, descendants

ENV = {"BPW": "a long enough bundle password"}
GITHUB = "ghp_" + "a1B2c3D4e5" * 3 + "f6G7h8"


def _redact(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["redact", *args], env=ENV)
    return result.exit_code, result.stderr


def _skipped(out: Path) -> dict[str, tuple[str, str]]:
    report = json.loads((out / "redaction-report.json").read_text())
    return {s["member"]: (s["reason"], s["detail"]) for s in report["skipped"]}


def _bundle_report(bundle: Path) -> tuple[list[str], dict[str, Any]]:
    with open_bundle(bundle, OpenSecrets(password_env="BPW"), environ=ENV) as reader:
        return reader.names(), json.loads(reader.read_bytes("redaction-report.json"))


def test_a_symlink_loop_and_a_dangling_link_are_listed_not_a_crash(tmp_path: Path) -> None:
    """``Path.resolve`` raised RuntimeError on a loop (Python 3.11): exit 70."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "app.log").write_text("password=Loop-Pw-1\n")
    os.symlink("loop-b", src / "loop-a")
    os.symlink("loop-a", src / "loop-b")
    os.symlink("nowhere", src / "dangling")
    code, err = _redact(str(src), "--out", str(tmp_path / "out"))
    assert code == 0, err
    assert "3 skipped (symlink 3; see the report)" in err  # seen without opening the report
    skipped = _skipped(tmp_path / "out")
    assert skipped["loop-a"] == ("symlink", "symbolic link loop (not followed)")
    assert skipped["dangling"] == ("symlink", "symbolic link to nothing (dangling) (not followed)")
    code, err = _redact(str(src), "--out", str(tmp_path / "out.zip"), "--password-env", "BPW")
    assert code == 0, err


def test_src_given_as_a_symlink_is_followed(tmp_path: Path) -> None:
    """``/var/log/app`` is often a link: it was refused as 'not a regular file or a directory'."""
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "app.log").write_text("password=Arg-Pw-1\n")
    os.symlink(tmp_path / "real", tmp_path / "logs")
    os.symlink(tmp_path / "real" / "app.log", tmp_path / "one.log")
    code, err = _redact(str(tmp_path / "logs"), "--out", str(tmp_path / "out"))
    assert code == 0, err
    assert b"Arg-Pw-1" not in (tmp_path / "out" / "app.log").read_bytes()
    code, err = _redact(str(tmp_path / "one.log"), "--out", str(tmp_path / "out1"))
    assert code == 0, err
    assert (tmp_path / "out1" / "one.log").exists()


def _after_walk(monkeypatch: pytest.MonkeyPatch, change: Any) -> None:
    """Run ``change`` between the walk and the first read (a file replaced or deleted meanwhile)."""
    walked = tree.walk

    def walk_then_change(src: Path) -> Walk:
        found = walked(src)
        change()
        return found

    monkeypatch.setattr(tree, "walk", walk_then_change)


def _run(src: Path, out: Path) -> dict[str, Any]:
    outcome = redact_to_directory(src, out, RedactConfig(key=b"k" * 32, handoff_key=new_key()))
    return outcome.report.model_dump()


def test_a_file_that_cannot_be_read_is_listed_as_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file deleted after the walk (or unreadable: no permission) was left out of the
    output and out of the report: nothing said it was ever there."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "kept.log").write_text("x\n")
    (src / "gone.log").write_text("password=Gone-Pw-1\n")
    _after_walk(monkeypatch, (src / "gone.log").unlink)
    report = _run(src, tmp_path / "out")
    skipped = {s["member"]: (s["reason"], s["detail"]) for s in report["skipped"]}
    assert skipped["gone.log"] == ("decode_error", "unreadable: No such file or directory")
    assert [f["member"] for f in report["files"]] == ["kept.log"]


def test_a_fifo_swapped_in_after_the_walk_is_refused_not_read_as_empty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "app.log").write_text("x\n")

    def to_fifo() -> None:
        (src / "app.log").unlink()
        os.mkfifo(src / "app.log")

    _after_walk(monkeypatch, to_fifo)
    report = _run(src, tmp_path / "out")
    assert not (tmp_path / "out" / "app.log").exists()
    assert report["skipped"][0]["detail"] == "unreadable: no longer a regular file"


def test_a_file_growing_while_read_is_read_as_it_was_at_the_walk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A log written faster than it was redacted kept the run going (for ever)."""
    src = tmp_path / "src"
    src.mkdir()
    log = src / "app.log"
    log.write_text("one\ntwo (still being writ")

    def grow() -> None:
        with log.open("a") as handle:
            handle.write("ten)\nthree\n" * 1000)

    _after_walk(monkeypatch, grow)
    _run(src, tmp_path / "out")
    assert (tmp_path / "out" / "app.log").read_text() == "one\ntwo (still being written)\n"


def test_a_value_learned_from_content_is_removed_from_every_name(tmp_path: Path) -> None:
    """Names were made before any file was read: the password stood in the zip's
    directory, the manifest and the report, and review called the bundle clean."""
    src = tmp_path / "src"
    (src / "Zx9-Secret-77.d").mkdir(parents=True)
    (src / "a.conf").write_text("db_password=Zx9-Secret-77\n")
    (src / "Zx9-Secret-77.log").write_text("hi\n")
    (src / "Zx9-Secret-77.d" / "b.log").write_text("hi\n")
    os.symlink("/etc/passwd", src / "Zx9-Secret-77.link")
    code, err = _redact(str(src), "--out", str(tmp_path / "out"))
    assert code == 0, err
    names = [p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*")]
    assert not [n for n in names if "Zx9" in n]
    assert b"Zx9" not in (tmp_path / "out" / "redaction-report.json").read_bytes()
    bundle = tmp_path / "out.zip"
    code, err = _redact(str(src), "--out", str(bundle), "--password-env", "BPW")
    assert code == 0, err
    assert b"Zx9" not in bundle.read_bytes()  # the zip's directory: names in plain text
    names, report = _bundle_report(bundle)
    assert len([n for n in names if n.endswith(".log")]) == 2
    assert "Zx9" not in json.dumps(report)
    with open_bundle(bundle, OpenSecrets(password_env="BPW"), environ=ENV) as reader:
        assert b"Zx9" not in reader.read_bytes("manifest.json")


def test_a_secret_in_a_folder_name_keeps_the_folder(tmp_path: Path) -> None:
    """The value ran on over the ``/``: ``token=ghp_…/x.log`` became a file ``token=…``."""
    src = tmp_path / "src"
    (src / f"token={GITHUB}").mkdir(parents=True)
    (src / f"token={GITHUB}" / "x.log").write_text("hi\n")
    (src / f"{GITHUB}.log").write_text("hi\n")
    code, err = _redact(str(src), "--out", str(tmp_path / "out"))
    assert code == 0, err
    files = sorted(
        p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*.log")
    )
    assert len(files) == 2
    folder = next(f for f in files if "/" in f)
    assert folder.startswith("token=REDACTED-github-token-")
    assert folder.endswith("/x.log")
    token = folder.removeprefix("token=").removesuffix("/x.log")
    assert f"{token}.log" in files  # one value, one token, in a folder or a file name


def test_names_that_meet_after_redaction_are_both_kept(tmp_path: Path) -> None:
    """Host names are matched without case: both files became one pseudonym."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "Worker-07.log").write_text("hostname: Worker-07\n")
    (src / "worker-07.log").write_text("hostname: worker-07\n")
    out = tmp_path / "out"
    code, err = _redact(str(src), "--out", str(out), "--obfuscate", "network")
    assert code == 0, err
    files = sorted(p.name for p in out.glob("*.log"))
    assert len(files) == 2
    assert not [f for f in files if "orker" in f]
    assert files[1] == files[0].replace(".log", "~2.log")
    code, err = _redact(
        str(src),
        "--out",
        str(tmp_path / "o.zip"),
        "--obfuscate",
        "network",
        "--password-env",
        "BPW",
    )
    assert code == 0, err
    assert len([n for n in _bundle_report(tmp_path / "o.zip")[0] if n.endswith(".log")]) == 2


def test_a_name_that_is_not_utf8_is_left_out_of_a_directory_too(tmp_path: Path) -> None:
    """The report could not be written (JSON holds no raw bytes): exit 70 after the whole
    tree was redacted. A link so named failed the same way, in a bundle too."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "ok.log").write_text("x\n")
    (src / os.fsdecode(b"caf\xe9.log")).write_text("latin-1 name\n")
    os.symlink("ok.log", src / os.fsdecode(b"link\xff"))
    code, err = _redact(str(src), "--out", str(tmp_path / "out"))
    assert code == 0, err
    skipped = _skipped(tmp_path / "out")
    assert skipped["caf\\udce9.log"][0] == "policy"
    assert skipped["link\\udcff"][0] == "symlink"
    code, err = _redact(str(src), "--out", str(tmp_path / "o.zip"), "--password-env", "BPW")
    assert code == 0, err


@pytest.mark.parametrize("out", ["out", "out.zip"])
def test_an_output_that_cannot_be_written_is_a_one_line_error(tmp_path: Path, out: str) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.log").write_text("x\n")
    (tmp_path / "file").write_text("x")
    code, err = _redact(str(src), "--out", str(tmp_path / "file" / out), "--password-env", "BPW")
    if out == "out":  # no sealing options for a directory
        code, err = _redact(str(src), "--out", str(tmp_path / "file" / "sub" / out))
    assert code == 2, err
    assert "internal error" not in err
    assert len([line for line in err.splitlines() if line.startswith("bundler: error:")]) == 1


STOPS = {
    "ctrl-c": (signal.SIGINT, True),  # a terminal signals the whole process group
    "timeout": (signal.SIGTERM, True),  # coreutils timeout, systemd: the group too
    "kill": (signal.SIGTERM, False),  # kill PID: the coordinator alone
}


@pytest.mark.parametrize("stop", sorted(STOPS))
@pytest.mark.parametrize("out", ["out", "out.zip"])
def test_a_stopped_pool_run_is_interrupted_and_leaves_nothing(
    tmp_path: Path, out: str, stop: str
) -> None:
    """Ctrl-C reaches the whole process group: each worker printed a KeyboardInterrupt
    traceback, and the run often ended 'a worker process died' (exit 2), not 130. SIGTERM
    ended the run on the spot (exit -15), its hidden staging folder left behind."""
    sig, group = STOPS[stop]
    target = tmp_path / "o" / out
    process = _pool_run(
        tmp_path,
        target,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        _wait_for_handoffs(process, target)
        if group:
            os.killpg(process.pid, sig)
        else:
            process.send_signal(sig)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 130, err
    assert b"Traceback" not in err
    assert list(target.parent.iterdir()) == []


def test_pool_workers_end_with_a_coordinator_killed_outright(tmp_path: Path) -> None:
    """SIGKILL (the OOM killer) gives the coordinator no chance to stop its workers; each
    waited on its task queue for ever, a process asleep for good."""
    target = tmp_path / "o" / "out"
    process = _pool_run(tmp_path, target, stderr=subprocess.DEVNULL)
    workers: list[int] = []
    try:
        _wait_for_handoffs(process, target)
        workers = descendants(process.pid)
        assert workers
        process.kill()
        process.wait(timeout=10)
        deadline = time.monotonic() + 10
        while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(alive(pid) for pid in workers)
    finally:
        for pid in [process.pid, *workers]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        process.wait()


def _pool_run(tmp_path: Path, target: Path, **popen: Any) -> subprocess.Popen[bytes]:
    """``bundler redact`` of four 21 MB logs into ``target`` with two pool workers, started."""
    src = tmp_path / "src"
    src.mkdir()
    line = b"routine line of a log with nothing secret in it at all, id 0123456789\n"
    for n in range(4):
        (src / f"f{n}.log").write_bytes(line * 300_000)  # 21 MB each
    target.parent.mkdir()
    env = dict(os.environ, **ENV, PYTHONPATH=os.pathsep.join(sys.path))
    args = [sys.executable, "-m", "bundler", "redact", str(src), "--out", str(target)]
    args += ["--workers", "2"] + (["--password-env", "BPW"] if target.suffix == ".zip" else [])
    return subprocess.Popen(args, env=env, **popen)


def _wait_for_handoffs(process: subprocess.Popen[bytes], target: Path) -> None:
    """Until the workers have written their first hand-off files (the run is mid-way)."""
    deadline = time.monotonic() + 60
    while not list(target.parent.glob(".*.handoff.tmp-bundler/*.handoff")):
        assert process.poll() is None
        assert time.monotonic() < deadline
        time.sleep(0.02)


def test_out_given_as_a_symlink_is_a_usage_error(tmp_path: Path) -> None:
    """A link loop as --out raised RuntimeError (exit 70); a link to an empty folder
    failed after the whole run, when the staging folder was to replace it."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.log").write_text("x\n")
    (tmp_path / "empty").mkdir()
    os.symlink("loop", tmp_path / "loop")
    os.symlink("empty", tmp_path / "to-empty")
    for out in ("loop", "to-empty"):
        code, err = _redact(str(tmp_path / "src"), "--out", str(tmp_path / out))
        assert code == 2, err
        assert "is a symbolic link" in err
    assert list((tmp_path / "empty").iterdir()) == []
