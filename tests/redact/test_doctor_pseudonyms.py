"""``doctor --obfuscate network``: one address has one pseudonym in the whole bundle.

The real doctor collects the LyftData simulator (a real HTTPS server process on
127.0.0.1) and this machine as the worker's host into a real encrypted bundle, read
back with the bundle reader. The worker's id is a private IPv4 address, so the
address is in the API's answers, the host's log, the per-worker requests (the
manifest's ``http.path`` and ``bound``), the inventory (the manifest's ``target``),
the evidence documents and the live verdict (``analysis.json``, and what ``--json``
prints). Doctor redacted some of that text two or three times, and an address
pseudonym is an address: it got a pseudonym of its own, and one worker read as
three addresses, which breaks every cross-reference the pseudonyms are kept for.

The host's ``lyftdata`` CLI stand-in names its checks ``worker.<id>.heartbeat``: an
address after a word and a dot, which is one too.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
import yaml

from bundler.archive import open_bundle
from bundler.doctor.request import DoctorRequest
from bundler.doctor.run import run_doctor
from bundler.exit_codes import ExitCode
from bundler.products.lyftdata import PROFILE
from bundler.secret_options import OpenSecrets, SealOptions
from samples.lyftdata_sim.loader import SCENARIO_DIR
from tests.support.lyftdata_sim import RunningSim, running_simulator

ADDRESS = "10.20.30.77"
PSEUDONYMS = re.compile(rb"(?<![0-9.])10\.[0-9]{1,3}\.[0-9]{1,3}\.77(?![0-9])")
"""Where the address or a pseudonym of it stands: 10/8 maps into 10/8, the host octet kept."""
PASSWORD_ENV = "DOCTOR_PSEUDONYMS_BUNDLE_PW"
PASSWORD = "one address, one pseudonym: a long bundle password"


def _scenario(workdir: Path) -> Path:
    """``healthy``, its worker called by its address, and that worker's heartbeat stale."""
    healthy = (SCENARIO_DIR / "healthy.yaml").read_text().replace("edge-01", ADDRESS)
    scenario = yaml.safe_load(healthy)
    scenario["expect"] = {"first_failed_layer": "heartbeat", "codes": ["WORKER_OFFLINE"]}
    (worker,) = scenario["workers"]
    worker["last_heartbeat"] = "-412s"
    said = f"heartbeat from worker {ADDRESS} to the server failed: connection refused"
    worker["logs"] = [{"at": "-5s", "level": "ERROR", "target": "comms", "message": said}]
    (host,) = scenario["hosts"]
    host["log_lines"] = worker["logs"]
    path = workdir / "address-worker.yaml"
    path.write_text(yaml.safe_dump(scenario))
    return path


def _doctor(sim: RunningSim, workdir: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Path]:
    """The real doctor into a sealed bundle; what ``--json`` prints, and the bundle."""
    (host,) = sim.hosts
    inventory = workdir / "inventory.yaml"
    spec = {
        "address": "local",
        "role": "worker",
        "worker": host["worker"],
        "state_dir": host["state_dir"],
        "logs": [{"file": host["log_file"]}],
    }
    inventory.write_text(yaml.safe_dump({"hosts": [spec]}))
    # the host's stand-in tools (systemctl, ...) first, as on a prepared worker host
    monkeypatch.setenv("PATH", host["bin_dir"] + os.pathsep + os.environ["PATH"])
    environ = {PASSWORD_ENV: PASSWORD, PROFILE.token_env: sim.token}
    monkeypatch.setenv(PASSWORD_ENV, PASSWORD)  # the bundle's password is read from os.environ
    bundle = workdir / "support.zip"
    outcome = run_doctor(
        DoctorRequest(
            profile=PROFILE.name,
            server=sim.url,
            ca_cert=sim.ca_file,
            inventory=inventory,
            bundle=bundle,
            seal=SealOptions(password_env=PASSWORD_ENV),
            obfuscate=("network",),
        ),
        environ=environ,
    )
    assert outcome.exit_code == ExitCode.PROBLEM, outcome.summary
    return outcome.json_text(), bundle


def test_one_address_has_one_pseudonym_in_every_member_the_manifest_and_the_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with running_simulator(str(_scenario(tmp_path)), tmp_path) as sim:
        printed, bundle = _doctor(sim, tmp_path, monkeypatch)
    unlock = OpenSecrets(password_env=PASSWORD_ENV)
    with open_bundle(bundle, unlock, environ={PASSWORD_ENV: PASSWORD}) as reader:
        members = {name: reader.read_bytes(name) for name in reader.names()}

    everything = b"\n".join([*members.values(), "\n".join(members).encode()])
    assert ADDRESS.encode() not in everything, [
        n for n, d in members.items() if ADDRESS.encode() in d
    ]
    where = {name: set(PSEUDONYMS.findall(data)) for name, data in members.items()}
    pseudonyms = set().union(*where.values())
    assert len(pseudonyms) == 1, {name: found for name, found in where.items() if found}
    (pseudonym,) = (p.decode() for p in pseudonyms)

    # ... and it is there, everywhere the address was: the members,
    for name in ("raw/http/workers.json", "hosts/h01/logs/00.log", "evidence/workers.json"):
        assert pseudonym.encode() in members[name], name
    # the live verdict, stored and printed, judging that worker,
    analysis = json.loads(members["analysis.json"])
    assert analysis["verdict"] == "blocked"
    offline = [
        finding
        for target in analysis["targets"]
        for layer in target["layers"]
        for finding in layer["findings"]
        if finding["code"] == "WORKER_OFFLINE"
    ]
    assert offline, analysis["targets"]
    assert pseudonym in json.dumps(offline)
    # what --json prints is that verdict, plus the collection summary (the person's own
    # inventory, as they gave it: never stored)
    printed_verdict = json.loads(printed)
    assert printed_verdict.pop("collection") is not None
    assert analysis.pop("collection") is None
    assert printed_verdict == analysis
    # and the manifest: the per-worker requests, their bound id, the inventory's worker.
    manifest = json.loads(members["manifest.json"])
    status = next(c for c in manifest["collectors"] if c["id"] == "http.worker-status.000")
    assert status["http"]["path"] == f"/api/workers/{pseudonym}/status"
    assert status["bound"] == {"id": pseudonym}
    assert [h["worker"] for h in manifest["target"]["hosts"]] == [pseudonym]
    report = json.loads(members["redaction-report.json"])
    assert report["pseudonyms"]["ipv4"] >= 1
