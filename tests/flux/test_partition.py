"""A worker cut off from the server by the network while its process runs, read twice.

The lab runs its server in a network namespace of its own and gives w2 a link of its
own, whose packets it then drops both ways (``samples/flux_lab/network.py``): no RST,
no FIN, as across a failed switch. Unlike a hung (SIGSTOP) or killed worker, w2 still
answers ``flux worker status`` on its host. Flux marks it STALE (still listed online),
closes its stalled event stream about four seconds later (listed offline from then on:
read there, it was once called a process that "ended without shutting down"), then evicts
it and unclaims its execution. Read before eviction, the heartbeat rung must fail on the
STALE line (the persisted heartbeat is still within its slack: it once read "connected",
a pass); read after, on the eviction. Both must say the process runs and the network
path is cut, with a recovery for the network, not for a hung process.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from samples.flux_lab import FluxLab, LabConfig, faults
from samples.flux_lab.config import Timings
from samples.flux_lab.network import NetworkUnavailable
from schemas import AnalysisReport, Finding, Layer, LayerStatus
from tests.support.flux import LabFactory, analyze_json, doctor_lab, rung
from tests.support.requirements import need

pytestmark = pytest.mark.flux


def _heartbeat(report: AnalysisReport, worker: str) -> list[Finding]:
    (target, *_) = [t for t in report.targets if t.worker == worker]
    assert target.first_failed_layer is Layer.HEARTBEAT
    (rung,) = [r for r in target.layers if r.name is Layer.HEARTBEAT]
    return [f for f in rung.findings if f.code.startswith("FLUX_")]


def _says_cut_off(finding: Finding) -> None:
    assert "answered `flux worker status`" in finding.message
    assert "cut off by the network" in finding.message
    assert finding.details["cut_off"] is True
    assert finding.recovery is not None
    assert "network path" in finding.recovery.summary
    assert any(c.pointer and c.pointer.endswith("/responsive") for c in finding.evidence)


def _partitionable_lab(flux_lab_factory: LabFactory) -> FluxLab:
    """A lab whose w2 can be cut off; skipped where network namespaces are unavailable.

    STALE lasts the eviction grace: long enough here for doctor to finish inside it on a
    loaded machine (at 6 s, a slow collection once read the eviction instead)."""
    try:
        return flux_lab_factory(
            LabConfig(partitionable=("w2",), timings=Timings(eviction_grace_period=30))
        )
    except NetworkUnavailable as exc:
        need(False, str(exc))
        raise


def test_a_worker_cut_off_by_the_network_is_stale_then_evicted_and_said_to_run(
    flux_lab_factory: LabFactory, tmp_path: Path
) -> None:
    lab = _partitionable_lab(flux_lab_factory)
    held = faults.partition_worker(lab, "w2", until="stale")
    lab.wait_for_log("server", "Worker w2 disconnected", timeout_s=20)
    doctor_lab(lab, tmp_path / "stale.zip")
    lab.wait_for_log("server", "Worker w2 evicted (stale for", timeout_s=60)
    doctor_lab(lab, tmp_path / "evicted.zip")
    assert lab.workers["w2"].alive()

    stale_report = analyze_json(tmp_path / "stale.zip", expect_rc=1)
    (w2,) = [t for t in stale_report.targets if t.worker == "w2"]
    # one answer: not also the generic "offline, find out why before restarting it"
    assert "WORKER_OFFLINE" not in {f.code for f in rung(w2, Layer.HEARTBEAT)[1]}
    (stale,) = _heartbeat(stale_report, "w2")
    assert stale.code == "FLUX_HEARTBEAT_STALE"
    assert (
        "listed offline: the server marked it STALE (missed heartbeat), then closed its stream"
        in stale.message
    )
    assert "ended" not in stale.message
    assert any("when it evicts it" in step for step in stale.recovery.steps)
    _says_cut_off(stale)

    (evicted,) = _heartbeat(analyze_json(tmp_path / "evicted.zip", expect_rc=1), "w2")
    assert evicted.code == "FLUX_WORKER_EVICTED"
    assert evicted.details["unclaimed"] == held.executions
    _says_cut_off(evicted)

    # Healed, the same running worker comes back by itself: nothing was restarted.
    assert lab.network is not None
    lab.network.heal("w2")
    lab.wait_for_status({"w2": "online"}, timeout_s=120)


def test_a_worker_healed_within_the_grace_period_is_back_not_stale(
    flux_lab_factory: LabFactory, tmp_path: Path
) -> None:
    """Cut off, marked STALE, its stream closed; the path heals before the eviction. The
    worker reconnects by itself once its own stream has been silent 30 s, and Flux drops the
    eviction without a line to say so ("Worker connected" is the last word on it). Read then,
    the heartbeat rung must not fail on the old STALE line, nor call it offline or evicted."""
    lab = _partitionable_lab(flux_lab_factory)
    faults.partition_worker(lab, "w2", until="stale")
    lab.wait_for_log("server", "Worker w2 disconnected", timeout_s=20)
    assert lab.network is not None
    lab.network.heal("w2")
    lab.wait_for_log("server", "Worker connected: w2", count=2, timeout_s=45)
    doctor_lab(lab, tmp_path / "healed.zip")
    assert lab.log_count("server", "Worker w2 evicted") == 0

    report = analyze_json(tmp_path / "healed.zip")
    (target,) = [t for t in report.targets if t.worker == "w2"]
    status, findings = rung(target, Layer.HEARTBEAT)
    assert status is LayerStatus.PASS, [f.code for f in findings]
    assert not {"FLUX_HEARTBEAT_STALE", "FLUX_WORKER_OFFLINE", "FLUX_WORKER_EVICTED"} & {
        f.code for f in findings
    }
