"""Sealing writes the manifest a record at a time; what it returns is what it wrote."""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from bundler.archive.manifest_draft import OWN_FIELDS, ManifestDraft, redact_outcome
from bundler.archive.stored import StoredMember
from bundler.collect.outcomes import OutcomeRecords, SettledOutcome
from schemas import (
    CollectorKind,
    CollectorOutcome,
    CollectorStatus,
    EncryptionInfo,
    HttpExchange,
    Manifest,
    ToolInfo,
)
from tests.support.archive import PASSWORD, build_bundle, open_test_bundle

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


def _string_fields(model: type[BaseModel], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Every field of ``model`` (nested models followed) that can hold a string, by dotted
    path, with its annotation: what the last redaction pass must either redact or name as
    bundler's own."""
    for name, info in model.model_fields.items():
        path = f"{prefix}{name}"
        nested = [
            a for a in _flat(info.annotation) if isinstance(a, type) and issubclass(a, BaseModel)
        ]
        for sub in nested:
            yield from _string_fields(sub, f"{path}.")
        if any(_stringy(a) for a in _flat(info.annotation)):
            yield path, info.annotation


def _stringy(annotation: Any) -> bool:
    """A ``str``, a ``StrEnum`` or a ``Literal`` of strings."""
    if typing.get_origin(annotation) is typing.Literal:
        return any(isinstance(value, str) for value in typing.get_args(annotation))
    return isinstance(annotation, type) and issubclass(annotation, str)


def _flat(annotation: Any) -> Iterator[Any]:
    yield annotation
    for arg in typing.get_args(annotation):
        yield from _flat(arg)


def _planted(annotation: Any) -> Any:
    """A value of ``annotation``'s shape with the secret in every string it holds."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return _planted(next(a for a in typing.get_args(annotation) if a is not type(None)))
    if origin is dict:
        return {"key": f"w-{SECRET}"}
    if origin is list:
        return [f"item {SECRET}"]
    return f"value {SECRET} end"


def test_every_string_an_outcome_holds_is_redacted_or_named_as_bundlers_own() -> None:
    """A field added to the outcome later is redacted by the last pass unless it is named in
    ``OWN_FIELDS``: worker ids in ``bound`` and a ``Content-Type`` echoing a token reached
    the manifest verbatim when the pass redacted two named fields."""
    fields = dict(_string_fields(CollectorOutcome))
    assert set(OWN_FIELDS) <= set(fields), "OWN_FIELDS names a field the outcome lacks"
    remote = {path: annotation for path, annotation in fields.items() if path not in OWN_FIELDS}
    assert {
        "error_message",
        "note",
        "bound",
        "http.path",
        "http.query",
        "http.content_type",
    } <= set(remote)
    for path, annotation in remote.items():
        top, _, inner = path.partition(".")
        value = _planted(annotation)
        if inner:
            http = HttpExchange(path="/p").model_copy(update={inner: value})
            outcome = _plain().model_copy(update={top: http})
        else:
            outcome = _plain().model_copy(update={top: value})
        redacted = redact_outcome(outcome, _redact)
        dumped = redacted.model_dump_json()
        assert SECRET not in dumped, f"{path} is not redacted"
        assert "[REDACTED]" in dumped, f"{path}: the value is replaced, not dropped"
        if path == "bound":
            assert redacted.bound == {"key": "w-[REDACTED]"}  # keys kept, values replaced


def test_bundlers_own_fields_are_left_as_they_are_and_an_unchanged_outcome_is_itself() -> None:
    outcome = _plain().model_copy(
        update={"id": f"http.{SECRET}", "step": SECRET, "members": [f"raw/{SECRET}.json"]}
    )
    assert redact_outcome(outcome, _redact) is outcome  # names must match the member list
    clean = _plain().model_copy(update={"bound": {"id": "w1"}, "http": HttpExchange(path="/w/w1")})
    assert redact_outcome(clean, _redact) is clean


def _plain() -> CollectorOutcome:
    return CollectorOutcome(
        id="http.worker.000",
        kind=CollectorKind.HTTP,
        target="/workers/{name}",
        status=CollectorStatus.OK,
    )


def test_the_targets_addresses_and_names_are_redacted_its_aliases_kept(tmp_path: Path) -> None:
    """``hosts[].address`` said "kept unless --obfuscate network pseudonymized it", and was
    written as given with the flag; a ``--keyword`` naming a worker stayed there too."""
    from bundler.archive.builder import BundleBuilder
    from bundler.archive.manifest_draft import TARGET_OWN_FIELDS
    from bundler.archive.passwords import Sealing
    from bundler.doctor.sinks import redaction_transform
    from schemas import HostSummary, TargetSummary

    fields = dict(_string_fields(TargetSummary))
    assert set(TARGET_OWN_FIELDS) <= set(fields)
    assert set(fields) - TARGET_OWN_FIELDS == {"server_url", "hosts.address", "hosts.worker"}
    transform = redaction_transform(
        ["tok-1"],
        keywords=["falcon-edge"],
        obfuscate_network=True,
        known_hosts=["db7.corp.example"],
    )
    fingerprint = "SHA256:" + "A" * 43
    target = TargetSummary(
        server_url="https://10.20.30.40:3000",
        hosts=[
            HostSummary(alias="h01", address="db7.corp.example", worker="falcon-edge"),
            HostSummary(alias="h02", address="10.20.30.41", host_key_fingerprint=fingerprint),
        ],
    )
    with BundleBuilder(
        tmp_path / "b.zip", sealing=Sealing.with_password(PASSWORD), transform=transform
    ) as builder:
        builder.add("notes.txt", b"seen 10.20.30.40\n", media_type="text/plain")
        bundle = builder.finalize(target=target)
    written = bundle.manifest.target
    dumped = written.model_dump_json()
    for planted in ("10.20.30.4", "corp.example", "falcon-edge"):
        assert planted not in dumped, planted
    # the label alone, as a word: a hex pseudonym ("host-edb734") may hold "db7" by chance
    assert re.search(r"\bdb7\b", dumped) is None
    assert [h.alias for h in written.hosts] == ["h01", "h02"]
    assert written.hosts[1].host_key_fingerprint == fingerprint
    reader = open_test_bundle(bundle.path)
    try:  # the same pseudonym as in the members
        assert written.server_url is not None
        host = written.server_url.removeprefix("https://").partition(":")[0]
        assert host.encode() in reader.read_bytes("notes.txt")
    finally:
        reader.close()
