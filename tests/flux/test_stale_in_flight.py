"""A worker's ``in_flight`` that the executions listing does not bear out decides no slot.

Flux's ``GET /workers`` gives ``in_flight`` from the worker's last pong: a value that can
outlive the executions it counted (seen: ``in_flight: 2`` on a worker with nothing
running). From the committed ``flux-saturated`` sample (a real Flux: one-slot zone=c
worker w3 runs one execution while two more wait), w3's execution is made to have
finished, in the listing, its detail and the database row alike, while ``GET /workers``
still says ``in_flight: 1``. Before, the stale number alone made w3 full and the waiting
runs "blocked: every worker that may run it is full". The two sources are now two capacity
records of w3 that disagree: capacity is unknown, citing both, never "saturated".
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from bundler.cli import cli
from tests.support.sample_bundles import load_sample, write_sample_dir

SAMPLE = "flux-saturated"
FINISHED = "d1ff88e8912241aeba2a16c79dd14ed5"
"""w3's one claimed execution in the sample."""


def _finished(in_flight: int | None) -> dict[str, bytes]:
    """The sample's members as if w3's execution had completed, its pong saying ``in_flight``."""
    source, _ = load_sample(SAMPLE)

    def edit(member: str, change: object) -> None:
        data = json.loads(source.read_bytes(member))
        changed[member] = json.dumps(change(data)).encode()  # type: ignore[operator]

    changed: dict[str, bytes] = {}
    edit(
        "raw/http/workers.json",
        lambda rows: [dict(r, in_flight=in_flight) if r["name"] == "w3" else r for r in rows],
    )
    edit("raw/http/executions-claimed.json", lambda page: dict(page, executions=[], total=0))
    edit("raw/http/execution-claimed/000.json", lambda run: dict(run, state="COMPLETED"))
    edit(
        "hosts/h01/db-executions.json",
        lambda rows: [
            dict(r, state="COMPLETED") if r["execution_id"] == FINISHED else r for r in rows
        ],
    )
    return changed


def _analyze(tmp_path: Path, in_flight: int | None) -> tuple[int, dict[str, object]]:
    bundle = write_sample_dir(SAMPLE, tmp_path / "b", _finished(in_flight))
    result = CliRunner().invoke(cli, ["analyze", str(bundle), "--format", "json"])
    return result.exit_code, json.loads(result.stdout)


def test_a_stale_in_flight_beside_an_empty_listing_is_unknown_not_saturated(
    tmp_path: Path,
) -> None:
    code, report = _analyze(tmp_path, in_flight=1)
    assert report["bundle"]["integrity"]["status"] == "verified"  # type: ignore[index]
    assert (code, report["verdict"], report["first_failed_layer"]) == (3, "inconclusive", None)
    [capacity] = [
        layer
        for target in report["targets"]  # type: ignore[attr-defined]
        for layer in target["layers"]
        if layer["name"] == "capacity" and target["worker"] == "w3"
    ][:1]
    assert capacity["status"] == "unknown"
    [finding] = capacity["findings"]
    assert finding["code"] == "WORKER_RECORDS_CONFLICT"
    assert "slots_in_use: 1 / 0" in finding["message"]
    cited = {(c["member"], c["pointer"]) for c in finding["evidence"]}
    assert {m for m, _ in cited} == {"evidence/capacity.json"}
    assert len(cited) >= 2  # the server's figure and the one counted from the executions
    said = json.dumps(report)
    assert "SLOTS_SATURATED" not in said
    assert "WORKER_SATURATED" not in said


def test_an_in_flight_the_listing_bears_out_is_one_record(tmp_path: Path) -> None:
    """The same bundle with a pong that agrees: w3 is free, its slot decided by one record."""
    code, report = _analyze(tmp_path, in_flight=0)
    assert (code, report["verdict"]) == (0, "degraded")  # FLUX_DISPATCH_PENDING: a free slot
    assert "WORKER_RECORDS_CONFLICT" not in json.dumps(report)
