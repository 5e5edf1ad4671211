"""The redaction report written in pieces is byte for byte the one-call dump.

Nested lists inside an item (a file's hits), aliases (``schema``), escapes and
non-ASCII text must all come out where the single ``indent=2`` dump puts them:
``bundler review`` and ``analyze`` read this member back, and its sha256 is in
the manifest.
"""

from __future__ import annotations

import pytest

from bundler.archive import json_chunks
from bundler.archive.finalizing import report_chunks
from schemas import FileRedaction, RedactionHit, RedactionReport, RuleInfo, SkippedFile


def _report(files: int, skipped: int) -> RedactionReport:
    return RedactionReport(
        ruleset_id="builtin-1",
        ruleset_sha256="0" * 64,
        rules=[RuleInfo(id="jwt", kind="jwt", description='tokens "eyJ…"')],
        files=[
            FileRedaction(
                member=f'hosts/h{i:03d}/logs/naïve "{i}".log',
                sha256=f"{i:064x}",
                size=i * 10,
                hits=[
                    RedactionHit(
                        rule="jwt",
                        kind="jwt",
                        line=n + 1,
                        token=f"[REDACTED:jwt:{n:08x}]",
                        decoders=["base64"] * (n % 2),
                        via="structure" if n % 3 == 0 else "rule",
                    )
                    for n in range(i % 4)
                ],
                by_kind={"jwt": i % 4} if i % 4 else {},
                hits_omitted=i % 2,
                future_field={"kept": [i, "\u2028"]},  # a newer bundler's field, kept as written
            )
            for i in range(files)
        ],
        skipped=[SkippedFile(member=f"bin{i}", reason="binary") for i in range(skipped)],
        total=files,
        by_kind={"jwt": files},
    )


@pytest.mark.parametrize(("files", "skipped"), [(0, 0), (1, 0), (0, 2), (3, 1), (2000, 5)])
def test_the_report_in_pieces_is_the_one_call_dump(files: int, skipped: int) -> None:
    report = _report(files, skipped)
    pieces = list(report_chunks(report))
    assert b"".join(pieces) == report.model_dump_json(by_alias=True, indent=2).encode()
    assert max(len(p) for p in pieces) < json_chunks.CHUNK_BYTES + 4096  # never one big dump
    if files > 1000:
        assert len(pieces) > 3
