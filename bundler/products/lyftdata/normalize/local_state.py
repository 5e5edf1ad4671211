"""Worker-local state: the LYFTDATA_JOBS_DIR listing joined with SQLite integrity results.

Only names, sizes and times are ever collected; cached keys are listed, never read.
"""

from __future__ import annotations

from schemas.evidence import LocalStateEvidence, Source, StateFileCheck

from ...base import NormalizeContext
from ._util import gaps, worker_of_host
from .host_files import host_text, parse_integrity, parse_listing

_SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")
_KEY_HINTS = ("key", "identity", "token", "credential")


def _kind(path: str) -> str:
    lower = path.lower()
    if lower.endswith(_SQLITE_SUFFIXES):
        return "sqlite"
    if any(hint in lower for hint in _KEY_HINTS):
        return "key"
    if "cache" in lower:
        return "cache"
    return "other"


def normalize_local_state(ctx: NormalizeContext) -> LocalStateEvidence:
    doc = LocalStateEvidence(
        product="lyftdata",
        observed_at=ctx.observed_at,
        gaps=gaps(ctx, "state-listing", "state-integrity"),
    )
    doc.complete = not doc.gaps
    aliases = sorted(
        {r.host for r in ctx.results_for("state-listing") if r.host}
        | {r.host for r in ctx.results_for("state-integrity") if r.host}
    )
    for alias in aliases:
        worker = worker_of_host(ctx, alias)
        listing = host_text(ctx, "state-listing", alias)
        integrity = host_text(ctx, "state-integrity", alias)
        checks, note = parse_integrity(integrity[1]) if integrity else ([], None)
        by_path = {c.path: c for c in checks}
        seen: set[str] = set()
        for listed in parse_listing(listing[1]) if listing else []:
            seen.add(listed.path)
            check = by_path.get(listed.path)
            record = StateFileCheck(
                host_alias=alias,
                worker=worker,
                path=listed.path,
                kind=_kind(listed.path),  # type: ignore[arg-type]
                size=listed.size,
                modified_at=listed.modified_at,
                source=Source(
                    method="ssh",
                    collector=listing[0].collector,
                    member=listing[0].member,
                    line_start=listed.line,
                    line_end=listed.line,
                )
                if listing
                else None,
            )
            if check is not None and integrity is not None:
                record.integrity = check.status  # type: ignore[assignment]
                record.detail = "; ".join(d for d in check.detail if d.strip())[:500] or None
                record.source = Source(
                    method="ssh",
                    collector=integrity[0].collector,
                    ref="sqlite3 -readonly PRAGMA integrity_check",
                    member=integrity[0].member,
                    line_start=check.line_start,
                    line_end=max(check.line_end, check.line_start),
                )
            elif record.kind == "sqlite" and note:
                record.detail = note
            doc.files.append(record)
        for check in checks:
            if check.path not in seen and integrity is not None:
                doc.files.append(
                    StateFileCheck(
                        host_alias=alias,
                        worker=worker,
                        path=check.path,
                        kind="sqlite",
                        integrity=check.status,  # type: ignore[arg-type]
                        detail="; ".join(d for d in check.detail if d.strip())[:500] or None,
                        source=Source(
                            method="ssh",
                            collector=integrity[0].collector,
                            member=integrity[0].member,
                            line_start=check.line_start,
                            line_end=max(check.line_end, check.line_start),
                        ),
                    )
                )
    return doc
