"""Doctor seals what its own readers would refuse, and says so: which member, which limit.

The real CLI collects the LyftData simulator (a real HTTPS server) with the JSON cap
lowered to 1 KiB (``BUNDLER_MAX_JSON_BYTES``), so ``GET /api/deployments`` (1.2 KiB)
is over it, as a 100,000-worker ``GET /workers`` is over the default 256 MiB. Doctor
keeps the answer whole in the bundle, its summary and live verdict name the member,
its size, the limit and the setting that reads it, and the verdict is inconclusive
(exit 3), not healthy. ``bundler analyze`` with the same cap says the same; with the
default one it reads everything: nothing was lost.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.lyftdata_fleet import run_bundler
from tests.support.lyftdata_sim import running_simulator

PASSWORD = "lyftdata over-limit bundle password"
ENV = {"LYFTDATA_API_TOKEN": "sim-token", "BUNDLE_PW": PASSWORD}
CAP = {"BUNDLER_MAX_JSON_BYTES": "1KiB"}
DEPLOYMENTS = "raw/http/deployments.json"
SAID = (
    f"{DEPLOYMENTS} is 1.2 KiB, over the 1.0 KiB a reader parses as one JSON document "
    "(BUNDLER_MAX_JSON_BYTES=1MiB reads it)"
)


def _over_limit(report: dict[str, Any]) -> dict[str, Any]:
    [finding] = [f for f in report["fleet_findings"] if f["code"] == "EVIDENCE_OVER_LIMIT"]
    return finding


def test_doctor_keeps_a_response_over_the_json_cap_and_names_it(tmp_path: Path) -> None:
    bundle = tmp_path / "support.zip"
    with running_simulator("healthy", tmp_path, hosts=False) as sim:
        args = ["doctor", "--profile", "lyftdata", "--server", sim.url, "--json"]
        args += ["--ca-cert", str(sim.ca_file)] if sim.ca_file else []
        args += ["--bundle", str(bundle), "--password-env", "BUNDLE_PW"]
        doctor = run_bundler(*args, env=ENV | CAP)
    assert doctor.returncode == 3, doctor.stderr[-2000:]
    said = " ".join(doctor.stderr.split())  # the summary, as wrapped for the terminal
    assert f"not read: {SAID}; kept whole in the bundle" in said
    assert "verdict: inconclusive" in said
    live = json.loads(doctor.stdout)
    assert live["verdict"] == "inconclusive"
    assert DEPLOYMENTS in _over_limit(live)["details"]["members"]
    assert SAID in live["collection"]["unread"]

    open_it = ("analyze", str(bundle), "--password-env", "BUNDLE_PW", "--format", "json")
    capped = run_bundler(*open_it, env=ENV | CAP)
    assert capped.returncode == 3, capped.stderr[-2000:]
    assert SAID in _over_limit(json.loads(capped.stdout))["message"]
    whole = run_bundler(*open_it, env=ENV)
    assert whole.returncode == 0, whole.stderr[-2000:]
    report = json.loads(whole.stdout)
    assert report["verdict"] == "healthy"
    assert not [f for f in report["fleet_findings"] if f["code"] == "EVIDENCE_OVER_LIMIT"]
