"""A LyftData fleet for CLI tests: the simulator plus one real sshd per prepared worker host.

::

    with lyftdata_fleet("healthy", tmp_path) as fleet:
        run bundler doctor --profile lyftdata --server fleet.sim.url \\
            --inventory fleet.inventory --ssh-config fleet.ssh_config \\
            --known-hosts fleet.known_hosts ...

Each sshd serves the scenario's prepared host (state directory, logs) with the
stand-in tools first on PATH (sshd ``SetEnv``); the inventory names the
worker, its ``state_dir`` and its log file. Everything stops on exit.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import yaml

from . import sshd
from .lyftdata_sim import ROOT, RunningSim, running_simulator
from .requirements import need

BASE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


@dataclass
class Fleet:
    sim: RunningSim
    inventory: Path
    ssh_config: Path
    known_hosts: Path

    def doctor_args(self, *, trust_ca: bool = True) -> list[str]:
        args = [
            "doctor",
            "--profile",
            "lyftdata",
            "--server",
            self.sim.url,
            "--inventory",
            str(self.inventory),
            "--ssh-config",
            str(self.ssh_config),
            "--known-hosts",
            str(self.known_hosts),
        ]
        if trust_ca and self.sim.ca_file:
            args += ["--ca-cert", str(self.sim.ca_file)]
        return args


@contextmanager
def lyftdata_fleet(scenario: str, workdir: Path) -> Iterator[Fleet]:
    need(sshd.sshd_available(), "OpenSSH sshd (as root) is needed for LyftData CLI tests")
    with running_simulator(scenario, workdir) as sim, serving_hosts(sim, workdir) as fleet:
        yield fleet


@contextmanager
def serving_hosts(sim: RunningSim, workdir: Path) -> Iterator[Fleet]:
    """One real sshd per host ``sim`` prepared, for as long as the block runs."""
    need(sshd.sshd_available(), "OpenSSH sshd (as root) is needed for LyftData CLI tests")
    with sshd.SshLab() as lab:
        hosts = []
        for number, host in enumerate(sim.hosts, start=1):
            name = f"worker{number}"
            instance = lab.start(name, extra_config=f"SetEnv PATH={host['bin_dir']}:{BASE_PATH}")
            lab.add_host(name, instance)
            lab.trust(instance)
            hosts.append(
                {
                    "address": name,
                    "role": "worker",
                    "worker": host["worker"],
                    "state_dir": host["state_dir"],
                    "logs": [{"file": host["log_file"]}],
                }
            )
        inventory = workdir / "inventory.yaml"
        inventory.write_text(yaml.safe_dump({"hosts": hosts}))
        yield Fleet(sim, inventory, lab.ssh_config, lab.known_hosts)


def run_bundler(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``python -m bundler ARGS`` from the checkout, with extra environment."""
    return subprocess.run(
        [sys.executable, "-m", "bundler", *args],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )
