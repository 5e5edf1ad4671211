"""Fail loudly when a Flux release changes what the profile relies on.

Against a live server: every route the plan asks exists as a GET with the
parameters used, the set of routes bundler must never call is exactly what
the live route table implies, and every raw response the real ``bundler
doctor`` collects validates against the profile's models.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from pydantic import TypeAdapter

from bundler.products.flux import PROFILE
from bundler.products.flux.routes import MUTATING_GETS, NEVER_COLLECT_PREFIXES
from samples.flux_lab import FluxInstall, FluxLab, LabConfig, faults
from schemas.evidence import ProductInfo
from schemas.manifest import Manifest
from tests.support.flux import collect_bundle

pytestmark = pytest.mark.flux


@pytest.fixture(scope="module")
def lab(flux_install: FluxInstall, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FluxLab]:
    lab = FluxLab(LabConfig(), root=tmp_path_factory.mktemp("lab"), flux=flux_install)
    with lab:
        lab.api.run_to_end("hello_world", "api")
        faults.unmatched_execution(lab)
        faults.start_work(lab, "w1", 60)
        yield lab


@pytest.fixture(scope="module")
def openapi(lab: FluxLab) -> dict:
    return httpx.get(f"{lab.url}/openapi.json", timeout=10).json()


def test_every_plan_route_is_a_live_get_with_its_parameters(openapi: dict):
    for step in PROFILE.plan().http_steps():
        if step.path == "/openapi.json":
            continue  # FastAPI's own route, not listed in itself (the fixture just fetched it)
        operation = openapi["paths"].get(_route(openapi, step.path), {}).get("get")
        assert operation is not None, f"{step.id}: GET {step.path} is gone from this Flux"
        names = {p["name"] for p in operation.get("parameters", [])}
        assert set(step.params) <= names, (step.id, set(step.params) - names)


def _route(openapi: dict, template: str) -> str:
    """The live path matching a plan template (parameter names may differ)."""
    shape = [part.startswith("{") for part in template.strip("/").split("/")]
    for path in openapi["paths"]:
        parts = path.strip("/").split("/")
        if len(parts) != len(shape):
            continue
        literal = [p for p, is_var in zip(template.strip("/").split("/"), shape, strict=True)
                   if not is_var]  # fmt: skip
        live = [p for p, is_var in zip(parts, shape, strict=True) if not is_var]
        variable = all(p.startswith("{") for p, v in zip(parts, shape, strict=True) if v)
        if literal == live and variable:
            return path
    return template


def test_the_never_call_list_matches_the_live_route_table(openapi: dict):
    derived = set()
    for path, operations in openapi["paths"].items():
        methods = {m.lower() for m in operations}
        if "get" not in methods or path in MUTATING_GETS or path.startswith(NEVER_COLLECT_PREFIXES):
            derived.add(path)
    listed = set(PROFILE.mutating_routes)
    assert derived - listed == set(), "new write routes in this Flux: add them to routes.py"
    assert listed - derived == set(), "routes.py lists routes this Flux no longer has"


def test_the_mutating_gets_are_still_gets(openapi: dict):
    for path in MUTATING_GETS:
        assert "get" in openapi["paths"][path]


def test_every_raw_response_validates_against_the_profile_models(lab: FluxLab, tmp_path: Path):
    extracted = collect_bundle(lab, tmp_path)
    manifest = Manifest.model_validate_json((extracted / "manifest.json").read_bytes())
    checked = set()
    for entry in manifest.members:
        if entry.schema_name not in PROFILE.raw_models:
            continue  # canonical evidence (its own test) or a member without a schema
        schema = entry.schema_name
        model = PROFILE.raw_models[schema]
        data = json.loads((extracted / entry.path).read_bytes())
        adapter = TypeAdapter(list[model] if schema.endswith("[]") else model)  # type: ignore[valid-type]
        adapter.validate_python(data)
        assert entry.valid is not False, f"doctor flagged {entry.path} invalid"
        checked.add(schema)
    assert checked >= {"flux.health", "flux.worker[]", "flux.worker", "flux.execution_list",
                       "flux.execution", "flux.workflow", "flux.db.worker[]",
                       "flux.db.execution[]", "flux.db.last_run[]"}  # fmt: skip
    product = ProductInfo.model_validate_json((extracted / ProductInfo.member_path).read_bytes())
    assert product.server_version == "0.87.5"
    assert product.observability_enabled is True
