"""A host the inventory lists twice: one worker's local state read under two aliases.

``bundler doctor`` gives each inventory entry an alias of its own (h01, h02), so a host
listed twice is collected twice and its worker's state files and control socket are
normalized once per alias. Keyed by host alias, path and worker, the two records of one
file were two entries: the local-state rules judged both and let the worse one win (a
database read ``ok`` under h01 and ``corrupt`` under h02 failed the deployment rung), and
Flux consulted the worker's control status under the first alias only. A worker's file is
one entry whichever alias read it: records that agree decide, records that disagree leave
the rung unknown (``EVIDENCE_RECORDS_CONFLICT``), in either order.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bundler.cli import cli
from schemas import MANIFEST_MEMBER
from schemas.manifest import CollectorStatus
from tests.support.sample_bundles import load_sample

CONFLICT = "EVIDENCE_RECORDS_CONFLICT"
CORRUPT = b"*** in database main ***\nPage 3: btreeInitPage() returns error code 11\n"


def _listed_twice(
    sample: str,
    root: Path,
    alias: str,
    changed: dict[str, tuple[bytes | None, dict[str, Any]]],
    *,
    first: bool = False,
) -> Path:
    """``sample`` as if the inventory listed host ``alias`` again, as the next alias: every
    collector and member of it once more; ``changed`` (step -> output, or None for none,
    and the collector's outcome) is what the second collection read instead (with
    ``first``, what the first one read)."""
    source, manifest = load_sample(sample)
    contents = {member: source.read_bytes(member) for member in source.names()}
    hosts = list(manifest.target.hosts)
    again = f"h{len(hosts) + 1:02d}"
    hosts.append(next(h for h in hosts if h.alias == alias).model_copy(update={"alias": again}))
    collectors = list(manifest.collectors)
    entries = list(manifest.members)
    prefix = f"hosts/{alias}/"
    for ran in manifest.collectors:
        if ran.target != alias:
            continue
        members = [m.replace(prefix, f"hosts/{again}/", 1) for m in ran.members]
        collectors.append(
            ran.model_copy(
                update={"id": ran.id.replace(f".{alias}.", f".{again}.", 1), "target": again,
                        "members": members}
            )
        )  # fmt: skip
        for old, new in zip(ran.members, members, strict=True):
            entry = next(e for e in manifest.members if e.path == old)
            entries.append(entry.model_copy(update={"path": new, "collector": collectors[-1].id}))
            contents[new] = contents[old]
    for step, (data, outcome) in changed.items():
        which = alias if first else again
        ran = next(c for c in collectors if c.target == which and c.step == step)
        [member] = ran.members
        update = {"members": [member] if data is not None else [], **outcome}
        collectors[collectors.index(ran)] = ran.model_copy(update=update)
        if data is None:
            del contents[member]
            entries = [e for e in entries if e.path != member]
            continue
        contents[member] = data
        digest = hashlib.sha256(data).hexdigest()
        entries = [
            e.model_copy(update={"sha256": digest, "size": len(data)}) if e.path == member else e
            for e in entries
        ]
    target = manifest.target.model_copy(update={"hosts": hosts})
    manifest = manifest.model_copy(
        update={"target": target, "collectors": collectors, "members": entries}
    )
    for member, data in contents.items():
        if member != MANIFEST_MEMBER:
            (root / member).parent.mkdir(parents=True, exist_ok=True)
            (root / member).write_bytes(data)
    (root / MANIFEST_MEMBER).write_text(manifest.model_dump_json(by_alias=True, indent=2))
    return root


def _analyzed(bundle: Path) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(cli, ["analyze", str(bundle), "--format", "json"])
    assert result.exit_code in (0, 1, 3), result.stderr
    report = json.loads(result.stdout)
    assert report["bundle"]["integrity"]["status"] == "verified"
    assert report["fleet_findings"][0]["code"] == "EVIDENCE_REDERIVED"
    return result.exit_code, report


def _rung(report: dict[str, Any], worker: str, layer: str) -> dict[str, Any]:
    target = next(t for t in report["targets"] if t["worker"] == worker)
    return next(r for r in target["layers"] if r["name"] == layer)


def test_a_host_listed_twice_alike_is_one_host(tmp_path: Path) -> None:
    code, report = _analyzed(_listed_twice("lyftdata-healthy", tmp_path, "h01", {}))
    assert (code, report["verdict"]) == (0, "healthy")


@pytest.mark.parametrize("corrupt_first", [False, True])
def test_a_database_read_ok_under_one_alias_and_corrupt_under_the_other_is_unknown(
    tmp_path: Path, corrupt_first: bool
) -> None:
    """LyftData's worker.db checked under h01 and again under h02: ok once, corrupt once."""
    changed = {"sqlite-worker": (CORRUPT, {"exit_code": 11})}
    bundle = _listed_twice("lyftdata-healthy", tmp_path, "h01", changed, first=corrupt_first)
    code, report = _analyzed(bundle)
    assert (code, report["verdict"], report["first_failed_layer"]) == (3, "inconclusive", None)
    rung = _rung(report, "edge-01", "deployment")
    assert (rung["status"], [f["code"] for f in rung["findings"]]) == ("unknown", [CONFLICT])
    [finding] = rung["findings"]
    assert finding["message"].startswith("The local state file worker.db of edge-01 is listed 2")


@pytest.mark.parametrize("refused_first", [False, True])
def test_a_control_socket_answering_under_one_alias_and_refusing_under_the_other_is_unknown(
    tmp_path: Path, refused_first: bool
) -> None:
    """Flux's w1 host listed twice: ``flux worker status w1`` answered under one alias and was
    refused under the other. The socket under the second alias was judged by the first
    alias's answer (the worker's control status was read under its first alias only), so
    the refusal was never evidence and the heartbeat passed."""
    refused = {
        "status": CollectorStatus.FAILED,
        "exit_code": 1,
        "error_class": "CommandFailed",
        "error_message": "exit 1: Error talking to worker 'w1': [Errno 111] Connection refused",
    }
    bundle = _listed_twice(
        "flux-healthy", tmp_path, "h02", {"worker-status": (None, refused)}, first=refused_first
    )
    code, report = _analyzed(bundle)
    assert (code, report["verdict"]) == (3, "inconclusive")
    rung = _rung(report, "w1", "heartbeat")
    assert rung["status"] == "unknown"
    [finding] = [f for f in rung["findings"] if f["code"] == CONFLICT]
    assert finding["message"].startswith("The control socket worker-w1.sock of w1 is listed 2")


@pytest.mark.parametrize("paused_first", [False, True])
def test_a_worker_active_under_one_alias_and_paused_under_the_other_is_unknown(
    tmp_path: Path, paused_first: bool
) -> None:
    """Flux's w1 host listed twice: ``flux worker status w1`` says active under one alias and
    paused under the other. The worker's admin state was read under its first alias only,
    so the inventory's order decided whether w1 was paused. Each alias's answer is a record
    of w1: they disagree, so what they disagree on decides nothing."""
    paused = b'{"status": "paused", "in_flight": 0, "healthy": true}\n'
    bundle = _listed_twice(
        "flux-healthy", tmp_path, "h02", {"worker-status": (paused, {})}, first=paused_first
    )
    code, report = _analyzed(bundle)
    assert (code, report["verdict"]) == (3, "inconclusive")
    rung = _rung(report, "w1", "heartbeat")
    assert rung["status"] == "unknown"
    [finding] = [f for f in rung["findings"] if f["code"] == "WORKER_RECORDS_CONFLICT"]
    assert "admin: active / paused" in finding["message"] or (
        "admin: paused / active" in finding["message"]
    )


NEARLY_FULL = (
    b"Filesystem     1024-blocks     Used Available Capacity Mounted on\n"
    b"/dev/vda         264212084 260000000   4212084      99% /\n"
)
"""``df -P -k`` of w1's state directory with 4 GiB of 252 GiB left: nearly full."""


@pytest.mark.parametrize("full_first", [False, True])
def test_a_volume_nearly_full_under_one_alias_and_roomy_under_the_other_is_unknown(
    tmp_path: Path, full_first: bool
) -> None:
    """Flux's w1 host listed twice: ``df`` of its state directory read 38 % used under one
    alias and 99 % under the other. The volume rule warned on whichever record was nearly
    full (the worse one won); the disk rule read the first. One volume, two counts that
    disagree: the capacity rung is unknown, each record cited, in either order."""
    changed = {"state-volume": (NEARLY_FULL, {})}
    bundle = _listed_twice("flux-healthy", tmp_path, "h02", changed, first=full_first)
    code, report = _analyzed(bundle)
    assert (code, report["verdict"]) == (3, "inconclusive")
    rung = _rung(report, "w1", "capacity")
    assert rung["status"] == "unknown"
    [finding] = [f for f in rung["findings"] if f["code"] == CONFLICT]
    assert finding["message"].startswith(
        "The volume under the state directory of w1 is listed 2 times"
    )
    assert {c["pointer"] for c in finding["evidence"] if c["member"].startswith("evidence/")} == {
        "/volumes/1/free_bytes",
        "/volumes/3/free_bytes",
    }
    assert "FLUX_WORKER_DISK_NEARLY_FULL" not in {f["code"] for f in rung["findings"]}


def test_a_volume_read_alike_under_two_aliases_is_one_volume(tmp_path: Path) -> None:
    """Flux's w1 host listed twice, ``df`` reading the same under both aliases: the records
    differ only in where they were read (alias, member), so they are one volume, no
    conflict, and the fleet stays healthy."""
    code, report = _analyzed(_listed_twice("flux-healthy", tmp_path, "h02", {}))
    assert (code, report["verdict"]) == (0, "healthy")
    assert CONFLICT not in json.dumps(report)
