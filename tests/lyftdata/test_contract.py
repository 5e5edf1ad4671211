"""The OpenAPI contract, the raw models and the plan agree, and the plan only reads."""

from __future__ import annotations

import string
import types
import typing
from typing import Any

import pytest
from pydantic import BaseModel

from bundler.collect.plan import CommandStep, HttpStep
from bundler.collect.readonly import command_violation
from bundler.products import get_profile
from bundler.products.lyftdata import PROFILE
from bundler.products.lyftdata.plan import MUTATING_ROUTES, STATE_DATABASES

from .contract import (
    component,
    openapi,
    ref_name,
    refs_in,
    response_schema,
    template_regex,
    x_model,
)

PROVENANCE_TAGS = {"S", "B", "I"}
MEMBER_FIELDS = {"alias", "index", "log_index", "role"}


def _schemas_with_model() -> list[str]:
    return sorted(n for n, s in openapi()["components"]["schemas"].items() if "x-model" in s)


def _model_refs(annotation: Any) -> set[str]:
    """Names of the BaseModel classes inside a field annotation (list[X], X | None ...)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return {annotation.__name__}
    found: set[str] = set()
    for arg in typing.get_args(annotation):
        found |= _model_refs(arg)
    return found


def test_document_is_openapi_31_with_provenance_everywhere() -> None:
    doc = openapi()
    assert doc["openapi"].startswith("3.1")
    for path, item in doc["paths"].items():
        for method, operation in item.items():
            assert operation["x-provenance"]["tag"] in PROVENANCE_TAGS, (path, method)
    for name, schema in doc["components"]["schemas"].items():
        assert schema["x-provenance"]["tag"] in PROVENANCE_TAGS, name


@pytest.mark.parametrize("name", _schemas_with_model())
def test_model_fields_match_schema_properties(name: str) -> None:
    schema = component(name)
    model = x_model(schema)
    fields = {f.alias or key: f for key, f in model.model_fields.items()}
    assert set(fields) == set(schema["properties"]), name
    required = {key for key, f in fields.items() if f.is_required()}
    assert required == set(schema.get("required", [])), name
    for key, field in fields.items():
        wanted = {model_name for model_name in _model_refs(field.annotation)}
        referenced = {x_model(component(r)).__name__ for r in refs_in(schema["properties"][key])}
        assert wanted == referenced, f"{name}.{key}"


def test_every_plan_route_is_in_the_document_with_its_model() -> None:
    paths = openapi()["paths"]
    for step in PROFILE.plan().http_steps():
        assert step.path in paths, step.path
        assert "get" in paths[step.path], step.path
        assert step.schema_name in PROFILE.raw_models, step.id
        schema = response_schema(step.path)
        if step.schema_name.endswith("[]"):
            assert schema["type"] == "array"
            schema = schema["items"]
        assert x_model(component(ref_name(schema["$ref"]))) is PROFILE.raw_models[step.schema_name]


def test_every_raw_model_is_used_by_a_step_or_the_cli() -> None:
    used = {s.schema_name for s in PROFILE.plan().steps if s.schema_name}
    assert used == set(PROFILE.raw_models)


def test_never_call_routes_are_the_profiles_mutating_routes_and_no_step_matches_one() -> None:
    doc = openapi()["paths"]
    flagged = {
        path
        for path, item in doc.items()
        if any(op.get("x-bundler-never-call") for op in item.values())
    }
    for path in flagged:
        concrete = path.replace("{id}", "w1").replace("{name}", "j1")
        assert any(template_regex(r).match(concrete) for r in MUTATING_ROUTES), path
    for write in (
        "/api/workers/auto-enrollment",
        "/api/workers/w1/remove",
        "/api/workers/remove/w1",
        "/api/contexts/update-global",
        "/api/jobs/j1/remove/now",
    ):
        assert any(template_regex(r).match(write) for r in MUTATING_ROUTES), write
    for step in PROFILE.plan().http_steps():
        concrete = step.path.replace("{id}", "edge-01").replace("{name}", "ingest-events")
        for route in MUTATING_ROUTES:
            assert not template_regex(route).match(concrete), (step.id, route)
        assert not any(doc[step.path].get(m) for m in ("post", "put", "patch", "delete"))


def test_profile_satisfies_the_profile_protocol() -> None:
    assert get_profile("lyftdata") is PROFILE
    assert PROFILE.name == "lyftdata"
    assert PROFILE.token_env == "LYFTDATA_API_TOKEN"
    assert PROFILE.default_server_url
    assert PROFILE.default_server_url.startswith("https://")
    assert all(
        rule.applies_to("lyftdata") and not rule.applies_to("flux") for rule in PROFILE.rules()
    )
    assert isinstance(PROFILE.plan().steps, list)


def test_member_names_carry_no_value_from_the_target() -> None:
    formatter = string.Formatter()
    for step in PROFILE.plan().steps:
        names = {f for _, f, _, _ in formatter.parse(step.member) if f}
        assert names <= MEMBER_FIELDS, step.id


READ_ONLY_COMMANDS: dict[str, tuple[str, ...]] = {
    "lyftdata-worker": ("--version",),
    "systemctl": ("show",),
    "find": ("{state_dir}",),
    "sqlite3": ("-readonly",),
    "lyftdata": ("doctor", "workers"),
}
WRITE_WORDS = ("--reset-state", "--bundle", "--yes", "vacuum", "remove", "delete", "update")


def test_host_commands_only_read() -> None:
    for step in PROFILE.plan().host_steps():
        if not isinstance(step, CommandStep):
            continue
        program, first = step.argv[0], step.argv[1]
        assert program in READ_ONLY_COMMANDS, step.id
        assert first in READ_ONLY_COMMANDS[program], step.id
        joined = " ".join(step.argv).lower()
        assert not any(word in joined for word in WRITE_WORDS), step.id
        assert "-delete" not in joined
        assert "-exec" not in joined
        assert "-fprint" not in joined
        if program == "lyftdata" and first == "workers":
            assert step.argv[2] in ("status", "sysinfo", "logs"), step.id
        assert step.missing_ok or program == "find", step.id


def test_sqlite_checks_are_read_only_pragmas_on_known_state_files() -> None:
    steps = [s for s in PROFILE.plan().host_steps() if s.id.startswith("sqlite-")]
    assert len(steps) == len(STATE_DATABASES)
    for step, database in zip(steps, STATE_DATABASES, strict=True):
        assert isinstance(step, CommandStep)
        assert step.argv == [
            "sqlite3",
            "-readonly",
            "-batch",
            f"{{state_dir}}/{database}",
            "PRAGMA integrity_check",
        ]
        assert step.missing_ok
        assert {11, 26} <= set(step.ok_exit_codes)


def test_plan_reads_every_rung() -> None:
    paths = {s.path for s in PROFILE.plan().steps if isinstance(s, HttpStep)}
    for needed in (
        "/api/license/show",
        "/api/workers",
        "/api/workers/{id}/auth",
        "/api/jobs/{name}/placement",
        "/api/deployments",
        "/api/jobs/{name}/runtime-requirements",
        "/api/workers/{id}/capacity",
        "/api/canaries",
        "/api/canaries/{id}/receipts",
    ):
        assert needed in paths
    logs = next(s for s in PROFILE.plan().steps if s.id == "worker-logs")
    assert isinstance(logs, HttpStep)
    assert logs.params == {"limit": "200"}


def test_union_types_are_handled_by_the_field_walker() -> None:
    """Guards the helper above: X | None and list[X] both name X."""

    class Inner(BaseModel):
        a: int

    assert _model_refs(Inner | None) == {"Inner"}
    assert _model_refs(list[Inner]) == {"Inner"}
    assert _model_refs(types.NoneType) == set()


def test_the_engines_guard_admits_every_plan_command_and_no_write() -> None:
    rules = PROFILE.read_only_commands
    variables = {"state_dir": "/var/lib/lyftdata-worker", "worker": "edge-01", "alias": "h01"}
    for step in PROFILE.plan().host_steps():
        if isinstance(step, CommandStep):
            argv = [a.format(**variables) for a in step.argv]
            assert command_violation(argv, rules) is None, step.id
    for writes in (
        ["lyftdata", "doctor", "--bundle", "/tmp/x.zip"],
        ["lyftdata", "workers", "remove", "edge-01"],
        ["lyftdata-worker", "--reset-state", "repair"],
        ["lyftdata-worker", "run"],
    ):
        assert command_violation(writes, rules) is not None, writes
