"""A worker ``GET /workers`` lists twice, its rows disagreeing, decides no rung by list order.

From the committed ``flux-saturated`` sample (a real Flux: the one-slot zone=c worker w3 runs
one execution while two more wait for it), Flux's worker list is made to name w3 a second time
with a free slot (``in_flight: 0``). The bundle is written as the collector would have written
it (checksums matching) and read by ``bundler analyze``, which re-derives the evidence from the
raw answer with the Flux profile: w3 then has two worker records and two capacity records.
Before, the first of each decided: blocked on a full slot one way round, inconclusive the other.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bundler.cli import cli
from tests.support.sample_bundles import load_sample, write_sample_dir

SAMPLE = "flux-saturated"


def _rows(free_first: bool) -> list[dict[str, Any]]:
    source, _ = load_sample(SAMPLE)
    rows = json.loads(source.read_bytes("raw/http/workers.json"))
    at = next(i for i, row in enumerate(rows) if row["name"] == "w3")
    free = dict(rows[at], in_flight=0)
    if free.get("metrics"):  # the worker's own gauges say the same free slot
        free["metrics"] = {
            **free["metrics"],
            "flux.running_executions": 0.0,
            "flux.slots_free": 1.0,
        }
    rows.insert(at if free_first else len(rows), free)
    return rows


@pytest.mark.parametrize("free_first", [False, True])
def test_a_slot_two_rows_disagree_on_is_unknown_whichever_row_comes_first(
    tmp_path: Path, free_first: bool
) -> None:
    listed = json.dumps(_rows(free_first)).encode()
    bundle = write_sample_dir(SAMPLE, tmp_path / "b", {"raw/http/workers.json": listed})
    result = CliRunner().invoke(cli, ["analyze", str(bundle), "--format", "json"])
    report = json.loads(result.stdout)
    assert report["bundle"]["integrity"]["status"] == "verified"
    assert (result.exit_code, report["verdict"], report["first_failed_layer"]) == (
        3,
        "inconclusive",
        None,
    )
    for target in report["targets"]:
        assert target["worker"] == "w3"
        rungs = {layer["name"]: layer for layer in target["layers"]}
        assert rungs["heartbeat"]["status"] == "pass"  # both rows say online: decided
        capacity = rungs["capacity"]
        assert capacity["status"] == "unknown"
        assert [f["code"] for f in capacity["findings"]] == ["WORKER_RECORDS_CONFLICT"]
        cited = {(c["member"], c["pointer"]) for c in capacity["findings"][0]["evidence"]}
        # each w3 record (by a field the rows disagree on), and each raw row by its in_flight;
        # the row Flux gave without one, as the row itself
        rows = json.loads(listed)
        for index in (1, 2):
            record = f"/workers/{index}"
            assert any(
                member == "evidence/workers.json" and (at == record or at.startswith(record + "/"))
                for member, at in cited
            )
            field = "/in_flight" if rows[index].get("in_flight") is not None else ""
            assert ("raw/http/workers.json", f"/{index}{field}") in cited
