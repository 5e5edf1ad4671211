"""A LyftData fleet to run ``bundler doctor`` against: the simulator plus real sshd hosts.

::

    with lyftdata_fleet("license_expired", workdir) as fleet:
        bundler doctor *fleet.doctor_args() --bundle ...   (with fleet.env)

The simulator (``samples.lyftdata_sim``) is a real HTTP(S) server process on
an ephemeral port; it prepares the scenario's worker hosts (state directory,
logs, stand-in tools) under ``workdir/hosts``. With ``hosts=True`` each host
is served by its own sshd (:mod:`samples.sshd_hosts`) and listed in an
inventory, so doctor collects over HTTP *and* SSH, as against a real fleet.
Used by the demo's fallback and by the sample regeneration; the test suite
has its own fixture (``tests/support/lyftdata_fleet.py``).
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .lyftdata_sim.loader import load_scenario
from .sshd_hosts import SshdHosts
from .stopping import die_with_parent, stop_child

REPO_ROOT = Path(__file__).resolve().parents[1]
TOKEN = "sim-token"  # noqa: S105 (the simulator's own test token; see lyftdata_sim)
TOKEN_ENV = "LYFTDATA_API_TOKEN"  # noqa: S105 (a variable name)
START_TIMEOUT_S = 30.0

UNTRUSTED_TLS = frozenset({"tls_untrusted"})
"""Scenarios whose point is a client that was never given the server's CA (no --ca-cert)."""


class FleetError(RuntimeError):
    """The simulator or a host could not be started (the message says why)."""


@dataclass
class LyftDataFleet:
    scenario: str
    url: str
    ca_file: Path | None
    process: subprocess.Popen[str]
    inventory: Path | None = None
    ssh: SshdHosts | None = None
    workers: list[str] = field(default_factory=list)

    @property
    def env(self) -> dict[str, str]:
        """Environment doctor needs: the API token in the profile's usual variable."""
        return {TOKEN_ENV: TOKEN}

    @property
    def pids(self) -> list[int]:
        return [self.process.pid, *(self.ssh.pids if self.ssh else [])]

    def doctor_args(self) -> list[str]:
        args = ["doctor", "--profile", "lyftdata", "--server", self.url]
        if self.ca_file is not None and self.scenario not in UNTRUSTED_TLS:
            args += ["--ca-cert", str(self.ca_file)]
        if self.inventory is not None and self.ssh is not None:
            args += ["--inventory", str(self.inventory), "--ssh-config", str(self.ssh.ssh_config)]
            args += ["--known-hosts", str(self.ssh.known_hosts)]
        timeout = load_scenario(self.scenario).client.timeout_s
        if timeout is not None:  # a scenario whose route hangs needs a short timeout
            args += ["--timeout", str(timeout)]
        return args


class _Lines:
    """The simulator's stdout lines, read by a thread so a wait can time out."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self._queue: queue.Queue[str] = queue.Queue()
        self._stdout = process.stdout
        assert self._stdout is not None
        self._thread = threading.Thread(target=self._pump, daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        assert self._stdout is not None
        for line in self._stdout:
            self._queue.put(line)

    def next(self, deadline: float) -> str:
        try:
            return self._queue.get(timeout=max(0.0, deadline - time.monotonic())).strip()
        except queue.Empty:
            return ""

    def close(self) -> None:
        """After the process exited: let the reader see end-of-file, then close the pipe."""
        self._thread.join(timeout=5)
        if not self._thread.is_alive() and self._stdout is not None:
            self._stdout.close()


def _start_simulator(scenario: str, workdir: Path, hosts: bool) -> subprocess.Popen[str]:
    argv = [sys.executable, "-m", "samples.lyftdata_sim", "--scenario", scenario]
    argv += ["--port", "0", "--token", TOKEN]
    if hosts:
        argv += ["--hosts-dir", str(workdir / "hosts")]
    else:
        argv += ["--tls-dir", str(workdir / "tls")]
    with (workdir / "simulator.log").open("ab") as log:
        return subprocess.Popen(
            argv, cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=log, text=True,
            stdin=subprocess.DEVNULL, preexec_fn=die_with_parent(),
        )  # fmt: skip


@contextmanager
def lyftdata_fleet(scenario: str, workdir: Path, *, hosts: bool = True) -> Iterator[LyftDataFleet]:
    """Start the simulator for ``scenario`` (and sshd hosts); stop everything on exit."""
    workdir.mkdir(parents=True, exist_ok=True)
    process = _start_simulator(scenario, workdir, hosts)
    lines = _Lines(process)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        url = lines.next(deadline)
        if not url.startswith("http"):
            log = (workdir / "simulator.log").read_text(errors="replace").strip()
            raise FleetError(f"the LyftData simulator did not start: {log[-300:] or 'no output'}")
        ca_file = None
        if url.startswith("https:"):
            ca_file = Path(lines.next(deadline).removeprefix("ca_file="))
        fleet = LyftDataFleet(scenario, url, ca_file, process)
        if hosts:
            with SshdHosts(workdir / "ssh") as ssh:
                fleet.ssh = ssh
                _serve_hosts(fleet, workdir)
                yield fleet
        else:
            yield fleet
    finally:
        stop_child(process, grace_s=10)
        lines.close()


def _serve_hosts(fleet: LyftDataFleet, workdir: Path) -> None:
    """One sshd per prepared host, and the inventory that names them."""
    assert fleet.ssh is not None
    prepared = json.loads((workdir / "hosts" / "hosts.json").read_text())["hosts"]
    entries = []
    for number, host in enumerate(prepared, start=1):
        alias = f"worker{number}"
        fleet.ssh.add(alias, path_prefix=host["bin_dir"])
        fleet.workers.append(host["worker"])
        entries.append(
            {
                "address": alias,
                "role": "worker",
                "worker": host["worker"],
                "state_dir": host["state_dir"],
                "logs": [{"file": host["log_file"]}],
            }
        )
    if entries:
        fleet.inventory = workdir / "inventory.yaml"
        fleet.inventory.write_text(yaml.safe_dump({"hosts": entries}, sort_keys=False))
