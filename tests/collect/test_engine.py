"""The engine end to end against real servers: fan-out, optional 404s, validation, hosts, logs."""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path

import pytest

from bundler.archive.contracts import MemorySink
from bundler.collect.context import EngineSettings
from bundler.collect.engine import CollectionResult, Engine, PlanNotReadOnly
from bundler.collect.inventory import Inventory
from bundler.collect.plan import CommandStep, HttpStep, Plan
from bundler.collect.targets import build_targets
from bundler.collect.transports.http import HttpCollector, HttpOptions
from bundler.source import read_json
from schemas import CollectorStatus, MemberEntry
from schemas.evidence import HostsEvidence, LogIndex
from tests.collect.sshkit import connector
from tests.collect.testprofile import SampleProfile
from tests.support.http_server import Reply, ScriptedHTTPServer
from tests.support.sshd import SshLab, free_port, generate_key


def _run(
    sink: MemorySink,
    *,
    profile: SampleProfile | None = None,
    server: str | None = None,
    inventory: dict | None = None,
    ssh: tuple[str, ...] = (),
    lab: SshLab | None = None,
    settings: EngineSettings | None = None,
) -> CollectionResult:
    targets = build_targets(Inventory.model_validate(inventory) if inventory else None, ssh)
    conn = connector(lab) if lab else None
    endpoints = (
        {t.alias: conn.resolver.resolve(t.address) for t in targets if not t.is_local}
        if conn
        else {}
    )
    http = HttpCollector(HttpOptions(server, backoff_s=0.01)) if server else None
    try:
        engine = Engine(
            sink,
            targets,
            plan=profile.plan() if profile else None,
            profile=profile,
            settings=settings or EngineSettings(timeout_s=10, deadline_s=60),
            http=http,
            connector=conn,
            endpoints=endpoints,
        )
        return engine.run()
    finally:
        if http:
            http.close()
        if conn:
            conn.close()


def _by_id(result: CollectionResult) -> dict[str, object]:
    return {o.id: o for o in result.outcomes}


def _entry(sink: MemorySink, path: str) -> MemberEntry:
    return next(e for e in sink.entries if e.path == path)


def _script_api(server: ScriptedHTTPServer) -> None:
    server.route("/health", Reply(200, {"status": "healthy", "version": "1.2.3"}))
    server.route(
        "/workers",
        Reply(
            200,
            [
                {"name": "w1", "status": "online"},
                {"name": "x/connect", "status": "online"},
                {"name": "w3"},
            ],
        ),
    )
    server.route("/workers/w1", Reply(200, {"name": "w1", "status": "online"}))
    server.route("/workers/x%2Fconnect", Reply(200, {"name": "x/connect", "status": "online"}))
    server.route("/workers/w3", Reply(200, b"{not json"))


def test_http_plan_fans_out_validates_and_treats_optional_404_as_absent(
    http_server: ScriptedHTTPServer,
) -> None:
    _script_api(http_server)
    sink = MemorySink()
    result = _run(sink, profile=SampleProfile(), server=http_server.url)
    outcomes = _by_id(result)
    status = {k: o.status for k, o in outcomes.items()}  # type: ignore[attr-defined]
    assert status == {
        "http.health": CollectorStatus.OK,
        "http.workers": CollectorStatus.OK,
        "http.metrics": CollectorStatus.SKIPPED,
        "http.worker.000": CollectorStatus.OK,
        "http.worker.001": CollectorStatus.OK,
        "http.worker.002": CollectorStatus.FAILED,
    }
    assert outcomes["http.metrics"].note == "observability off"  # type: ignore[attr-defined]
    assert outcomes["http.worker.002"].error_class == "InvalidJSON"  # type: ignore[attr-defined]
    assert "does not match Worker[]" in outcomes["http.workers"].note  # type: ignore[attr-defined]
    # raw kept either way, flagged
    assert _entry(sink, "raw/http/health.json").valid is True
    assert _entry(sink, "raw/http/workers.json").valid is False
    assert _entry(sink, "raw/http/workers/000.json").valid is True
    broken = _entry(sink, "raw/http/workers/002.json")
    assert (broken.valid, broken.media_type) == (False, "text/plain")
    assert sink.source().read_bytes("raw/http/workers/002.json") == b"{not json"
    # fan-out values were path-encoded: the mutating route was never reached
    assert "/workers/x/connect" not in http_server.paths()
    assert "/workers/x%2Fconnect" in http_server.paths()
    assert all(r.method == "GET" for r in http_server.requests)
    bound = {r.collector: r.bound for r in result.results if r.step == "worker"}
    assert bound["http.worker.001"] == {"name": "x/connect"}
    # member names carry indexes, never names from the target
    assert not any("w1" in e.path or "connect" in e.path for e in sink.entries)


def test_without_a_server_http_steps_are_recorded_as_skipped() -> None:
    sink = MemorySink()
    result = _run(sink, profile=SampleProfile(), inventory={"hosts": [{"address": "local"}]})
    skipped = [o for o in result.outcomes if o.kind.value == "http"]
    assert {o.id for o in skipped} == {"http.health", "http.workers", "http.worker", "http.metrics"}
    assert all(o.status is CollectorStatus.SKIPPED for o in skipped)
    assert "--server" in (skipped[0].note or "")


def test_a_plan_that_is_not_read_only_is_never_run(http_server: ScriptedHTTPServer) -> None:
    plan = Plan(
        profile="bad", steps=[HttpStep(id="c", path="/workers/{name}/connect", member="raw/c.json")]
    )
    with pytest.raises(PlanNotReadOnly, match="mutating route"):
        _run(MemorySink(), profile=SampleProfile(plan), server=http_server.url)
    assert http_server.requests == []


def test_local_hosts_from_the_inventory_each_get_an_alias(tmp_path: Path) -> None:
    server_dir, worker_dir = tmp_path / "server state", tmp_path / "worker"
    server_dir.mkdir()
    worker_dir.mkdir()
    (server_dir / "config.json").write_text('{"port": 8000}')
    (worker_dir / "config.json").write_text('{"port": "not a number"}')
    log = tmp_path / "server.log"
    log.write_text(
        "2020-01-01 10:00:00 - app - INFO - long ago\n"
        "2099-01-01 10:00:00 - app - ERROR - in the future\n"
        "Traceback (most recent call last):\n"
    )
    inventory = {
        "hosts": [
            {
                "address": "local",
                "role": "server",
                "state_dir": str(server_dir),
                "logs": [{"file": str(log)}],
            },
            {
                "address": "local",
                "role": "worker",
                "worker": "w-secret-name",
                "state_dir": str(worker_dir),
            },
            {"address": "local", "role": "worker", "worker": "w3"},
        ]
    }
    sink = MemorySink()
    from datetime import UTC, datetime

    settings = EngineSettings(timeout_s=10, since=datetime(2021, 1, 1, tzinfo=UTC))
    result = _run(sink, profile=SampleProfile(), inventory=inventory, settings=settings)
    outcomes = _by_id(result)
    assert [h.alias for h in result.hosts] == ["h01", "h02", "h03"]
    assert {h.transport for h in result.hosts} == {"local"}
    assert outcomes["local.h01.config"].status is CollectorStatus.OK  # type: ignore[attr-defined]
    assert _entry(sink, "hosts/h01/config.json").valid is True
    assert _entry(sink, "hosts/h02/config.json").valid is False
    assert sink.source().read_bytes("hosts/h01/state-ls.txt") == b"config.json\n"
    for step in ("state-ls", "config"):
        skipped = outcomes[f"local.h03.{step}"]
        assert skipped.status is CollectorStatus.SKIPPED  # type: ignore[attr-defined]
        assert "state_dir" in skipped.note  # type: ignore[attr-defined]
    assert sink.source().read_bytes("hosts/h01/logs/00.log").decode().splitlines() == [
        "2099-01-01 10:00:00 - app - ERROR - in the future",
        "Traceback (most recent call last):",
    ]
    hosts = HostsEvidence.model_validate(read_json(sink.source(), HostsEvidence.member_path))
    assert [h.alias for h in hosts.hosts] == ["h01", "h02", "h03"]
    assert hosts.complete
    # one clock on both sides, so each reading lies inside the round trip that brackets it
    # (a fixed bound failed on a loaded machine, where a local `date` can take seconds)
    assert all(
        h.clock is not None and abs(h.clock.skew_s) <= h.clock.uncertainty_s + 1e-5
        for h in hosts.hosts
    )
    logs = LogIndex.model_validate(read_json(sink.source(), LogIndex.member_path))
    (source,) = logs.logs
    assert (source.member, source.role, source.origin, source.lines) == (
        "hosts/h01/logs/00.log",
        "server",
        "file",
        2,
    )
    assert source.since is not None
    assert not any("secret-name" in e.path or str(tmp_path) in e.path for e in sink.entries)


@pytest.mark.sshd
def test_ssh_fleet_records_every_failure_and_takes_nothing_from_refused_hosts(
    ssh_lab: SshLab, tmp_path: Path
) -> None:
    healthy = ssh_lab.start("healthy")
    moved = ssh_lab.start("moved")
    ssh_lab.add_host("healthy", healthy)
    ssh_lab.add_host("down", hostname="127.0.0.1", port=free_port())
    ssh_lab.add_host("moved", moved)
    ssh_lab.trust(healthy)
    ssh_lab.trust(moved, key=generate_key(tmp_path / "old_key"))
    fifo = tmp_path / "never-written"
    os.mkfifo(fifo)
    (tmp_path / "config.json").write_text('{"port": 1}')
    plan = Plan(
        profile="testprod",
        steps=[
            CommandStep(id="uname", argv=["uname", "-s"], member="hosts/{alias}/uname.txt"),
            CommandStep(
                id="hang", argv=["cat", "{fifo}"], member="hosts/{alias}/hang.txt", timeout_s=1.5
            ),
        ],
    )
    host = {"vars": {"fifo": str(fifo)}, "state_dir": str(tmp_path)}
    inventory = {"hosts": [{"address": a, **host} for a in ("healthy", "down", "moved")]}
    sink = MemorySink()
    started = time.monotonic()
    result = _run(sink, profile=SampleProfile(plan), inventory=inventory, lab=ssh_lab)
    assert time.monotonic() - started < 15
    outcomes = _by_id(result)
    assert outcomes["ssh.h01.connect"].status is CollectorStatus.OK  # type: ignore[attr-defined]
    assert sink.source().read_bytes("hosts/h01/uname.txt") == b"Linux\n"
    hang = outcomes["ssh.h01.hang"]
    assert hang.status is CollectorStatus.TIMEOUT  # type: ignore[attr-defined]
    assert hang.duration_s < 3  # type: ignore[attr-defined]  # its own timeout, not the default
    down = outcomes["ssh.h02.connect"]
    assert (down.status, down.error_class) == (CollectorStatus.FAILED, "ConnectFailed")  # type: ignore[attr-defined]
    refused = outcomes["ssh.h03.connect"]
    assert (refused.status, refused.error_class) == (CollectorStatus.REFUSED, "HostKeyChanged")  # type: ignore[attr-defined]
    for alias, why in (("h02", "ConnectFailed"), ("h03", "HostKeyChanged")):
        for step in ("sysinfo", "uname", "hang"):
            outcome = outcomes[f"ssh.{alias}.{step}"]
            assert outcome.status is CollectorStatus.SKIPPED  # type: ignore[attr-defined]
            assert why in outcome.note  # type: ignore[attr-defined]
    assert not any(e.path.startswith(("hosts/h02/", "hosts/h03/")) for e in sink.entries)
    summaries = {h.alias: h for h in result.hosts}
    assert summaries["h01"].host_key_fingerprint == healthy.host_key.fingerprint
    assert summaries["h03"].host_key_fingerprint is None
    hosts = HostsEvidence.model_validate(read_json(sink.source(), HostsEvidence.member_path))
    assert not hosts.complete
    assert set(hosts.gaps) >= {"ssh.h02.connect", "ssh.h03.connect"}
    assert "HostKeyChanged" in hosts.hosts[2].errors[0]
    assert {f.status for f in result.failed} == {
        CollectorStatus.FAILED,
        CollectorStatus.REFUSED,
        CollectorStatus.TIMEOUT,
    }


@pytest.mark.sshd
def test_new_host_keys_accepted_on_first_use_are_recorded(ssh_lab: SshLab) -> None:
    instance = ssh_lab.start("fresh")
    ssh_lab.add_host("fresh", instance)
    targets = build_targets(None, ("fresh",))
    conn = connector(ssh_lab, accept_new=True)
    sink = MemorySink()
    try:
        result = Engine(
            sink, targets, connector=conn, endpoints={"h01": conn.resolver.resolve("fresh")}
        ).run()
    finally:
        conn.close()
    (summary,) = result.hosts
    assert summary.host_key_trusted_on_first_use
    assert summary.host_key_fingerprint == instance.host_key.fingerprint
    connect = _by_id(result)["ssh.h01.connect"]
    assert "trusted on first use" in connect.note  # type: ignore[attr-defined]
    assert any(instance.host_key.fingerprint in note for note in result.notes)
    assert instance.known_hosts_line() in ssh_lab.known_hosts.read_text()


@pytest.mark.sshd
def test_the_deadline_settles_hosts_whose_tasks_were_never_queued(ssh_lab: SshLab) -> None:
    """A host's tasks are queued when its connect returns: a connect stopped by the deadline
    (a server that accepts and never sends its banner) or never started settles them."""
    silent = socket.create_server(("127.0.0.1", 0))  # the kernel completes the handshake
    try:
        ssh_lab.add_host("silent", hostname="127.0.0.1", port=silent.getsockname()[1])
        ssh_lab.add_host("later", hostname="127.0.0.1", port=silent.getsockname()[1])
        plan = Plan(
            profile="testprod",
            steps=[CommandStep(id="uname", argv=["uname"], member="hosts/{alias}/uname.txt")],
        )
        targets = build_targets(None, ("silent", "later"))
        conn = connector(ssh_lab)
        try:
            engine = Engine(
                MemorySink(),
                targets,
                plan=plan,
                profile=SampleProfile(plan),
                settings=EngineSettings(concurrency=1, timeout_s=30, deadline_s=1.5),
                connector=conn,
                endpoints={t.alias: conn.resolver.resolve(t.address) for t in targets},
            )
            started = time.monotonic()
            result = engine.run()
        finally:
            conn.close()
    finally:
        silent.close()
    assert time.monotonic() - started < 5
    assert result.end.value == "deadline"
    assert len(result.outcomes) == len(engine.recorder.records()) > 4  # all settled
    outcomes = _by_id(result)
    assert outcomes["ssh.h01.connect"].status is CollectorStatus.TIMEOUT  # type: ignore[attr-defined]
    for alias in ("h01", "h02"):
        for step in ("sysinfo", "uname"):
            outcome = outcomes[f"ssh.{alias}.{step}"]
            assert outcome.status is CollectorStatus.SKIPPED  # type: ignore[attr-defined]
            assert outcome.note.startswith("not run: ")  # type: ignore[attr-defined]
    # the silent connect gives up at the deadline itself, or the scheduler abandons it;
    # either way the later host's connect is stopped or never started
    later = outcomes["ssh.h02.connect"]
    assert later.status in (CollectorStatus.SKIPPED, CollectorStatus.TIMEOUT)  # type: ignore[attr-defined]
    assert "deadline" in f"{later.note} {later.error_message}"  # type: ignore[attr-defined]
    assert "deadline" in outcomes["ssh.h02.uname"].note  # type: ignore[attr-defined]


def test_the_run_deadline_settles_what_is_left(http_server: ScriptedHTTPServer) -> None:
    _script_api(http_server)
    http_server.route("/health", Reply(hang=True))
    http_server.route("/workers", Reply(hang=True))
    sink = MemorySink()
    settings = EngineSettings(timeout_s=30, deadline_s=1.0)
    started = time.monotonic()
    result = _run(sink, profile=SampleProfile(), server=http_server.url, settings=settings)
    assert time.monotonic() - started < 3
    outcomes = _by_id(result)
    assert outcomes["http.health"].status is CollectorStatus.TIMEOUT  # type: ignore[attr-defined]
    assert outcomes["http.workers"].status is CollectorStatus.TIMEOUT  # type: ignore[attr-defined]
    assert "deadline" in outcomes["http.worker"].note  # type: ignore[attr-defined]
    assert result.end.value == "deadline"


def test_outcomes_serialize_for_the_manifest(http_server: ScriptedHTTPServer) -> None:
    _script_api(http_server)
    result = _run(MemorySink(), profile=SampleProfile(), server=http_server.url)
    for outcome in result.outcomes:
        data = json.loads(outcome.to_schema().model_dump_json())
        assert data["status"] in {"ok", "failed", "skipped"}
        assert data["duration_s"] >= 0


def test_host_steps_missing_programs_failures_and_injected_options(tmp_path: Path) -> None:
    plan = Plan(
        profile="testprod",
        steps=[
            CommandStep(
                id="ctl",
                argv=["testctl", "status"],
                member="hosts/{alias}/ctl.txt",
                missing_ok=True,
            ),
            CommandStep(
                id="ctl-needed", argv=["testctl", "status"], member="hosts/{alias}/ctl2.txt"
            ),
            CommandStep(id="ls-absent", argv=["ls", "{dir}/absent"], member="hosts/{alias}/ls.txt"),
            CommandStep(
                id="find", argv=["find", "{dir}", "-name", "x"], member="hosts/{alias}/find.txt"
            ),
        ],
    )
    inventory = {
        "hosts": [
            {"address": "local", "vars": {"dir": str(tmp_path)}},
            {"address": "local", "vars": {"dir": "-delete"}},  # an option smuggled in a value
        ]
    }
    canary = tmp_path / "x"
    canary.write_text("keep me")
    sink = MemorySink()
    outcomes = _by_id(_run(sink, profile=SampleProfile(plan), inventory=inventory))
    ctl, needed = outcomes["local.h01.ctl"], outcomes["local.h01.ctl-needed"]
    assert (ctl.status, ctl.note) == (
        CollectorStatus.SKIPPED,
        "testctl is not installed on this host",
    )  # type: ignore[attr-defined]
    assert (needed.status, needed.error_class) == (CollectorStatus.FAILED, "CommandNotFound")  # type: ignore[attr-defined]
    absent = outcomes["local.h01.ls-absent"]
    assert (absent.status, absent.error_class) == (CollectorStatus.FAILED, "CommandFailed")  # type: ignore[attr-defined]
    assert "No such file" in absent.error_message  # type: ignore[attr-defined]
    assert absent.members == ()  # type: ignore[attr-defined]
    assert outcomes["local.h01.find"].status is CollectorStatus.OK  # type: ignore[attr-defined]
    injected = outcomes["local.h02.find"]
    assert injected.status is CollectorStatus.SKIPPED  # type: ignore[attr-defined]
    assert "read-only guard" in injected.note  # type: ignore[attr-defined]
    assert canary.read_text() == "keep me"


def test_unit_logs_go_through_journalctl(tmp_path: Path) -> None:
    import shutil

    from tests.support.requirements import need

    need(shutil.which("journalctl") is not None, "journalctl is not installed")
    sink = MemorySink()
    inventory = {
        "hosts": [{"address": "local", "logs": [{"unit": "bundler-test-no-such.service"}]}]
    }
    result = _run(sink, inventory=inventory)
    outcome = _by_id(result)["local.h01.logs.00"]
    assert outcome.status is CollectorStatus.OK  # type: ignore[attr-defined]
    assert "no entries" in outcome.note  # type: ignore[attr-defined]
    logs = LogIndex.model_validate(read_json(sink.source(), LogIndex.member_path))
    assert logs.logs[0].origin == "journald"
    hosts = HostsEvidence.model_validate(read_json(sink.source(), HostsEvidence.member_path))
    assert hosts.hosts[0].services[0].name == "bundler-test-no-such.service"


def test_a_fan_out_is_bounded_and_recorded_with_the_request_cap(
    http_server: ScriptedHTTPServer,
) -> None:
    from bundler.collect.plan import ForEach

    http_server.route("/workers", Reply(200, [{"name": f"w{i}"} for i in range(5)]))
    for i in range(5):
        http_server.route(f"/workers/w{i}", Reply(200, {"name": f"w{i}"}))
    plan = Plan(
        profile="fleet",
        steps=[
            HttpStep(id="workers", path="/workers", member="raw/http/workers.json"),
            HttpStep(
                id="worker",
                path="/workers/{name}",
                member="raw/http/worker/{index}.json",
                for_each=ForEach(step="workers", bind={"name": "/name"}, limit=3),
            ),
        ],
    )
    http = HttpCollector(HttpOptions(http_server.url, api_concurrency=2))
    engine = Engine(MemorySink(), [], plan=plan, http=http, settings=EngineSettings(timeout_s=10))
    try:
        result = engine.run()
    finally:
        http.close()
    # the parent document is not held for the fan-out: only the names bound from it
    assert engine.ctx.fanout_sources == {"worker": [(0, [{"name": f"w{i}"} for i in range(5)])]}
    assert sorted(http_server.paths()) == ["/workers", "/workers/w0", "/workers/w1", "/workers/w2"]
    record = http.usage.manifest_record()
    assert record["fanouts"] == {"worker": {"items": 5, "fetched": 3, "limit": 3}}
    assert (record["requests"], record["max_concurrent_requests"]) == (4, 2)
    assert record["peak_concurrent_requests"] <= 2
    notes = {o.note for o in result.outcomes if o.id.startswith("http.worker.")}
    assert notes == {"2 more items not fetched (fan-out limit)"}


def test_a_text_command_stopped_at_its_timeout_keeps_its_output_and_a_json_one_does_not(
    tmp_path: Path,
) -> None:
    """A flood until the step's timeout: the text kept (head and tail, truncated) beside the
    timeout; a JSON document's part would be a broken document, so that step keeps none."""
    import contextlib
    import threading

    fifo = tmp_path / "flood"
    os.mkfifo(fifo)
    stop = threading.Event()

    def flood() -> None:
        with open(fifo, "wb", buffering=0) as sink:  # opened by each cat in turn
            while not stop.is_set():
                try:
                    sink.write(b"2025-03-01 12:00:00 INFO flood\n" * 512)
                except BrokenPipeError:
                    return

    def floods() -> None:
        while not stop.is_set():
            flood()

    plan = Plan(
        profile="testprod",
        steps=[
            CommandStep(
                id="text", argv=["cat", str(fifo)], member="hosts/{alias}/t.txt", timeout_s=2
            ),
            CommandStep(
                id="json",
                argv=["cat", str(fifo)],
                member="hosts/{alias}/j.json",
                media_type="application/json",
                timeout_s=2,
            ),
        ],
    )
    feeder = threading.Thread(target=floods, daemon=True)
    feeder.start()
    try:
        sink = MemorySink()
        outcomes = _by_id(
            _run(
                sink,
                profile=SampleProfile(plan),
                inventory={"hosts": [{"address": "local"}]},
                settings=EngineSettings(timeout_s=10, deadline_s=60, concurrency=1),
            )
        )
    finally:
        stop.set()
        with contextlib.suppress(OSError):  # a feeder waiting for a reader: give it one
            os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
        feeder.join(10)
    text, json_ = outcomes["local.h01.text"], outcomes["local.h01.json"]
    assert (text.status, text.error_class) == (CollectorStatus.TIMEOUT, "CollectorTimeout")  # type: ignore[attr-defined]
    assert text.note.startswith("the command was stopped at its timeout")  # type: ignore[attr-defined]
    kept = _entry(sink, text.members[0])  # type: ignore[attr-defined]
    assert kept.truncated
    assert (json_.status, json_.members) == (CollectorStatus.TIMEOUT, ())  # type: ignore[attr-defined]
