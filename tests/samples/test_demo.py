"""The one-command demo, end to end: it shows the verdict, falls back, and leaves no process.

These run the real thing: ``scripts/demo.sh`` against a real Flux lab, and
``python -m samples.demo`` with Flux missing or broken (the LyftData
simulator fallback, with and without sshd hosts), or interrupted mid-way.
After each run no process may be left whose command line or working
directory lies in the test's directory; the check here is independent of the
demo's own.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from samples.demo import __main__ as demo_main
from samples.demo import fleets
from samples.flux_lab import FluxInstall, FluxUnavailable, find_flux
from tests.support.interrupts import default_sigint
from tests.support.requirements import need

ROOT = Path(__file__).resolve().parents[2]
FLUX_VERDICT = "Verdict on the Flux fleet: BLOCKED at layer heartbeat (FLUX_WORKER_EVICTED)."
LYFTDATA_VERDICT = (
    "Verdict on the LyftData fleet: BLOCKED at layer authorization (LICENSE_EXPIRED_OR_INVALID)."
)


@pytest.fixture(scope="module")
def flux_install() -> FluxInstall:
    try:
        return find_flux(create=False)
    except FluxUnavailable as exc:
        need(False, f"real Flux unavailable: {exc}")
        raise


def processes_in(directory: Path) -> list[str]:
    """Running processes whose command line or working directory mentions ``directory``."""
    where = str(directory.resolve())
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        with contextlib.suppress(OSError):
            state = (entry / "stat").read_text().rsplit(")", 1)[-1].split()[0]
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            cwd = ""
            with contextlib.suppress(OSError):
                cwd = os.readlink(entry / "cwd")
            if state != "Z" and (where in cmdline or cwd.startswith(where)):
                found.append(f"{entry.name} {cmdline[:150]}")
    return found


def demo_env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONUNBUFFERED": "1", **extra}


def run_demo(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=280, check=False
    )


def assert_nothing_left(tmp_path: Path) -> None:
    assert processes_in(tmp_path) == []


@pytest.mark.slow
@pytest.mark.flux
def test_demo_script_breaks_a_real_flux_fleet_and_shows_the_verdict(
    flux_install: FluxInstall, tmp_path: Path
) -> None:
    out, work = tmp_path / "out", tmp_path / "work"
    done = run_demo(
        [str(ROOT / "scripts" / "demo.sh"), "--out", str(out), "--workdir", str(work)],
        demo_env(BUNDLER_FLUX_VENV=str(flux_install.venv)),
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "Worker w2 evicted" in done.stdout  # the server's own log line, shown
    assert "BLOCKED — first failed layer: heartbeat" in done.stdout  # analyze's report
    assert "review:" in done.stderr
    assert "clean" in done.stderr
    assert FLUX_VERDICT in done.stdout
    assert (out / "demo-support.zip").stat().st_size > 0
    assert (out / "demo-password").stat().st_mode & 0o077 == 0
    assert_nothing_left(tmp_path)


def test_demo_falls_back_to_the_lyftdata_simulator_without_flux(tmp_path: Path) -> None:
    out, work = tmp_path / "out", tmp_path / "work"
    done = run_demo(
        [sys.executable, "-m", "samples.demo", "--out", str(out), "--workdir", str(work)],
        demo_env(BUNDLER_FLUX_VENV=str(tmp_path / "no-flux-here")),
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    reason = [line for line in done.stdout.splitlines() if "Flux is not available" in line]
    assert len(reason) == 1
    assert "no Flux venv at" in reason[0]
    assert "LyftData simulator" in reason[0]
    assert "BLOCKED — first failed layer: authorization" in done.stdout
    assert LYFTDATA_VERDICT in done.stdout
    assert (out / "demo-support.zip").exists()
    assert_nothing_left(tmp_path)


def test_demo_falls_back_when_flux_does_not_start(tmp_path: Path) -> None:
    broken = tmp_path / "broken-flux" / "bin"
    broken.mkdir(parents=True)
    (broken / "flux").write_text("#!/bin/sh\necho 'flux: cannot start (test double)' >&2\nexit 3\n")
    (broken / "flux").chmod(0o755)
    (broken / "python").symlink_to(sys.executable)
    done = run_demo(
        [sys.executable, "-m", "samples.demo", "--out", str(tmp_path / "out"),
         "--workdir", str(tmp_path / "work")],
        demo_env(BUNDLER_FLUX_VENV=str(broken.parent)),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "Flux is not available here: the Flux lab did not start: server exited" in done.stdout
    assert LYFTDATA_VERDICT in done.stdout
    assert_nothing_left(tmp_path)


def test_demo_without_sshd_collects_over_http_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(fleets, "sshd_unavailable_reason", lambda: "no sshd in this test")
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        code = demo_main.main(
            ["--product", "lyftdata", "--out", str(tmp_path / "out"),
             "--workdir", str(tmp_path / "work")]
        )  # fmt: skip
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)
    out, err = capfd.readouterr()
    assert code == 0, out[-3000:] + err[-3000:]
    assert "Worker hosts are skipped (no sshd in this test)" in out
    assert "--inventory" not in out
    assert " ssh." not in err  # doctor ran no SSH collector
    assert LYFTDATA_VERDICT in out
    assert_nothing_left(tmp_path)


def test_demo_says_why_when_the_chosen_product_cannot_run(tmp_path: Path) -> None:
    done = run_demo(
        [sys.executable, "-m", "samples.demo", "--product", "flux", "--out", str(tmp_path)],
        demo_env(BUNDLER_FLUX_VENV=str(tmp_path / "no-flux-here")),
    )
    assert done.returncode == 2
    errors = [line for line in done.stdout.splitlines() if line.startswith("demo:")]
    assert errors == [f"demo: nothing to demonstrate on: no Flux venv at {tmp_path}/no-flux-here "
                      "(scripts/setup.sh installs flux-core there from PyPI, which needs network "
                      "access)"]  # fmt: skip
    assert "Traceback" not in done.stdout + done.stderr


@contextlib.contextmanager
def demo_process(argv: list[str], env: dict[str, str]) -> Iterator[subprocess.Popen[str]]:
    process = subprocess.Popen(
        argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        preexec_fn=default_sigint,  # a suite run in the background ignores SIGINT
    )  # fmt: skip
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)
        if process.stdout is not None:
            process.stdout.close()


def read_until(process: subprocess.Popen[str], text: str, timeout_s: float) -> str:
    assert process.stdout is not None
    seen = ""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        seen += line
        if text in line:
            return seen
    raise AssertionError(f"never saw {text!r}:\n{seen[-3000:]}")


@pytest.mark.slow
@pytest.mark.flux
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_interrupting_the_demo_stops_the_flux_fleet(
    flux_install: FluxInstall, tmp_path: Path, sig: signal.Signals
) -> None:
    argv = [sys.executable, "-m", "samples.demo", "--product", "flux",
            "--out", str(tmp_path / "out"), "--workdir", str(tmp_path / "work")]  # fmt: skip
    with demo_process(argv, demo_env(BUNDLER_FLUX_VENV=str(flux_install.venv))) as process:
        read_until(process, "Break something real", timeout_s=180)
        assert processes_in(tmp_path), "the Flux lab should be running now"
        process.send_signal(sig)
        rest, _ = process.communicate(timeout=120)
        assert process.returncode == 130, rest[-3000:]
    assert "interrupted; every process the demo started was stopped" in rest
    assert "Traceback" not in rest
    assert_nothing_left(tmp_path)
