"""The Flux plan is read-only, secret-free at the source, and fully typed."""

from __future__ import annotations

import re
import string

import pytest

from bundler.collect.plan import CommandStep, FileStep, HttpStep, LogStep
from bundler.products import get_profile
from bundler.products.base import Profile
from bundler.products.flux import PROFILE
from bundler.products.flux.routes import MUTATING_GETS, NEVER_COLLECT_PREFIXES

PLAN = PROFILE.plan()
HOST_VARS = {"alias", "role", "worker", "state_dir", "flux_home", "flux_bin_dir", "db_path",
             "flux_pid", "flux_unit"}  # fmt: skip


def template_regex(template: str) -> re.Pattern[str]:
    parts = re.split(r"\{[^}]+\}", template)
    return re.compile("^" + "[^/]+".join(re.escape(p) for p in parts) + "$")


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_profile_is_registered_and_satisfies_the_protocol():
    assert get_profile("flux") is PROFILE
    members = set(Profile.__annotations__) | {"plan", "normalize", "parse_logs", "rules"}
    assert all(hasattr(PROFILE, name) for name in members)
    assert PROFILE.token_env == "FLUX_AUTH_TOKEN"
    assert PROFILE.rules()


@pytest.mark.parametrize("step", PLAN.http_steps(), ids=lambda s: s.id)
def test_no_http_step_can_reach_a_mutating_route(step: HttpStep):
    concrete = step.path.format(**dict.fromkeys(fields(step.path), "x"))
    for route in PROFILE.mutating_routes:
        assert not template_regex(route).match(concrete), (step.id, route)
    assert not concrete.startswith(NEVER_COLLECT_PREFIXES)


def test_mutating_routes_include_the_two_mutating_gets_and_the_secret_stores():
    routes = set(PROFILE.mutating_routes)
    assert routes >= MUTATING_GETS
    assert {"/admin/secrets", "/admin/secrets/{name}", "/admin/configs/{name}"} <= routes


def test_every_raw_schema_has_a_model():
    named = {s.schema_name for s in PLAN.steps if s.schema_name}
    assert named <= set(PROFILE.raw_models)
    assert {"flux.worker[]", "flux.execution", "flux.db.worker[]"} <= named


def test_host_steps_only_use_inventory_variables():
    for step in PLAN.host_steps():
        templates = [step.member]
        if isinstance(step, CommandStep):
            templates += step.argv + ([step.cwd] if step.cwd else [])
        if isinstance(step, FileStep):
            templates.append(step.path)
        used = set().union(*(fields(t) for t in templates))
        assert used <= HOST_VARS | {"log_index"}, (step.id, used)


def test_member_names_never_carry_target_values():
    for step in PLAN.steps:
        assert fields(step.member) <= {"alias", "index", "log_index"}, step.id


def test_sql_never_selects_credentials_or_pickles():
    queries = [a for s in PLAN.host_steps() if isinstance(s, CommandStep) for a in s.argv]
    sql = " ".join(q for q in queries if "SELECT" in q)
    assert sql
    for column in ("session_token", "exec_token", "labels", "runners", "metrics", "input",
                   "output", "routing_input", "value"):  # fmt: skip
        assert not re.search(rf"(?<![\w']){re.escape(column)}(?![\w'])", sql), column
    assert not re.search(r"SELECT\s+(\w+\.)?\*", sql)
    for step in PLAN.host_steps():
        if isinstance(step, CommandStep) and step.argv[0] == "sqlite3":
            assert "-readonly" in step.argv


def test_state_listing_prints_names_never_contents():
    (listing,) = [s for s in PLAN.host_steps() if s.id == "state-dir"]
    assert isinstance(listing, CommandStep)
    assert listing.argv[0] == "find"
    assert "-printf" in listing.argv
    assert not {"cat", "-exec", "-execdir", "-fprint", "-delete"} & set(listing.argv)


def test_no_step_goes_through_a_shell_or_names_its_program_by_a_variable():
    for step in PLAN.host_steps():
        if isinstance(step, CommandStep):
            program = step.argv[0].rsplit("/", 1)[-1]
            assert program in {"ps", "grep", "systemctl", "find", "df", "sqlite3", "flux"}, step.id
            assert not fields(program), step.id


def test_environment_readers_never_print_a_secret_value():
    readers = {s.id: s for s in PLAN.host_steps() if s.id.startswith("flux-env")}
    assert set(readers) == {"flux-env", "flux-env-secrets"}
    settings, names = (readers["flux-env"].argv[4], readers["flux-env-secrets"].argv[4])
    environ = "\x00".join(
        ["FLUX_WORKERS__HEARTBEAT_INTERVAL=2", "FLUX_WORKERS__BOOTSTRAP_TOKEN=hunter2",
         "FLUX_SECURITY__ENCRYPTION__ENCRYPTION_KEY=k3y", "FLUX_DB_PASSWORD=pw", "HOME=/root"]
    )  # fmt: skip
    assert re.findall(settings, environ) == ["FLUX_WORKERS__HEARTBEAT_INTERVAL=2"]
    assert re.findall(names, environ) == [
        "FLUX_WORKERS__BOOTSTRAP_TOKEN",
        "FLUX_SECURITY__ENCRYPTION__ENCRYPTION_KEY",
        "FLUX_DB_PASSWORD",
    ]


def test_worker_status_runs_in_the_worker_directory():
    (status,) = [s for s in PLAN.host_steps() if s.id == "worker-status"]
    assert isinstance(status, CommandStep)
    assert status.argv == ["{flux_bin_dir}/flux", "worker", "status", "{worker}"]
    assert status.cwd == "{flux_home}"
    assert status.schema_name in PROFILE.raw_models
    assert status.timeout_s is not None
    assert status.timeout_s <= 15


def test_logs_are_collected_from_every_flux_host():
    (logs,) = [s for s in PLAN.host_steps() if isinstance(s, LogStep)]
    assert {r.value for r in logs.roles} == {"server", "worker"}


def test_metrics_absence_is_recorded_as_observability_off():
    (metrics,) = [s for s in PLAN.http_steps() if s.id == "metrics"]
    assert metrics.optional
    assert metrics.absent_note is not None
    assert "observability" in metrics.absent_note


def test_every_execution_list_has_its_detail_fan_out():
    lists = {s.id for s in PLAN.http_steps() if s.id.startswith("executions.")}
    fans = {s.for_each.step for s in PLAN.http_steps() if s.for_each is not None}
    assert lists <= fans
    assert "executions.created" in lists
