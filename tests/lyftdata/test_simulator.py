"""The simulator: scenario files, derived answers valid against the contract, the real server."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from bundler.products.lyftdata import PROFILE
from samples.lyftdata_sim import derive
from samples.lyftdata_sim.api_delivery import canary_record
from samples.lyftdata_sim.doctor import doctor_report
from samples.lyftdata_sim.loader import load_scenario, merge, scenario_names
from samples.lyftdata_sim.routes import respond
from samples.lyftdata_sim.scenario import RouteFault, ScenarioError
from samples.lyftdata_sim.values import parse_size, resolve_time
from tests.support.lyftdata_sim import ROOT, running_simulator

from .contract import component, response_schema, validator_for

NOW = datetime(2026, 1, 10, 12, 0, tzinfo=UTC)
SCENARIOS = scenario_names()


def test_every_scenario_loads_and_says_what_analysis_should_find() -> None:
    assert len(SCENARIOS) >= 15
    for name in SCENARIOS:
        scenario = load_scenario(name)
        assert scenario.expect.get("first_failed_layer") or scenario.expect.get("verdict"), name
        assert {h.worker for h in scenario.hosts} <= {w.id for w in scenario.workers}, name


def test_extends_merges_records_by_identity_and_replaces_other_lists() -> None:
    base = {"workers": [{"id": "a", "group": "x", "labels": ["l1"]}], "jobs": [{"name": "j"}]}
    override = {"workers": [{"id": "a", "labels": ["l2"]}, {"id": "b"}], "jobs": []}
    merged = merge(base, override)
    assert merged["workers"] == [{"id": "a", "group": "x", "labels": ["l2"]}, {"id": "b"}]
    assert merged["jobs"] == []


def test_bad_scenarios_fail_in_one_line(tmp_path: Path) -> None:
    typo = tmp_path / "typo.yaml"
    typo.write_text("description: x\nworkers: [{id: w1, lastheartbeat: -5s}]\n")
    with pytest.raises(ScenarioError, match=r"workers\.0\.lastheartbeat"):
        load_scenario(str(typo))
    broken = tmp_path / "broken.yaml"
    broken.write_text("description: [unclosed\n")
    with pytest.raises(ScenarioError, match="not valid YAML"):
        load_scenario(str(broken))
    with pytest.raises(ScenarioError, match=r"known: .*healthy"):
        load_scenario("no_such_scenario")
    naive = tmp_path / "naive.yaml"
    naive.write_text("description: x\nlicense: {expires_at: '2026-01-01T00:00:00'}\n")
    with pytest.raises(ScenarioError, match="needs a UTC offset"):
        load_scenario(str(naive))
    loop = tmp_path / "loop.yaml"
    loop.write_text("extends: loop\ndescription: x\n")
    with pytest.raises(ScenarioError, match="extends itself"):
        load_scenario(str(loop))


def test_time_and_size_expressions() -> None:
    assert resolve_time("-412s", NOW) == NOW - timedelta(seconds=412)
    assert resolve_time("+90d", NOW) == NOW + timedelta(days=90)
    assert resolve_time("now", NOW) == NOW
    assert resolve_time("2026-01-01T00:00:00+01:00", NOW) == datetime(2025, 12, 31, 23, tzinfo=UTC)
    assert parse_size("8GiB") == 8 << 30
    assert parse_size(512) == 512
    with pytest.raises(ValueError, match="not a size"):
        parse_size("lots")


def test_derived_facts_follow_causes() -> None:
    stale = load_scenario("heartbeat_stale")
    assert derive.heartbeat(stale, stale.workers[0], NOW).state == "offline"
    skew = load_scenario("clock_skew")
    decision = derive.auth_decision(skew, skew.workers[0], NOW)
    assert (decision.decision, decision.native_code) == ("deny", "lease_clock_skew")
    ce = load_scenario("community_edition")
    assert derive.auth_decision(ce, ce.workers[0], NOW).native_code == (
        "community_edition_no_external_workers"
    )
    wrong = load_scenario("placement_wrong_group")
    placed = derive.placement(wrong, wrong.jobs[0])
    assert placed.placed == []
    assert placed.per_worker["edge-01"] == (
        "filtered",
        ["NOT_IN_WORKER_GROUP"],
    )
    unstaged = load_scenario("deployment_not_staged")
    assert [d.reason for d in derive.job_deployments(unstaged, unstaged.jobs[0], NOW)] == [
        "NOT_STAGED"
    ]


def _plan_requests(name: str) -> list[tuple[str, str, dict[str, str]]]:
    """(contract path, concrete path, query) of every GET the plan makes for a scenario."""
    scenario = load_scenario(name)
    out = []
    for step in PROFILE.plan().http_steps():
        if step.for_each is None:
            out.append((step.path, step.path, dict(step.params)))
            continue
        if step.for_each.step == "workers":
            values = [w.id for w in scenario.workers]
        elif step.for_each.step == "jobs":
            values = [j.name for j in scenario.jobs]
        else:
            values = [
                c["canary_id"] for j in scenario.jobs if (c := canary_record(scenario, j, NOW))
            ]
        (var,) = step.for_each.bind
        out += [(step.path, step.path.format(**{var: v}), dict(step.params)) for v in values]
    return out


@pytest.mark.parametrize("name", SCENARIOS)
def test_every_response_validates_against_the_contract_and_the_raw_models(name: str) -> None:
    scenario = load_scenario(name)
    steps = {s.path: s for s in PROFILE.plan().http_steps()}
    for template, path, query in _plan_requests(name):
        if any(fault.matches(path) for fault in scenario.server.faults):
            continue  # broken on purpose: test_declared_route_faults_answer_as_declared
        status, body = respond(scenario, NOW, path, query)
        unhealthy = template == "/api/health" and scenario.server.health == "error"
        assert status == (503 if unhealthy else 200), (name, path, body)
        validator_for(response_schema(template, status=str(status))).validate(body)
        schema_name = steps[template].schema_name
        assert schema_name is not None
        model = PROFILE.raw_models[schema_name]
        for item in body if schema_name.endswith("[]") else [body]:
            model.model_validate(item)
    report = doctor_report(scenario, NOW)
    validator_for(component("DoctorReport")).validate(report)
    PROFILE.raw_models["lyftdata.doctor"].model_validate(report)


def test_declared_route_faults_answer_as_declared() -> None:
    base = load_scenario("healthy")
    faults = [
        RouteFault(path="/api/deployments", answer="not_found"),
        RouteFault(path="/api/workers/*/capacity", answer="error"),
        RouteFault(path="/api/canaries", answer="hang", hang_s=0.3),
    ]
    scenario = base.model_copy(update={"server": base.server.model_copy(update={"faults": faults})})
    assert respond(scenario, NOW, "/api/deployments", {})[0] == 404
    assert respond(scenario, NOW, "/api/workers/edge-01/capacity", {})[0] == 500
    assert respond(scenario, NOW, "/api/workers/edge-01/status", {})[0] == 200
    started = time.monotonic()
    assert respond(scenario, NOW, "/api/canaries", {})[0] == 200
    assert time.monotonic() - started >= 0.3
    assert not RouteFault(path="/api/workers/*/capacity").matches("/api/workers/a/b/capacity")


def test_derived_drift_and_deployment_time() -> None:
    drifted = load_scenario("deployment_drifted")
    (state,) = derive.job_deployments(drifted, drifted.jobs[0], NOW)
    assert (state.state, state.reason, state.revision) == ("deployed", "DRIFT_DETECTED", 11)
    _, body = respond(drifted, NOW, "/api/deployments", {})
    (jd,) = body[0]["job_deployments"]
    assert (jd["desired"]["staged_revision"], jd["actual"]["staged_revision"]) == (12, 11)
    assert body[0]["reconcile"]["state"] == "drifted"
    stale = load_scenario("canary_stale")
    _, deployed = respond(stale, NOW, "/api/deployments", {})
    _, runs = respond(stale, NOW, "/api/canaries", {})
    (event,) = [
        e for e in deployed[0]["job_deployments"][0]["events"] if e["type"] == "job-deployed"
    ]
    assert runs[0]["started_at"] < event["at"]


def test_disabled_metrics_report_no_measurements() -> None:
    scenario = load_scenario("metrics_disabled")
    status, body = respond(scenario, NOW, "/api/workers/edge-01/capacity", {})
    assert (status, body["metrics_enabled"], body["resources"]) == (200, False, None)


def test_unknown_routes_and_names_are_404() -> None:
    scenario = load_scenario("healthy")
    assert respond(scenario, NOW, "/api/workers/nobody/status", {})[0] == 404
    assert respond(scenario, NOW, "/api/jobs/nothing/placement", {})[0] == 404
    assert respond(scenario, NOW, "/api/secret", {})[0] == 404


def test_server_checks_tokens_serves_tls_and_refuses_writes(tmp_path: Path) -> None:
    with running_simulator("healthy", tmp_path, hosts=False) as sim:
        assert sim.url.startswith("https://127.0.0.1:")
        assert sim.ca_file is not None
        assert sim.get("/api/workers").json()[0]["id"] == "edge-01"
        assert sim.get("/api/workers/edge-01/logs", params={"limit": "1"}).json()["limit"] == 1
        missing = httpx.get(sim.url + "/api/workers", verify=sim.verify)
        assert missing.status_code == 401
        assert "Bearer" in missing.headers["WWW-Authenticate"]
        assert sim.get("/api/workers", headers=sim.headers("wrong")).status_code == 401
        write = httpx.post(
            sim.url + "/api/workers/auto-enrollment",
            json={"enabled": True},
            headers=sim.headers(),
            verify=sim.verify,
        )
        assert write.status_code == 405
        with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            httpx.get(sim.url + "/api/health", headers=sim.headers(), verify=True)
        seen = sim.requests()
        assert {
            "method": "POST",
            "path": "/api/workers/auto-enrollment",
            "query": {},
            "status": 405,
        } in seen
        assert [r["status"] for r in seen if r["path"] == "/api/workers"] == [200, 401, 401]


def test_rejecting_server_refuses_even_the_right_token(tmp_path: Path) -> None:
    with running_simulator("token_rejected", tmp_path, hosts=False) as sim:
        assert sim.get("/api/health").status_code == 401


def test_command_line_lists_and_fails_cleanly() -> None:
    run = [sys.executable, "-m", "samples.lyftdata_sim"]
    listed = subprocess.run([*run, "--list"], cwd=ROOT, capture_output=True, text=True, check=True)
    assert listed.stdout.split() == SCENARIOS
    bad = subprocess.run([*run, "--scenario", "nope"], cwd=ROOT, capture_output=True, text=True)
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1
    assert "lyftdata_sim: error: cannot read scenario" in bad.stderr


def test_prepared_host_has_real_state_and_stand_ins(tmp_path: Path) -> None:
    with running_simulator("corrupt_state", tmp_path) as sim:
        (host,) = sim.hosts
        state, bin_dir = Path(host["state_dir"]), Path(host["bin_dir"])
        for name, healthy in (("worker.db", False), ("auth-cache.db", True), ("settings.db", True)):
            con = sqlite3.connect(f"file:{state / name}?mode=ro", uri=True)
            try:
                result = con.execute("PRAGMA integrity_check").fetchall()
                assert (result == [("ok",)]) is healthy, name
            except sqlite3.DatabaseError:
                assert not healthy, name
            finally:
                con.close()
        assert (state / "identity" / "api-key").stat().st_mode & 0o077 == 0
        version = subprocess.run(
            [bin_dir / "lyftdata-worker", "--version"], capture_output=True, text=True, check=True
        )
        assert version.stdout.strip() == "lyftdata-worker 1.4.2"
        refused = subprocess.run(
            [bin_dir / "lyftdata-worker", "--reset-state", "repair"], capture_output=True, text=True
        )
        assert refused.returncode == 64
        doctor = subprocess.run(
            [bin_dir / "lyftdata", "doctor", "--json"], capture_output=True, text=True
        )
        assert doctor.returncode == 1
        assert '"first_failing_layer": "deployment"' in doctor.stdout
        status = subprocess.run(
            [bin_dir / "lyftdata", "workers", "status", "edge-01"],
            capture_output=True,
            text=True,
            check=True,
        )
        assert "state: online" in status.stdout
        assert "malformed" in Path(host["log_file"]).read_text()
