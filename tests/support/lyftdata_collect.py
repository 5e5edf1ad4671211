"""Collect a running LyftData simulator with the real doctor, in-process, and read the bundle back.

``collect(sim)`` runs :func:`bundler.doctor.run.run_doctor` (plan, HTTP
collector, local host runner, normalizers, redaction, sealing) against the
simulator and its prepared worker host, then extracts the sealed bundle and
hands the members, step results (rebuilt from the manifest, as ``bundler
analyze`` does) and evidence documents to normalizer and
rule tests. A single prepared host is collected as this machine
(``address: local``) with its stand-in tools first on PATH, so most of these
tests need no sshd; a scenario with several hosts is served over real sshd
(one per host, :func:`~.lyftdata_fleet.serving_hosts`). The CLI runs are
``test_doctor_live.py`` and ``test_end_to_end.py``.
"""

from __future__ import annotations

import os
import tempfile
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from bundler.analyze.api import EvidenceSet
from bundler.analyze.rederive import step_results
from bundler.archive import extract_bundle, open_bundle
from bundler.cli.options import OpenSecrets, SealOptions
from bundler.doctor.request import DoctorRequest
from bundler.doctor.run import run_doctor
from bundler.products.base import StepResult
from bundler.products.lyftdata import PROFILE
from bundler.source import DirectorySource
from schemas import EVIDENCE_KINDS, Manifest
from schemas.evidence import EvidenceDoc

from .lyftdata_fleet import serving_hosts
from .lyftdata_sim import RunningSim

PASSWORD_ENV = "LYFTDATA_COMPONENT_BUNDLE_PW"
PASSWORD = "lyftdata component tests: a long bundle password"


@dataclass
class Collected:
    source: DirectorySource
    results: list[StepResult]
    docs: list[EvidenceDoc]
    manifest: Manifest | None = None

    def evidence(self) -> EvidenceSet:
        """The bundle's evidence with its manifest, as ``bundler analyze`` reads it (the
        hosts it names say whose ``lyftdata workers logs`` output each host holds)."""
        return EvidenceSet(self.source, manifest=self.manifest)

    def doc(self, cls: type[EvidenceDoc]) -> Any:
        return next(d for d in self.docs if isinstance(d, cls))


def _local_inventory(sim: RunningSim, workdir: Path) -> Path | None:
    """The one prepared worker host as this machine; None when the scenario prepared none."""
    if not sim.hosts:
        return None
    (host,) = sim.hosts
    spec = {
        "address": "local",
        "role": "worker",
        "worker": host["worker"],
        "state_dir": host["state_dir"],
        "logs": [{"file": host["log_file"]}],
    }
    inventory = workdir / "inventory.yaml"
    inventory.write_text(yaml.safe_dump({"hosts": [spec]}))
    return inventory


def collect(
    sim: RunningSim,
    *,
    token: str | None = None,
    trust_ca: bool = True,
    timeout_s: float | None = None,
) -> Collected:
    """Run the real doctor against ``sim`` into a sealed bundle, and read it back.

    ``trust_ca=False`` leaves the simulator's CA out of the trust store (as a
    client that was never given it).
    """
    workdir = Path(tempfile.mkdtemp(prefix="collect-", dir=sim.hosts_dir.parent))
    bundle = workdir / "support.zip"
    with ExitStack() as stack, pytest.MonkeyPatch.context() as patch:
        if len(sim.hosts) > 1:  # one PATH per process: several hosts need their own sshd each
            fleet = stack.enter_context(serving_hosts(sim, workdir))
            hosts: dict[str, Any] = {
                "inventory": fleet.inventory,
                "ssh_config": fleet.ssh_config,
                "known_hosts": fleet.known_hosts,
            }
        else:
            hosts = {"inventory": _local_inventory(sim, workdir)}
            if sim.hosts:  # the host's stand-in tools (lyftdata, systemctl, ...) come first
                patch.setenv("PATH", sim.hosts[0]["bin_dir"] + os.pathsep + os.environ["PATH"])
        patch.setenv(PASSWORD_ENV, PASSWORD)
        patch.setenv(PROFILE.token_env, token or sim.token)
        request = DoctorRequest(
            profile=PROFILE.name,
            server=sim.url,
            ca_cert=sim.ca_file if trust_ca else None,
            bundle=bundle,
            seal=SealOptions(password_env=PASSWORD_ENV),
            **hosts,
            **({"timeout_s": timeout_s} if timeout_s is not None else {}),
        )
        run_doctor(request, environ=os.environ)
    unlock = OpenSecrets(password_env=PASSWORD_ENV)
    with open_bundle(bundle, unlock, environ={PASSWORD_ENV: PASSWORD}) as reader:
        extract_bundle(reader, workdir / "extracted")
    source = DirectorySource(workdir / "extracted")
    manifest = Manifest.model_validate_json(source.read_bytes("manifest.json"))
    docs = [
        EVIDENCE_KINDS[m.schema_name].model_validate_json(source.read_bytes(m.path))
        for m in manifest.members
        if m.schema_name in EVIDENCE_KINDS
    ]
    # doctor hands its step results to the normalizer and lets them go; these are the
    # ones ``bundler analyze`` rebuilds from the manifest
    results = step_results(source, manifest, PROFILE.plan())
    return Collected(source, results, docs, manifest)
