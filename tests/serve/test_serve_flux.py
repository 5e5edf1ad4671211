"""The real Flux CLI reads the same from ``bundler serve`` as it read from the live server.

A real lab runs a workflow; its workers are frozen (SIGSTOP) so nothing a
heartbeat refreshes can change between the two readings; the CLI's output
against the live server is recorded and doctor collects a bundle (HTTP only:
the API is what is replayed). Then the whole fleet is stopped, the bundle is
served, and the same commands run against it. Outputs must be equal, except
where redaction replaced a value.
"""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from samples.flux_lab import FluxLab, LabConfig, Timings
from tests.support.flux import BUNDLE_ENV, BUNDLE_PASSWORD_ENV, LabFactory, run_bundler
from tests.support.serving import serving

pytestmark = pytest.mark.flux

STEADY = Timings(heartbeat_interval=2, heartbeat_timeout=300, eviction_grace_period=300)
"""Frozen workers must stay online (not STALE) while both readings are taken."""
REDACTED = "[REDACTED"


def flux_cli(lab: FluxLab, workdir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The Flux CLI from the lab's venv, in an empty directory (no flux.toml, no credentials)."""
    return subprocess.run(
        [str(lab.flux.flux), *args],
        capture_output=True,
        text=True,
        cwd=workdir,
        env={"PATH": f"{lab.flux.bin_dir}:/usr/bin:/bin", "HOME": str(workdir), "LANG": "C.UTF-8"},
        timeout=60,
        check=False,
    )


def commands(worker: str, execution: str) -> dict[str, list[str]]:
    return {
        "worker list": ["worker", "list"],
        "worker list json": ["worker", "list", "--format", "json"],
        "worker show": ["worker", "show", worker],
        "execution show detailed": ["execution", "show", execution, "--detailed"],
        "health": ["health"],
    }


def differences(live: Any, served: Any, where: str = "") -> list[str]:
    """Where ``served`` differs from ``live`` other than by a redacted value."""
    if isinstance(live, dict) and isinstance(served, dict):
        if live.keys() != served.keys():
            return [f"{where}: keys {sorted(live.keys() ^ served.keys())}"]
        return [d for k in live for d in differences(live[k], served[k], f"{where}/{k}")]
    if isinstance(live, list) and isinstance(served, list):
        if len(live) != len(served):
            return [f"{where}: {len(live)} items live, {len(served)} served"]
        return [
            d
            for i, (a, b) in enumerate(zip(live, served, strict=True))
            for d in differences(a, b, f"{where}/{i}")
        ]
    if live == served or (isinstance(served, str) and REDACTED in served):
        return []
    return [f"{where}: {live!r} live, {served!r} served"]


def output_differences(live: str, served: str) -> list[str]:
    try:
        return differences(json.loads(live), json.loads(served))
    except ValueError:
        live_lines, served_lines = live.splitlines(), served.splitlines()
        if len(live_lines) != len(served_lines):
            return [f"{len(live_lines)} lines live, {len(served_lines)} served"]
        return [
            f"{a!r} / {b!r}"
            for a, b in zip(live_lines, served_lines, strict=True)
            if a != b and REDACTED not in b
        ]


def test_the_flux_cli_reads_the_same_from_serve(
    flux_lab_factory: LabFactory, tmp_path: Path
) -> None:
    lab = flux_lab_factory(LabConfig(timings=STEADY))
    execution = str(lab.api.run_to_end("hello_world", "lab")["execution_id"])
    wanted = commands("w1", execution)
    bundle = tmp_path / "flux.zip"
    for process in lab.workers.values():
        process.signal(signal.SIGSTOP)
    try:
        live = {
            name: flux_cli(lab, tmp_path, *argv, "--server-url", lab.url)
            for name, argv in wanted.items()
        }
        doctor = run_bundler(
            "doctor",
            "--profile",
            "flux",
            "--server",
            lab.url,
            "--bundle",
            str(bundle),
            "--password-env",
            BUNDLE_PASSWORD_ENV,
        )
    finally:
        for process in lab.workers.values():
            process.signal(signal.SIGCONT)
    assert bundle.exists(), doctor.stderr[-2000:]
    for name, result in live.items():
        assert result.returncode == 0, (name, result.stderr)
        assert result.stdout.strip(), name
    lab.stop()  # the fleet is gone: from here on only the bundle answers

    args = [str(bundle), "--password-env", BUNDLE_PASSWORD_ENV]
    with serving(args, BUNDLE_ENV, tmp_path) as served:
        assert "predates" not in served.log()  # this bundle records its exact requests
        banner = "\n".join(served.banner)
        for name, argv in wanted.items():
            if name != "execution show detailed":
                assert f"flux {' '.join(argv)} --server-url {served.url}" in banner, name
            replayed = flux_cli(lab, tmp_path, *argv, "--server-url", served.url)
            assert replayed.returncode == 0, replayed.stderr
            assert output_differences(live[name].stdout, replayed.stdout) == [], name
        workers = httpx.get(f"{served.url}/workers", timeout=10)
        assert workers.headers["content-type"] == "application/json"
        missing = httpx.get(f"{served.url}/executions", params={"limit": 50, "offset": 0})
        assert (missing.status_code, missing.headers["x-bundler-replay"]) == (404, "not-captured")
        connect = httpx.get(f"{served.url}/workers/w1/connect", timeout=10)
        assert (connect.status_code, connect.headers["x-bundler-replay"]) == (405, "refused")
        log = served.log()
        assert "GET /workers/w1 -> 200 captured (raw/http/worker/" in log
        assert f"GET /executions/{execution}?detailed=true -> 200 captured" in log
        assert f"GET /executions/{execution}/approvals?status=pending -> 404 not-captured" in log
        assert served.interrupt() == 130
