"""Ctrl-C on a real ``bundler doctor --bundle`` process: what was collected is sealed.

The in-process interrupt test (test_doctor.py) proves the engine's bookkeeping;
this one sends a real SIGINT to a real ``bundler`` process mid-collection, as
a customer's terminal would, and then opens the bundle it left with the real
reader: nothing half-written, the interrupted collectors named in the manifest,
and no temporary file left next to it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bundler.exit_codes import ExitCode
from tests.support.http_server import Reply, ScriptedHTTPServer
from tests.support.interrupts import default_sigint

PASSWORD = "interrupt test: correct horse battery"


def _wait_for_request(server: ScriptedHTTPServer, path: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while path not in server.paths():
        assert time.monotonic() < deadline, f"doctor never asked for {path}: {server.paths()}"
        time.sleep(0.05)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["sigint", "sigterm"])
def test_a_stop_signal_seals_what_was_collected(
    http_server: ScriptedHTTPServer, tmp_path: Path, sig: signal.Signals
) -> None:
    """Ctrl-C, or SIGTERM as ``timeout``, systemd or a cancelled CI job send it (which
    ended doctor on the spot, exit -15, no bundle)."""
    http_server.route("/health", Reply(200, {"status": "ok", "version": "0.87.5"}))
    http_server.route("/workers", Reply(hang=True))
    target = tmp_path / "support.zip"
    env = os.environ | {"BUNDLE_PW": PASSWORD}
    process = subprocess.Popen(
        [sys.executable, "-m", "bundler", "doctor", "--profile", "flux",
         "--server", http_server.url, "--bundle", str(target), "--password-env", "BUNDLE_PW",
         "--timeout", "120"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=default_sigint,  # a suite run in the background ignores SIGINT
    )  # fmt: skip
    try:
        _wait_for_request(http_server, "/workers")
        time.sleep(0.5)  # let the quick collectors settle while /workers hangs
        process.send_signal(sig)
        _, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == ExitCode.INTERRUPTED, stderr[-2000:]
    assert "Traceback" not in stderr
    assert target.exists(), stderr[-2000:]
    assert [p.name for p in tmp_path.iterdir()] == ["support.zip"]  # no temporary left behind

    inspected = subprocess.run(
        [sys.executable, "-m", "bundler", "inspect", str(target), "--json",
         "--password-env", "BUNDLE_PW"],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert inspected.returncode == 0, inspected.stderr
    manifest = json.loads(inspected.stdout)["manifest"]
    statuses = {c["id"]: c["status"] for c in manifest["collectors"]}
    assert statuses["http.health"] == "ok"
    assert statuses["http.workers"] == "interrupted"
    assert any(m["path"] == "raw/http/health.json" for m in manifest["members"])
    verified = subprocess.run(
        [sys.executable, "-m", "bundler", "verify", str(target), "--password-env", "BUNDLE_PW"],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert verified.returncode == 0, verified.stdout + verified.stderr
