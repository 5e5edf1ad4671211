"""Sealing writes the manifest a record at a time; what it returns is what it wrote."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bundler.archive.manifest_draft import ManifestDraft
from bundler.archive.stored import StoredMember
from bundler.collect.outcomes import OutcomeRecords, SettledOutcome
from schemas import (
    CollectorKind,
    CollectorOutcome,
    CollectorStatus,
    EncryptionInfo,
    Manifest,
    ToolInfo,
)
from tests.support.archive import build_bundle, open_test_bundle

SECRET = "hunter2-Zq8rT5vW"


def _redact(text: str) -> str:
    return text.replace(SECRET, "[REDACTED]")


def _shell() -> Manifest:
    return Manifest(
        tool=ToolInfo(version="1.0"),
        created_at=datetime(2026, 12, 6, tzinfo=UTC),
        bundle_id="b-1",
        options={"members": [], "collectors": "not the list"},
        encryption=EncryptionInfo(mode="password"),
    )


def _rows(count: int) -> list[StoredMember]:
    return [
        StoredMember(path=f"hosts/h{i:03d}/log é.txt", sha256="cd" * 32, size=i, valid=i % 2 == 0)
        for i in range(count)
    ]


def _outcomes(count: int) -> list[SettledOutcome]:
    return [
        SettledOutcome(
            id=f"ssh.h{i:03d}.logs",
            kind=CollectorKind.SSH,
            target=f"h{i:03d}",
            status=CollectorStatus.FAILED if i % 3 == 0 else CollectorStatus.OK,
            error_message=f"auth failed with {SECRET}" if i % 3 == 0 else None,
            members=(f"hosts/h{i:03d}/log é.txt",),
        )
        for i in range(count)
    ]


class _Counted(Sequence[CollectorOutcome]):
    """Records made on reading, counting how many are alive at once."""

    def __init__(self, records: OutcomeRecords) -> None:
        self._records = records
        self.made = 0

    def __len__(self) -> int:
        return len(self._records)

    def __getitem__(self, index):  # type: ignore[no-untyped-def, override]
        return self._records[index]

    def __iter__(self) -> Iterator[CollectorOutcome]:
        for record in self._records:
            self.made += 1
            yield record


def test_the_written_manifest_is_the_one_call_dump_of_the_whole_model() -> None:
    draft = ManifestDraft(_shell(), _rows(300), OutcomeRecords(_outcomes(700)), _redact)
    written = b"".join(draft.chunks())
    whole = draft.complete()
    assert written == whole.model_dump_json(indent=2).encode()
    assert len(whole.members) == 300
    assert len(whole.collectors) == 700
    assert SECRET.encode() not in written  # the last redaction pass ran on every outcome
    assert whole.collectors[0].error_message == "auth failed with [REDACTED]"
    assert whole.members[2].valid is True
    assert whole.members[3].valid is False


def test_records_are_made_as_they_are_written_not_before() -> None:
    counted = _Counted(OutcomeRecords(_outcomes(50)))
    draft = ManifestDraft(_shell(), _rows(5), counted, _redact)
    chunks = draft.chunks()
    assert counted.made == 0
    b"".join(chunks)
    assert counted.made == 50


def test_complete_before_writing_gives_the_same_manifest() -> None:
    early = ManifestDraft(_shell(), _rows(4), OutcomeRecords(_outcomes(9)), _redact).complete()
    late = ManifestDraft(_shell(), _rows(4), OutcomeRecords(_outcomes(9)), _redact)
    b"".join(late.chunks())
    assert late.complete() == early


def test_a_shell_with_records_is_refused() -> None:
    shell = _shell().model_copy(update={"members": [_rows(1)[0].to_schema()]})
    with pytest.raises(ValueError, match="lists empty"):
        ManifestDraft(shell, [], [], _redact)


def test_outcome_records_read_like_the_list_they_replace() -> None:
    outcomes = _outcomes(6)
    records = OutcomeRecords(outcomes)
    expected = [outcome.to_schema() for outcome in outcomes]
    assert len(records) == 6
    assert list(records) == expected
    assert records[2] == expected[2]
    assert records[-1] == expected[-1]
    assert records[1:3] == expected[1:3]


def test_a_sealed_bundles_manifest_is_the_one_in_the_file(tmp_path: Path) -> None:
    outcome = CollectorOutcome(
        id="http.workers", kind="http", target="/workers", status="ok", members=["a.txt"]
    )
    sealed = build_bundle(tmp_path / "b.zip", {"a.txt": b"alpha\n"}, collectors=[outcome])
    assert sealed.encryption.mode == "password"
    with open_test_bundle(sealed.path) as reader:
        assert reader.manifest == sealed.manifest
    assert [m.path for m in sealed.manifest.members] == ["a.txt", "redaction-report.json"]
    assert sealed.manifest.collectors == [outcome]
