"""The manifest written in pieces is byte for byte the one-call ``indent=2`` dump."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bundler.archive import manifest_json
from bundler.archive.manifest_json import manifest_chunks
from schemas import (
    CollectorOutcome,
    EncryptionInfo,
    HttpExchange,
    Manifest,
    MemberEntry,
    TargetSummary,
    ToolInfo,
)


def _manifest(members: int, collectors: int) -> Manifest:
    return Manifest(
        tool=ToolInfo(version="1.0"),
        created_at=datetime(2026, 12, 3, tzinfo=UTC),
        bundle_id="b-1",
        profile="flux",
        target=TargetSummary(server_url="http://127.0.0.1:8000"),
        options={"members": [], "nested": {"collectors": [1, "ü"]}, "text": 'a "q" \n b'},
        members=[
            MemberEntry(
                path=f"hosts/h{i:03d}/logs/é {i}.log",
                sha256="ab" * 32,
                size=i,
                media_type="text/plain",
            )
            for i in range(members)
        ],
        collectors=[
            CollectorOutcome(
                id=f"ssh.h{i:03d}.logs",
                kind="ssh" if i % 2 else "http",
                target=f"h{i:03d}",
                status="skipped" if i % 3 else "ok",
                note="line one\nline two" if i % 5 == 0 else None,
                members=[f"m{i}", f"n{i}"],
                bound={"worker": f"w{i}"},
                http=HttpExchange(path="/workers") if i % 2 == 0 else None,
                future_field={"kept": [i]},  # a newer bundler's field, kept as written
            )
            for i in range(collectors)
        ],
        encryption=EncryptionInfo(mode="password"),
    )


@pytest.mark.parametrize(("members", "collectors"), [(0, 0), (1, 0), (0, 1), (3, 7), (400, 900)])
def test_the_pieces_are_the_one_call_dump(members: int, collectors: int) -> None:
    manifest = _manifest(members, collectors)
    pieces = list(manifest_chunks(manifest))
    assert b"".join(pieces) == manifest.model_dump_json(indent=2).encode()
    assert max(len(p) for p in pieces) < manifest_json.CHUNK_BYTES + 4096  # never one big dump


def test_a_dump_without_its_lists_where_expected_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A future serializer that nests or renames them must not produce a half manifest."""

    class Flat:
        def dump_json(self, value: object, indent: int, by_alias: bool = False) -> bytes:
            return b'{\n  "members": [],\n  "inner": {\n    "collectors": []\n  }\n}'

    monkeypatch.setattr(manifest_json, "MANIFEST_JSON", Flat())
    with pytest.raises(ValueError, match="no single top-level 'collectors' list"):
        b"".join(manifest_chunks(_manifest(1, 1)))
