"""A run's compact outcome and the manifest record it becomes."""

from __future__ import annotations

from dataclasses import fields
from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from bundler.collect.outcomes import NO_BINDINGS, SettledOutcome
from schemas import CollectorKind, CollectorOutcome, CollectorStatus, HttpExchange


def test_it_holds_exactly_the_manifest_records_fields() -> None:
    # a field added to the schema and not here would be silently missing from manifests
    assert {f.name for f in fields(SettledOutcome)} == set(CollectorOutcome.model_fields)


def test_every_field_reaches_the_manifest_record() -> None:
    settled = SettledOutcome(
        id="http.worker.002",
        kind=CollectorKind.HTTP,
        target="/workers/w2",
        status=CollectorStatus.FAILED,
        started_at=datetime(2026, 12, 3, 16, 0, tzinfo=UTC),
        duration_s=0.25,
        error_class="InvalidJSON",
        error_message="not JSON",
        note="retried",
        bytes=12,
        members=("raw/http/worker-w2.json",),
        attempts=2,
        step="worker",
        bound={"id": "w2"},
        exit_code=None,
        http=HttpExchange(path="/workers/w2", query="", status_code=200),
    )
    record = settled.to_schema()
    assert record.model_dump() == {
        f.name: _plain(getattr(settled, f.name)) for f in fields(settled)
    }
    assert isinstance(record.members, list)
    assert isinstance(record.bound, dict)


def test_outcomes_without_bindings_share_one_read_only_mapping() -> None:
    a = SettledOutcome(id="a", kind=CollectorKind.SSH, target="h1", status=CollectorStatus.OK)
    b = SettledOutcome(id="b", kind=CollectorKind.SSH, target="h2", status=CollectorStatus.OK)
    assert a.bound is b.bound is NO_BINDINGS
    with pytest.raises(TypeError):
        a.bound["id"] = "x"  # type: ignore[index]
    assert a.to_schema().bound == {}


def test_a_bad_value_fails_when_the_record_is_built() -> None:
    settled = SettledOutcome(
        id="a", kind=CollectorKind.SSH, target="h1", status=CollectorStatus.OK, duration_s=-1.0
    )
    with pytest.raises(ValidationError):
        settled.to_schema()


def _plain(value: object) -> object:
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, HttpExchange):
        return value.model_dump()
    if hasattr(value, "items"):
        return dict(value)  # type: ignore[call-overload]
    return value
