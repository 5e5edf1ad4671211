"""No normalizer writes a field the canonical schema does not declare.

``RecordModel`` allows unknown fields so a bundle from a newer minor format
still opens; that tolerance must not become a back door for normalizers to
pass undeclared data that the published JSON Schemas do not show and rules
can only read back with ``getattr``. Every normalizer of both products runs
over every committed sample bundle (which covers every Flux lab and LyftData
simulator scenario) and no output model, however deep, may carry
``model_extra``.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, Field

from bundler.analyze.rederive import normalize_raw, step_results
from bundler.products import get_profile
from samples import catalog
from schemas import RecordModel
from tests.support.sample_bundles import load_sample

SAMPLES = [
    entry.file.removesuffix(".zip")
    for entry in (catalog.load_catalog() if catalog.CATALOG_PATH.exists() else [])
    if entry.opening == "password"
]


def undeclared(value: Any, path: str = "") -> list[str]:
    """JSON-pointer-like paths of every model (recursively) with undeclared fields."""
    found: list[str] = []
    if isinstance(value, BaseModel):
        if value.model_extra:
            found.append(f"{path or '/'}: {sorted(value.model_extra)}")
        for name in type(value).model_fields:
            found += undeclared(getattr(value, name), f"{path}/{name}")
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            found += undeclared(item, f"{path}/{index}")
    elif isinstance(value, dict):
        for key, item in value.items():
            found += undeclared(item, f"{path}/{key}")
    return found


def test_the_helper_sees_an_extra_deep_inside() -> None:
    class Inner(RecordModel):
        a: int = 0

    class Outer(RecordModel):
        inner: list[Inner] = Field(default_factory=list)

    assert undeclared(Outer(inner=[Inner(a=1)])) == []
    assert undeclared(Outer(inner=[Inner(a=1, b=2)])) == ["/inner/0: ['b']"]  # type: ignore[call-arg]


def test_every_password_sample_is_covered() -> None:
    assert {name.split("-", 1)[0] for name in SAMPLES} == {"flux", "lyftdata"}


@pytest.mark.parametrize("name", SAMPLES)
def test_normalizers_write_only_declared_fields(name: str) -> None:
    source, manifest = load_sample(name)
    assert manifest.profile is not None
    profile = get_profile(manifest.profile)
    results = step_results(source, manifest, profile.plan())
    documents = normalize_raw(source, manifest, profile, results)
    assert documents
    problems = [f"{d.member_path}{p}" for d in documents for p in undeclared(d)]
    assert problems == []
