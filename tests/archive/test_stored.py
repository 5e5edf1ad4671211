"""A stored member as the run holds it, and the manifest entry it becomes when sealing."""

from __future__ import annotations

import sys
from dataclasses import fields

import pytest
from pydantic import ValidationError

from bundler.archive.stored import StoredMember
from schemas import MemberEntry

SHA = "ab" * 32


def test_it_holds_exactly_the_manifest_entrys_fields() -> None:
    # a field added to the schema and not here would be silently missing from manifests
    assert {f.name for f in fields(StoredMember)} == set(MemberEntry.model_fields)


def test_every_field_reaches_the_manifest_entry() -> None:
    stored = StoredMember(
        path="hosts/h01/worker.log",
        sha256=SHA,
        size=12,
        media_type="text/plain",
        schema_name="raw.flux.worker_log",
        collector="ssh.h01.logs",
        truncated=True,
        valid=False,
    )
    assert stored.to_schema().model_dump() == {
        "path": "hosts/h01/worker.log",
        "sha256": SHA,
        "size": 12,
        "media_type": "text/plain",
        "schema_name": "raw.flux.worker_log",
        "collector": "ssh.h01.logs",
        "truncated": True,
        "valid": False,
    }


def test_the_defaults_are_the_schemas() -> None:
    entry = StoredMember(path="a.txt", sha256=SHA, size=0).to_schema()
    assert entry == MemberEntry(path="a.txt", sha256=SHA, size=0)


def test_the_entry_is_validated_when_it_is_made() -> None:
    with pytest.raises(ValidationError):
        StoredMember(path="a.txt", sha256="not-a-hash", size=1).to_schema()


def test_it_is_slotted_and_smaller_than_the_model() -> None:
    stored = StoredMember(path="a.txt", sha256=SHA, size=1)
    assert not hasattr(stored, "__dict__")
    entry = stored.to_schema()
    assert sys.getsizeof(stored) < sys.getsizeof(entry) + sys.getsizeof(entry.__dict__)
