"""``bundler analyze``: formats, exit codes, usage errors, and strictly offline."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bundler.cli import cli
from schemas import CollectorOutcome
from schemas.evidence import ConnectionState, JobPhase, JobRequirements, ResourceRequest
from tests.support.evidence import Fleet, write_bundle_dir


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["analyze", *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("bundler analyze tried to open a network connection")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def test_analyze_is_strictly_offline(no_network: None, tmp_path: Path, fleet: Fleet) -> None:
    bundle = write_bundle_dir(fleet, tmp_path / "b", profile="flux")
    for fmt in ("json", "text", "markdown"):
        code, out, err = _run(str(bundle), "--format", fmt)
        assert code == 0, err
        assert out
    with pytest.raises(AssertionError):
        socket.create_connection(("127.0.0.1", 9))  # the guard really is in place


def test_json_output_and_exit_0_when_healthy(tmp_path: Path, fleet: Fleet) -> None:
    code, out, _ = _run(str(write_bundle_dir(fleet, tmp_path / "b")), "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["verdict"] == "healthy"
    assert data["bundle"]["integrity"]["status"] == "verified"
    assert data["bundle"]["bundle_id"].startswith("b-test-")


def test_exit_1_when_a_layer_fails(tmp_path: Path, fleet: Fleet) -> None:
    fleet.worker("w1").connection = ConnectionState.OFFLINE
    code, out, _ = _run(str(write_bundle_dir(fleet, tmp_path / "b")), "--format", "json")
    assert code == 1
    assert json.loads(out)["first_failed_layer"] == "heartbeat"


def test_exit_3_when_inconclusive(tmp_path: Path, fleet: Fleet) -> None:
    fleet.outcome = None
    code, out, _ = _run(str(write_bundle_dir(fleet, tmp_path / "b")), "--job", "ingest")
    assert code == 3
    assert "INCONCLUSIVE" in out


def test_exit_0_when_degraded(tmp_path: Path, fleet: Fleet) -> None:
    assert fleet.outcome is not None
    fleet.outcome.receipts[0].strength = "accepted"
    code, out, _ = _run(str(write_bundle_dir(fleet, tmp_path / "b")), "--format", "markdown")
    assert code == 0
    assert out.startswith("# bundler analyze: **DEGRADED")


def test_worker_and_job_filters(tmp_path: Path, fleet: Fleet) -> None:
    fleet.job("ingest").phase = JobPhase.COMPLETED
    bundle = str(write_bundle_dir(fleet, tmp_path / "b"))
    code, out, _ = _run(bundle, "--worker", "w2", "--format", "json")
    assert code == 0
    assert [(t["worker"], t["job"]) for t in json.loads(out)["targets"]] == [("w2", None)]
    code, out, _ = _run(bundle, "--job", "ingest", "--worker", "w2", "--format", "json")
    assert code == 1
    assert json.loads(out)["first_failed_layer"] == "placement"


def test_unknown_worker_is_a_one_line_usage_error(tmp_path: Path, fleet: Fleet) -> None:
    code, out, err = _run(str(write_bundle_dir(fleet, tmp_path / "b")), "--worker", "w9")
    assert code == 2
    assert out == ""
    assert err.splitlines() == [
        "bundler: error: no worker called 'w9' in this bundle",
        "bundler: hint: known workers: w1, w2",
    ]


@pytest.mark.parametrize("kind", ["missing", "empty-dir", "zip-file"])
def test_unreadable_input_exits_2_without_traceback(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "x"
    if kind == "empty-dir":
        path.mkdir()
    elif kind == "zip-file":
        path.write_bytes(b"PK\x03\x04not really")
    code, _out, err = _run(str(path))
    assert code == 2
    assert "Traceback" not in err
    assert err.startswith("bundler: error: ")


def test_tampered_bundle_is_analyzed_and_flagged_at_the_top(tmp_path: Path, fleet: Fleet) -> None:
    bundle = write_bundle_dir(fleet, tmp_path / "b")
    path = bundle / "evidence" / "capacity.json"
    path.write_text(path.read_text().replace('"cpu_util_pct": 30.0', '"cpu_util_pct": 31.0'))
    code, out, _ = _run(str(bundle))
    # the tampered member is not read, so capacity is unknown: inconclusive, never healthy
    assert code == 3
    head = out[: out.index("Targets")]
    assert "Integrity: TAMPERED — checksum mismatch: evidence/capacity.json" in head


def test_help_documents_exit_codes() -> None:
    result = CliRunner().invoke(cli, ["analyze", "--help"])
    assert result.exit_code == 0
    assert "3 inconclusive" in result.output
    assert "--password-env" in result.output


def test_console_script_runs_in_a_subprocess(tmp_path: Path, fleet: Fleet) -> None:
    bundle = write_bundle_dir(fleet, tmp_path / "b")
    proc = subprocess.run(
        [sys.executable, "-m", "bundler", "analyze", str(bundle), "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["verdict"] == "healthy"


@pytest.mark.parametrize("stamp", ["0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59-05:00"])
def test_a_time_out_of_range_in_utc_is_invalid_evidence_not_a_crash(
    tmp_path: Path, fleet: Fleet, stamp: str
) -> None:
    """A heartbeat time whose offset carries it past datetime's range: a named problem."""
    assert fleet.workers is not None
    document = fleet.workers.model_dump(mode="json", by_alias=True)
    document["workers"][0]["last_heartbeat_at"] = stamp
    fleet.workers = None
    members = {"evidence/workers.json": json.dumps(document).encode()}
    bundle = write_bundle_dir(fleet, tmp_path / "b", members=members)
    code, out, err = _run(str(bundle), "--format", "json")
    assert code in (1, 3), err
    assert (
        "evidence/workers.json: invalid at /workers/0/last_heartbeat_at: Value error, "
        "timestamp is out of range once converted to UTC"
    ) in out


@pytest.mark.parametrize("age", ["Infinity", "NaN", "-Infinity"])
def test_a_heartbeat_age_that_is_not_a_number_is_invalid_evidence(
    tmp_path: Path, fleet: Fleet, age: str
) -> None:
    """Python's json reads Infinity and NaN; the page showed them as ``infd`` and ``nans``."""
    assert fleet.workers is not None
    document = fleet.workers.model_dump(mode="json", by_alias=True)
    document["workers"][0]["heartbeat_age_s"] = "AGE"
    fleet.workers = None
    data = json.dumps(document).encode().replace(b'"AGE"', age.encode())
    bundle = write_bundle_dir(fleet, tmp_path / "b", members={"evidence/workers.json": data})
    code, out, err = _run(str(bundle), "--format", "json")
    assert code in (1, 3), err
    assert (
        "evidence/workers.json has a number that is not finite at /workers/0/heartbeat_age_s" in out
    )


def _with_number(document: Any, where: str, number: str) -> bytes:
    """``document`` as JSON with ``number`` written verbatim at the pointer ``where``."""
    node = document
    *parents, leaf = where.strip("/").split("/")
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    node[leaf] = "NUMBER"
    return json.dumps(document).encode().replace(b'"NUMBER"', number.encode())


@pytest.mark.parametrize(
    ("member", "where", "number"),
    [
        ("manifest.json", "/collectors/0/duration_s", "1e400"),
        ("manifest.json", "/collectors/0/duration_s", "NaN"),
        ("evidence/capacity.json", "/workers/0/cpu_util_pct", "1e400"),
        ("evidence/workers.json", "/heartbeat/timeout_s", "-1e999"),
        ("evidence/jobs.json", "/jobs/0/requirements/resources/other/gpu_mem", "Infinity"),
    ],
)
def test_a_number_that_is_not_finite_anywhere_is_invalid_evidence_never_healthy(
    tmp_path: Path, fleet: Fleet, member: str, where: str, number: str
) -> None:
    """``1e400`` parses as inf: a collector's duration of 1e400 printed as ``inf s`` in a
    healthy report, and a field typed Any (a job's resource request) took it as it came."""
    assert fleet.jobs is not None
    fleet.jobs.jobs[0].requirements = JobRequirements(
        labels={"zone": "a"}, resources=ResourceRequest(other={"gpu_mem": 1})
    )
    outcome = CollectorOutcome(
        id="http.workers", kind="http", target="x", status="ok", duration_s=0.25
    )
    if member == "manifest.json":
        bundle = write_bundle_dir(fleet, tmp_path / "b", collectors=[outcome])
        data = _with_number(json.loads((bundle / member).read_text()), where, number)
        (bundle / member).write_bytes(data)
    else:  # written with its checksum, as a collector would have written it
        data = _with_number(json.loads(fleet.source().read_bytes(member)), where, number)
        members = {member: data}
        bundle = write_bundle_dir(fleet, tmp_path / "b", members=members, collectors=[outcome])
    code, out, err = _run(str(bundle), "--format", "json")
    assert code == 3, err  # inconclusive: never healthy, never a traceback
    assert json.loads(out)["verdict"] == "inconclusive"
    assert f"{member} has a number that is not finite at {where}" in out
    for fmt in ("text", "html"):
        code, page, err = _run(str(bundle), "--format", fmt)
        assert code == 3, err
        assert "inf s" not in page


@pytest.mark.parametrize(
    ("sample", "fmt", "code"),
    [
        ("flux-healthy", "text", 0),
        ("lyftdata-healthy", "text", 0),
        ("flux-hung", "text", 1),
    ],
)
def test_a_reader_that_stops_reading_leaves_the_verdict_as_the_exit_code(
    sample: str, fmt: str, code: int
) -> None:
    """``bundler analyze … | head``: the report is cut, the exit code is still the verdict's.

    rich and click turned the broken pipe into exit 1, "blocked", for a healthy fleet. (The
    text report is written a line at a time, so the reader leaves while it is written; a
    report of one write that fits the pipe's buffer never meets a broken pipe.)"""
    from samples.catalog import BUNDLES_DIR, PASSWORD_ENV, SAMPLE_PASSWORD

    process = subprocess.Popen(
        [sys.executable, "-m", "bundler", "analyze", str(BUNDLES_DIR / f"{sample}.zip"),
         "--format", fmt, "--password-env", PASSWORD_ENV],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=os.environ | {PASSWORD_ENV: SAMPLE_PASSWORD, "COLUMNS": "100"},
    )  # fmt: skip
    assert process.stdout is not None
    assert process.stderr is not None
    assert process.stdout.read(1)  # the report has begun ...
    process.stdout.close()  # ... and its reader goes away, as head does
    stderr = process.stderr.read()
    assert process.wait(timeout=120) == code, stderr
    assert b"Traceback" not in stderr
