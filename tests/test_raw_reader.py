"""The one raw reader normalizers share: documents, fan-outs, list records, citations, gaps."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from pydantic import BaseModel

from bundler.collect.plan import HttpStep, Plan
from bundler.products.base import NormalizeContext, StepResult
from bundler.products.raw import RawReader
from bundler.source import MemorySource
from schemas.manifest import CollectorStatus, MemberEntry

OK, FAILED, SKIPPED = CollectorStatus.OK, CollectorStatus.FAILED, CollectorStatus.SKIPPED


class Worker(BaseModel):
    name: str
    cpus: int


VALIDATED: list[str] = []


class Counting(BaseModel):
    """A model that counts its validations (the reader validates a member once per run)."""

    name: str

    def model_post_init(self, context: object) -> None:
        VALIDATED.append(self.name)


MODELS: dict[str, type[BaseModel]] = {"worker": Worker, "worker[]": Worker, "counted": Counting}
PLAN = Plan(
    profile="test",
    steps=[
        HttpStep(id="workers", path="/api/workers", member="raw/http/workers.json"),
        HttpStep(id="worker", path="/api/workers/{name}", member="raw/http/worker/{index}.json"),
    ],
)


def _entry(path: str, schema: str | None, valid: bool | None) -> MemberEntry:
    return MemberEntry(path=path, sha256="0" * 64, size=1, schema_name=schema, valid=valid)


def _reader(
    members: dict[str, object],
    results: list[StepResult],
    entries: tuple[MemberEntry, ...] = (),
) -> RawReader:
    source = MemorySource({name: json.dumps(value).encode() for name, value in members.items()})
    ctx = NormalizeContext(
        source=source,
        results=results,
        hosts=[],
        observed_at=datetime(2026, 1, 1, tzinfo=UTC),
        members={entry.path: entry for entry in entries},
    )
    return RawReader(ctx, MODELS, PLAN)


def test_first_items_and_listed_carry_their_citations() -> None:
    reader = _reader(
        {
            "raw/http/workers.json": [{"name": "w1", "cpus": 2}, {"name": "bad"}],
            "raw/http/worker/0.json": {"name": "w1", "cpus": 2},
            "raw/http/worker/1.json": {"name": "w2", "cpus": "many"},
        },
        [
            StepResult("workers", "http.workers", OK, "raw/http/workers.json"),
            StepResult(
                "worker", "http.worker.0", OK, "raw/http/worker/0.json", bound={"name": "w1"}
            ),
            StepResult(
                "worker", "http.worker.1", OK, "raw/http/worker/1.json", bound={"name": "w2"}
            ),
        ],
    )
    listed = reader.listed("workers", Worker)
    assert [(r.value.name, r.pointer) for r in listed] == [("w1", "/0")]
    assert listed[0].source().model_dump(exclude_none=True) == {
        "method": "api",
        "collector": "http.workers",
        "ref": "GET /api/workers",
        "member": "raw/http/workers.json",
        "pointer": "/0",
    }
    (detail,) = reader.items("worker", Worker)
    assert detail.value.name == "w1"
    assert detail.source().ref == "GET /api/workers/w1"
    assert detail.source().pointer is None
    first = reader.first("worker", Worker)
    assert first is not None
    assert first.value.name == "w1"
    assert reader.has_document("worker")
    # A misfit found while reading is a gap, named with the step and the collector.
    assert [(g.step, g.collector, g.reason) for g in reader.gaps("workers", "worker")] == [
        ("workers", "http.workers", "invalid"),
        ("worker", "http.worker.1", "invalid"),
    ]


def test_gaps_name_failed_truncated_and_skipped_collectors() -> None:
    reader = _reader(
        {"raw/http/workers.json": "{"},
        [
            StepResult(
                "workers", "http.workers", FAILED, "raw/http/workers.json", error_message="HTTP 500"
            ),
            StepResult("worker", "http.worker.0", SKIPPED, None, error_message="absent (HTTP 404)"),
        ],
        (
            _entry("raw/http/workers.json", "worker[]", False).model_copy(
                update={"truncated": True}
            ),
        ),
    )
    assert [(g.step, g.reason, g.detail) for g in reader.gaps("workers", "worker")] == [
        ("workers", "truncated", "HTTP 500"),
        ("worker", "skipped", "absent (HTTP 404)"),
    ]
    assert reader.first("workers", Worker) is None
    assert not reader.has_document("workers")


def test_a_successful_collectors_member_that_is_not_in_the_bundle_is_a_gap() -> None:
    """Deleted from an extracted folder (or a partial bundle): before, no gap, so what the
    member held read as absent (a receipt that "never came") instead of as unknown."""
    reader = _reader(
        {"raw/http/workers.json": [{"name": "w1", "cpus": 2}]},
        [
            StepResult("workers", "http.workers", OK, "raw/http/workers.json"),
            StepResult("worker", "http.worker.0", OK, "raw/http/worker/000.json"),
        ],
        (_entry("raw/http/worker/000.json", "worker", None),),
    )
    assert [(g.collector, g.reason, g.detail) for g in reader.gaps("workers", "worker")] == [
        ("http.worker.0", "missing", "its member is not in the bundle"),
    ]


def test_a_member_the_collector_recorded_as_a_misfit_is_not_validated_again() -> None:
    reader = _reader(
        {"raw/http/worker/0.json": {"name": "w1"}},
        [StepResult("worker", "http.worker.0", OK, "raw/http/worker/0.json")],
        (_entry("raw/http/worker/0.json", "counted", False),),
    )
    VALIDATED.clear()
    assert reader.first("worker", Counting) is None
    assert VALIDATED == []
    assert [g.reason for g in reader.gaps("worker")] == ["invalid"]


def test_a_document_is_validated_once_per_run_however_many_normalizers_ask() -> None:
    reader = _reader(
        {"raw/http/worker/0.json": {"name": "w1"}},
        [StepResult("worker", "http.worker.0", OK, "raw/http/worker/0.json")],
        (_entry("raw/http/worker/0.json", "counted", True),),
    )
    VALIDATED.clear()
    for _ in range(3):
        assert reader.first("worker", Counting) is not None
        assert len(reader.items("worker", Counting)) == 1
    assert VALIDATED == ["w1"]
    assert reader.gaps("worker") == []


class _CountingSource(MemorySource):
    """Counts reads per member, so a test sees what the reader keeps and what it reads again."""

    def __init__(self, members: dict[str, bytes]) -> None:
        super().__init__(members)
        self.reads: dict[str, int] = {}

    def read_bytes(self, name: str) -> bytes:
        self.reads[name] = self.reads.get(name, 0) + 1
        return super().read_bytes(name)


def test_a_document_read_as_its_model_is_not_held_and_reads_again_when_asked() -> None:
    members = {
        "raw/http/workers.json": [{"name": "w1", "cpus": 2}],
        "raw/http/worker/0.json": {"name": "w1", "cpus": 2},
    }
    source = _CountingSource({k: json.dumps(v).encode() for k, v in members.items()})
    results = [
        StepResult("workers", "http.workers", OK, "raw/http/workers.json"),
        StepResult("worker", "http.worker.0", OK, "raw/http/worker/0.json", bound={"name": "w1"}),
    ]
    ctx = NormalizeContext(
        source=source, results=results, hosts=[], observed_at=datetime(2026, 1, 1, tzinfo=UTC)
    )
    reader = RawReader(ctx, MODELS, PLAN)
    assert [r.value.name for r in reader.listed("workers", Worker)] == ["w1"]
    assert [r.value.name for r in reader.items("worker", Worker)] == ["w1"]
    # What was validated is answered from the models, without a second read ...
    assert reader.has_document("worker")
    assert reader.has_document("workers")
    first = reader.first("worker", Worker)
    assert first is not None
    assert first.value.cpus == 2
    assert source.reads == {"raw/http/workers.json": 1, "raw/http/worker/0.json": 1}
    # ... and the JSON itself, no longer held, is read again for whoever asks for it.
    assert reader.document(results[1]) == members["raw/http/worker/0.json"]
    assert source.reads["raw/http/worker/0.json"] == 2


def test_an_invalid_members_message_is_made_once_for_its_first_misfit(monkeypatch) -> None:
    """Only the first misfit of a member is told, so only its message is made: a list of
    ten million misfits once cost a hundred seconds of messages thrown away."""
    import bundler.products.raw as raw

    made: list[str] = []

    def counted(exc: object) -> str:
        made.append("message")
        return real(exc)  # type: ignore[arg-type]

    real = raw._first
    monkeypatch.setattr(raw, "_first", counted)
    misfits = [{"name": "w1", "cpus": "one"}] + [{"name": f"w{i}"} for i in range(2, 200)]
    reader = _reader(
        {
            "raw/http/workers.json": [{"name": "w0", "cpus": 2}, *misfits],
            "raw/http/worker/0.json": [{"cpus": 4}, {"name": "x", "cpus": "none"}],
        },
        [
            StepResult("workers", "http.workers", OK, "raw/http/workers.json"),
            StepResult("worker", "http.worker.0", OK, "raw/http/worker/0.json"),
        ],
    )
    assert [r.value.name for r in reader.listed("workers", Worker)] == ["w0"]
    assert reader.listed("worker", Worker) == []
    assert len(made) == 2  # one per member, not one per misfit (200)
    assert [(g.collector, g.detail) for g in reader.gaps("workers", "worker")] == [
        ("http.workers", "item 1: /cpus: Input should be a valid integer, unable to parse "
         "string as an integer"),
        ("http.worker.0", "item 0: /name: Field required"),
    ]  # fmt: skip
