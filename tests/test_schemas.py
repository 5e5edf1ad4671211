"""The bundle format's contracts: versioning, tolerance of newer fields, exported schemas."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone

import pytest
from pydantic import BaseModel, ValidationError

from bundler.collect.plan import HttpStep
from schemas import (
    EVIDENCE_KINDS,
    FORMAT_VERSION,
    CollectorOutcome,
    EncryptionInfo,
    Manifest,
    MemberEntry,
    ToolInfo,
    UnsupportedFormatError,
    parse_format,
)
from schemas._base import InputModel, RecordModel
from schemas._export import render_schemas, stale_files
from schemas.evidence import HeartbeatPolicy, WorkersEvidence, WorkerStatus


def _manifest(**overrides: object) -> Manifest:
    data: dict[str, object] = {
        "tool": ToolInfo(version="0.1.0"),
        "created_at": datetime(2026, 11, 29, 12, 0, tzinfo=UTC),
        "bundle_id": "b-1",
        "encryption": EncryptionInfo(mode="password"),
    }
    data.update(overrides)
    return Manifest(**data)  # type: ignore[arg-type]


def test_writer_format_is_bundler_1() -> None:
    assert FORMAT_VERSION.startswith("bundler/1.")
    assert parse_format(FORMAT_VERSION)[0] == 1


@pytest.mark.parametrize("value", ["bundler/1", "bundler/1.0", "bundler/1.7"])
def test_reader_accepts_any_minor_of_major_1(value: str) -> None:
    assert parse_format(value)[0] == 1
    assert _manifest(format=value).format == value


@pytest.mark.parametrize("value", ["bundler/2.0", "bundler/0.9", "other/1.0", "", "bundler"])
def test_reader_refuses_unknown_major_or_foreign_format(value: str) -> None:
    with pytest.raises(UnsupportedFormatError):
        parse_format(value)
    with pytest.raises(ValidationError):
        _manifest(format=value)


def test_unknown_major_message_says_what_to_do() -> None:
    with pytest.raises(UnsupportedFormatError, match="needs a newer bundler"):
        parse_format("bundler/2.0")


def test_manifest_keeps_unknown_fields_from_newer_writers() -> None:
    raw = json.loads(_manifest().model_dump_json())
    raw["format"] = "bundler/1.4"
    raw["added_in_1_4"] = {"x": 1}
    raw["members"] = [{"path": "a.json", "sha256": "0" * 64, "size": 3, "future_field": True}]
    parsed = Manifest.model_validate(raw)
    assert parsed.model_extra == {"added_in_1_4": {"x": 1}}
    assert parsed.members[0].model_extra == {"future_field": True}


def test_times_are_normalized_to_utc_and_naive_times_refused() -> None:
    plus_two = datetime(2026, 11, 29, 14, 0, tzinfo=timezone(timedelta(hours=2)))
    assert _manifest(created_at=plus_two).created_at == datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
    with pytest.raises(ValidationError, match="UTC"):
        _manifest(created_at=datetime(2026, 11, 29, 12, 0))


@pytest.mark.parametrize("stamp", ["0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59-05:00"])
def test_a_time_its_offset_carries_out_of_range_is_a_validation_error(stamp: str) -> None:
    """``astimezone`` raises OverflowError there, which pydantic would let escape."""
    raw = json.loads(_manifest().model_dump_json())
    with pytest.raises(ValidationError, match="out of range once converted to UTC"):
        Manifest.model_validate({**raw, "created_at": stamp})
    assert Manifest.model_validate({**raw, "created_at": stamp[:19] + "Z"}).created_at.year in (
        1,
        9999,
    )


def test_member_sha256_must_be_hex() -> None:
    with pytest.raises(ValidationError):
        MemberEntry(path="x", sha256="not-a-digest", size=1)


def test_every_evidence_kind_has_a_distinct_member_path() -> None:
    paths = [cls.member_path for cls in EVIDENCE_KINDS.values()]
    assert all(p.startswith("evidence/") and p.endswith(".json") for p in paths)
    assert len(set(paths)) == len(paths)


def test_committed_json_schemas_are_up_to_date() -> None:
    stale = stale_files()
    assert stale == [], f"run `python -m schemas` to regenerate: {stale}"


def test_exported_schemas_cover_manifest_reports_and_all_evidence() -> None:
    names = set(render_schemas())
    assert {"manifest.schema.json", "analysis-report.schema.json"} <= names
    assert {"redaction-report.schema.json", "review-result.schema.json"} <= names
    assert {f"{kind}.schema.json" for kind in EVIDENCE_KINDS} <= names


def test_stale_check_notices_a_changed_file(tmp_path: object) -> None:
    from pathlib import Path

    directory = Path(str(tmp_path))
    for name, text in render_schemas().items():
        (directory / name).write_text(text)
    assert stale_files(directory) == []
    (directory / "manifest.schema.json").write_text("{}")
    (directory / "leftover.schema.json").write_text("{}")
    assert stale_files(directory) == ["leftover.schema.json", "manifest.schema.json"]


def test_workers_evidence_round_trips_through_json() -> None:
    doc = WorkersEvidence.model_validate(
        {
            "observed_at": "2026-11-29T12:00:00Z",
            "workers": [{"name": "w1", "connection": "online", "labels": {"zone": "a"}}],
        }
    )
    again = WorkersEvidence.model_validate_json(doc.model_dump_json())
    assert again == doc


def test_records_held_by_the_thousand_share_one_fields_set_and_dump_the_same() -> None:
    from schemas import CollectorOutcome, ManyRecord, MemberEntry

    assert issubclass(CollectorOutcome, ManyRecord)
    assert issubclass(MemberEntry, ManyRecord)
    given = {"id": "ssh.h01.logs", "kind": "ssh", "target": "h01", "status": "ok"}
    first = CollectorOutcome.model_validate(given)
    second = CollectorOutcome.model_validate({**given, "id": "ssh.h02.logs", "future": 1})
    assert first.model_fields_set is second.model_fields_set  # one set for the class
    assert second.model_extra == {"future": 1}  # a newer bundle's field is still kept
    assert "future" not in first.model_dump()
    first.step = "logs"  # assignment still works
    assert first.model_dump()["step"] == "logs"
    again = CollectorOutcome.model_validate_json(first.model_dump_json())
    assert again == first
    assert again.model_dump_json() == first.model_dump_json()
    assert first.model_copy(update={"bytes": 7}).bytes == 7
    assert first.bytes == 0


def test_equal_flat_records_in_a_list_are_one_instance() -> None:
    from pydantic import BaseModel

    from schemas import RecordModel, shared_records
    from schemas.evidence import WorkersEvidence

    class Flat(RecordModel):
        name: str
        value: int | bool | None = None

    class Nested(BaseModel):
        names: list[str]

    a, b = Flat(name="x", value=1), Flat(name="x", value=1)
    odd = Flat(name="x", value=True)  # equal to 1 in Python, not the same record
    extra = Flat(name="x", value=1, origin="wheel")
    got = shared_records([a, b, odd, extra])
    assert got[0] is got[1]
    assert got[2] is odd
    assert got[2].value is True
    assert got[3] is extra
    nested = [Nested(names=["a"]), Nested(names=["a"])]
    assert shared_records(nested) == nested  # not flat: kept apart
    assert shared_records(nested)[1] is nested[1]
    doc = {"product": "flux", "observed_at": "2026-12-03T00:00:00Z", "workers": []}
    package = {"name": "flux-core", "version": "0.87.0"}
    for name in ("w1", "w2"):
        doc["workers"].append({"name": name, "packages": [package]})  # type: ignore[attr-defined]
    read = WorkersEvidence.model_validate(doc)
    first, second = (w.packages for w in read.workers)
    assert first is not None
    assert second is not None
    assert first[0] is second[0]
    assert first[0].model_dump() == package


def _every_model() -> list[type[BaseModel]]:
    """Every model deriving from the two bases: the contracts, raw product models, inputs."""
    import bundler.collect.inventory
    import bundler.collect.plan
    import bundler.doctor.summary
    import bundler.products.flux.models
    import bundler.products.lyftdata.raw  # noqa: F401  (registers their models)

    found: list[type[BaseModel]] = []
    pending: list[type[BaseModel]] = [RecordModel, InputModel]
    while pending:
        cls = pending.pop()
        found.append(cls)
        pending += cls.__subclasses__()
    return found


def test_every_model_refuses_a_number_that_is_not_finite() -> None:
    """Inherited by every model (nested ones too): a duration of inf is no duration."""
    models = _every_model()
    assert len(models) > 100
    lax = [m.__qualname__ for m in models if m.model_config.get("allow_inf_nan") is not False]
    assert lax == []
    for value in (float("inf"), float("-inf"), float("nan")):
        with pytest.raises(ValidationError, match="finite number"):
            CollectorOutcome(id="c", kind="http", target="x", status="ok", duration_s=value)
        with pytest.raises(ValidationError, match="finite number"):
            HeartbeatPolicy(timeout_s=value)
        with pytest.raises(ValidationError, match="finite number"):
            WorkerStatus(name="w1", metrics={"flux.slots_free": value})
        with pytest.raises(ValidationError, match="finite number"):
            HttpStep(id="s", path="/x", member="raw/http/x.json", timeout_s=value)
