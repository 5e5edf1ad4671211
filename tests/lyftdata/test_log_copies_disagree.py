"""Copies of a worker's log that disagree about corrupt state or a lost connection are named.

A LyftData bundle may hold a worker's log three times: the host's log read over SSH, the
lines ``GET /api/workers/{id}/logs`` returned and the ``lyftdata workers logs`` output
captured on the host. The corrupt-state and heartbeat findings read their events from every
copy; where one copy holds such a line and another, covering that time, lacks it, the
finding says so and cites both, rather than silently resting on one. Only the
authorization rung said so before. Each bundle here is the simulator's, collected by the
real doctor; a copy's time is from its first dated line to its last.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from bundler.analyze.engine import analyze
from bundler.products.lyftdata import PROFILE
from samples.lyftdata_sim.loader import SCENARIO_DIR, merge
from schemas import AnalysisReport, Finding
from tests.support.lyftdata_collect import collect
from tests.support.lyftdata_sim import running_simulator

CORRUPT = "job store write failed for [ingest-events]: database disk image is malformed"
LOST = "heartbeat to server failed: connection refused (attempt 9)"


def _resolved(name: str) -> dict[str, Any]:
    """A shipped scenario with the one it ``extends`` merged under it."""
    data = yaml.safe_load((SCENARIO_DIR / f"{name}.yaml").read_text())
    parent = data.pop("extends", None)
    return merge(_resolved(parent), data) if parent else data  # type: ignore[no-any-return]


def _analyzed(tmp_path: Path, base: str, changes: dict[str, Any]) -> AnalysisReport:
    """Scenario ``base`` with ``changes`` merged over it, collected and analyzed."""
    scenario = _resolved(base)
    scenario.pop("expect", None)
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(merge(scenario, {"description": base, **changes})))
    with running_simulator(str(path), tmp_path / "run") as sim:
        return analyze(collect(sim).evidence(), profile=PROFILE)


def _finding(report: AnalysisReport, code: str) -> Finding:
    target = next(t for t in report.targets if t.worker == "edge-01")
    return next(f for layer in target.layers for f in layer.findings if f.code == code)


def _line(at: str, level: str, target: str, message: str) -> dict[str, str]:
    return {"at": at, "level": level, "target": target, "message": message}


def _healthy_host_log() -> list[dict[str, str]]:
    healthy = yaml.safe_load((SCENARIO_DIR / "healthy.yaml").read_text())
    return [dict(line) for line in healthy["hosts"][0]["log_lines"]]


def test_corrupt_state_the_host_log_lacks_within_its_time_is_named(tmp_path: Path) -> None:
    """The API's copy (and the CLI's, the same lines) reports corrupt state 20 minutes ago;
    the host's log, which runs from 30 minutes ago to 2 minutes ago, has no such line. The
    finding rests on the line, names the host log as lacking it, and cites both copies."""
    healthy = yaml.safe_load((SCENARIO_DIR / "healthy.yaml").read_text())
    logs = healthy["workers"][0]["logs"] + [
        _line("-20m", "ERROR", "lyftdata_worker::state", CORRUPT)
    ]
    report = _analyzed(tmp_path, "healthy", {"workers": [{"id": "edge-01", "logs": logs}]})
    finding = _finding(report, "LOCAL_STATE_CORRUPT")
    assert "The copies of its log disagree" in finding.message
    assert "the worker log the control plane's API returned and the `lyftdata workers logs` " \
        "output captured on a host holds a line corrupt-state" in finding.message  # fmt: skip
    assert "that the worker host's log lacks, though it covers" in finding.message
    cited = [c.member for c in finding.evidence]
    assert any(m.startswith("raw/http/worker-logs/") for m in cited)
    assert any(m.endswith("/lyftdata-workers-logs.txt") for m in cited)
    [host] = [c for c in finding.evidence if "/logs/" in c.member and c.member.startswith("hosts/")]
    assert host.lines is not None
    assert (host.lines.start, host.lines.end) == (1, 4), "the host log's whole span"
    assert (host.excerpt or "").startswith("covers ")


def test_corrupt_state_every_copy_holds_is_no_disagreement(tmp_path: Path) -> None:
    """The same line in the host's log too: one event, cited in each copy, nothing to say."""
    healthy = yaml.safe_load((SCENARIO_DIR / "healthy.yaml").read_text())
    corrupt = _line("-20m", "ERROR", "lyftdata_worker::state", CORRUPT)
    report = _analyzed(
        tmp_path,
        "healthy",
        {
            "workers": [{"id": "edge-01", "logs": healthy["workers"][0]["logs"] + [corrupt]}],
            "hosts": [{"worker": "edge-01", "log_lines": [*_healthy_host_log(), corrupt]}],
        },
    )
    finding = _finding(report, "LOCAL_STATE_CORRUPT")
    assert "disagree" not in finding.message
    assert len([c for c in finding.evidence if CORRUPT in (c.excerpt or "")]) == 3


def test_a_lost_connection_only_the_host_log_holds_is_named_on_the_heartbeat_rung(
    tmp_path: Path,
) -> None:
    """The stale worker's host log holds a connection loss 200 s ago that the API's copy,
    running from 410 s ago to 5 s ago, lacks; one 20 minutes ago is before the API's copy
    begins, so it is no disagreement. WORKER_OFFLINE says so and cites both copies."""
    lines = [
        _line("-20m", "WARN", "lyftdata_worker::comms", LOST.replace("9", "0")),
        _line("-410s", "WARN", "lyftdata_worker::comms",
              "heartbeat to server failed: connection refused (attempt 1)"),
        _line("-200s", "WARN", "lyftdata_worker::comms", LOST),
        _line("-5s", "ERROR", "lyftdata_worker::comms",
              "heartbeat to server failed: connection refused (attempt 27)"),
    ]  # fmt: skip
    report = _analyzed(
        tmp_path, "heartbeat_stale", {"hosts": [{"worker": "edge-01", "log_lines": lines}]}
    )
    finding = _finding(report, "WORKER_OFFLINE")
    assert "The copies of its log disagree: the worker host's log holds a line connection-lost" \
        in finding.message  # fmt: skip
    assert "that the worker log the control plane's API returned lacks" in finding.message
    api = [c for c in finding.evidence if c.member.startswith("raw/http/worker-logs/")]
    assert [c.pointer for c in api] == ["/lines"]
    host = [c for c in finding.evidence if LOST in (c.excerpt or "")]
    assert len(host) == 1
    assert all("attempt 0" not in (c.excerpt or "") for c in finding.evidence)
