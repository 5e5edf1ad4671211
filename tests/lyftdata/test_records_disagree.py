"""A worker the LyftData list names twice, its entries disagreeing, decides no rung by order.

From the committed ``lyftdata-corrupt_state_crashloop`` sample (edge-01 silent, its SQLite
state corrupt), ``GET /api/workers`` is made to list edge-01 a second time, online with a
fresh heartbeat. The bundle is written as the collector would have written it and read by
``bundler analyze``, which re-derives the evidence with the LyftData profile. The LyftData rule
that makes corrupt state the cause of a *silent* worker read the first entry only: it failed
the heartbeat rung when the offline entry came first, and let the ladder reach deployment
when the online one did.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bundler.cli import cli
from tests.support.sample_bundles import load_sample, write_sample_dir

SAMPLE = "lyftdata-corrupt_state_crashloop"


@pytest.mark.parametrize("online_first", [False, True])
def test_a_connection_two_entries_disagree_on_is_unknown_whichever_comes_first(
    tmp_path: Path, online_first: bool
) -> None:
    source, manifest = load_sample(SAMPLE)
    [silent] = json.loads(source.read_bytes("raw/http/workers.json"))
    fresh = manifest.created_at.replace(microsecond=0).isoformat().replace("+00:00", "Z")
    online = dict(silent, state="online", last_heartbeat_at=fresh)
    rows = [online, silent] if online_first else [silent, online]
    changed = {"raw/http/workers.json": json.dumps(rows).encode()}
    bundle = write_sample_dir(SAMPLE, tmp_path / "b", changed)
    result = CliRunner().invoke(cli, ["analyze", str(bundle), "--format", "json"])
    report = json.loads(result.stdout)
    assert report["bundle"]["integrity"]["status"] == "verified"
    assert (result.exit_code, report["verdict"], report["first_failed_layer"]) == (
        1,
        "blocked",
        "deployment",  # the corrupt state file, which neither entry disputes
    )
    [target] = report["targets"]
    heartbeat = next(layer for layer in target["layers"] if layer["name"] == "heartbeat")
    assert heartbeat["status"] == "unknown"
    assert [f["code"] for f in heartbeat["findings"]] == ["WORKER_RECORDS_CONFLICT"]
