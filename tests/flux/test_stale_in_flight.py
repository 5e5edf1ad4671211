"""A worker's ``in_flight`` that another source does not bear out decides no slot.

Flux's ``GET /workers`` gives ``in_flight`` from the worker's last pong: a value that can
outlive the executions it counted (seen: ``in_flight: 2`` on a worker with nothing
running). From the committed ``flux-saturated`` sample (a real Flux: one-slot zone=c
worker w3 runs one execution while two more wait), w3's execution is made to have
finished, in the listing, its detail and the database row alike, while ``GET /workers``
still says ``in_flight: 1``. Before, the stale number alone made w3 full and the waiting
runs "blocked: every worker that may run it is full". The two sources are now two capacity
records of w3 that disagree: capacity is unknown, citing both, never "saturated".

The worker's control socket (``flux worker status w3`` on its host, read live) is the third
count: agreeing with the other two it is cited beside them; contradicting them (``in_flight:
0`` while the pong and the listing hold the run) it is a record of its own, and the
contradiction is named with each source's raw answer cited, not outvoted.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from bundler.cli import cli
from tests.support.sample_bundles import load_sample, write_sample_dir

SAMPLE = "flux-saturated"


def _claimed() -> str:
    """w3's one claimed execution in the sample (read from it: a regenerated sample has
    another id)."""
    source, _ = load_sample(SAMPLE)
    page = json.loads(source.read_bytes("raw/http/executions-claimed.json"))
    [execution] = [e for e in page["executions"] if e.get("worker_name") == "w3"]
    return str(execution["execution_id"])


W3_CONTROL = "hosts/h03/worker-status.json"
"""What w3's control socket answered (``flux worker status w3``): ``in_flight: 1``."""


def _edit(changed: dict[str, bytes], member: str, change: object) -> None:
    source, _ = load_sample(SAMPLE)
    data = json.loads(changed.get(member) or source.read_bytes(member))
    changed[member] = json.dumps(change(data)).encode()  # type: ignore[operator]


def _pong(changed: dict[str, bytes], in_flight: int | None) -> dict[str, bytes]:
    """``changed`` with w3's last pong (``GET /workers``) saying ``in_flight``, and the gauges
    it published with it (``flux.running_executions``, ``flux.slots_free`` of its one slot)
    saying the same."""

    def pong(row: dict[str, Any]) -> dict[str, Any]:
        if row["name"] != "w3":
            return row
        if row.get("metrics") and in_flight is not None:
            gauges = {
                "flux.running_executions": float(in_flight),
                "flux.slots_free": 1.0 - in_flight,
            }
            row = dict(row, metrics={**row["metrics"], **gauges})
        return dict(row, in_flight=in_flight)

    _edit(changed, "raw/http/workers.json", lambda rows: [pong(r) for r in rows])
    return changed


def _control(changed: dict[str, bytes], in_flight: int) -> dict[str, bytes]:
    """``changed`` with w3's control socket counting ``in_flight``."""
    _edit(changed, W3_CONTROL, lambda answer: dict(answer, in_flight=in_flight))
    return changed


def _finished(in_flight: int | None, control: int = 1) -> dict[str, bytes]:
    """The sample's members as if w3's execution had completed, its pong saying ``in_flight``
    and its control socket ``control`` (the sample's: 1)."""
    changed = _pong({}, in_flight)

    def edit(member: str, change: object) -> None:
        _edit(changed, member, change)

    if control != 1:
        _control(changed, control)
    edit("raw/http/executions-claimed.json", lambda page: dict(page, executions=[], total=0))
    edit("raw/http/execution-claimed/000.json", lambda run: dict(run, state="COMPLETED"))
    finished = _claimed()
    edit(
        "hosts/h01/db-executions.json",
        lambda rows: [
            dict(r, state="COMPLETED") if r["execution_id"] == finished else r for r in rows
        ],
    )
    return changed


def _analyze(tmp_path: Path, changed: dict[str, bytes]) -> tuple[int, dict[str, object]]:
    bundle = write_sample_dir(SAMPLE, tmp_path / "b", changed)
    result = CliRunner().invoke(cli, ["analyze", str(bundle), "--format", "json"])
    return result.exit_code, json.loads(result.stdout)


def _capacity(report: dict[str, object], worker: str = "w3") -> dict[str, Any]:
    """The capacity rung of ``worker``'s first target."""
    rungs: list[dict[str, Any]] = [
        layer
        for target in report["targets"]  # type: ignore[attr-defined]
        for layer in target["layers"]
        if layer["name"] == "capacity" and target["worker"] == worker
    ]
    return rungs[0]


def test_a_stale_in_flight_beside_an_empty_listing_is_unknown_not_saturated(
    tmp_path: Path,
) -> None:
    code, report = _analyze(tmp_path, _finished(in_flight=1))
    assert report["bundle"]["integrity"]["status"] == "verified"  # type: ignore[index]
    assert (code, report["verdict"], report["first_failed_layer"]) == (3, "inconclusive", None)
    capacity = _capacity(report)
    assert capacity["status"] == "unknown"
    [finding] = capacity["findings"]
    assert finding["code"] == "WORKER_RECORDS_CONFLICT"
    assert "slots_in_use: 1 / 0" in finding["message"]
    cited = {(c["member"], c["pointer"]) for c in finding["evidence"]}
    records = {p for m, p in cited if m == "evidence/capacity.json"}
    assert len(records) == 2  # the server's figure and the one counted from the executions
    # each count cited in its source's own words: the pong (and the control socket, which
    # still says 1 here, agreeing with it) beside the listing's record
    assert ("raw/http/workers.json", "/1/in_flight") in cited
    assert (W3_CONTROL, "/in_flight") in cited
    said = json.dumps(report)
    assert "SLOTS_SATURATED" not in said
    assert "WORKER_SATURATED" not in said


def test_an_in_flight_the_listing_bears_out_is_one_record(tmp_path: Path) -> None:
    """The same bundle with a pong that agrees: w3 is free, its slot decided by one record."""
    code, report = _analyze(tmp_path, _finished(in_flight=0, control=0))
    assert (code, report["verdict"]) == (0, "degraded")  # FLUX_DISPATCH_PENDING: a free slot
    assert "WORKER_RECORDS_CONFLICT" not in json.dumps(report)


def test_a_control_socket_that_contradicts_the_pong_and_listing_is_named_not_outvoted(
    tmp_path: Path,
) -> None:
    """w3's pong and the listing both hold its run; its control socket says it runs nothing.
    Two against one decides nothing: capacity is unknown, the socket's answer and the
    pong's both cited, and no "saturated" verdict rests on the majority."""
    code, report = _analyze(tmp_path, _control(_pong({}, 1), 0))
    assert (code, report["verdict"], report["first_failed_layer"]) == (3, "inconclusive", None)
    capacity = _capacity(report)
    assert capacity["status"] == "unknown"
    [finding] = capacity["findings"]
    assert finding["code"] == "WORKER_RECORDS_CONFLICT"
    assert "slots_in_use: 1 / 0" in finding["message"]  # the pong's record first
    cited = {(c["member"], c["pointer"]) for c in finding["evidence"]}
    assert (W3_CONTROL, "/in_flight") in cited
    assert ("raw/http/workers.json", "/1/in_flight") in cited
    assert "SLOTS_SATURATED" not in json.dumps(report)


def test_three_sources_that_agree_are_each_cited_with_the_verdict(tmp_path: Path) -> None:
    """The sample as collected, its pong counting w3's run as its control socket and the
    listing do: the saturated verdict stands, and cites each of them."""
    code, report = _analyze(tmp_path, _pong({}, 1))
    assert (code, report["first_failed_layer"]) == (1, "capacity")
    [finding] = [f for f in _capacity(report)["findings"] if f["code"] == "FLUX_SLOTS_SATURATED"]
    cited = {(c["member"], c["pointer"]) for c in finding["evidence"]}
    assert (W3_CONTROL, "/in_flight") in cited
    assert ("raw/http/workers.json", "/1/in_flight") in cited
    assert "WORKER_RECORDS_CONFLICT" not in json.dumps(report)
