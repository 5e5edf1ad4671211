"""Worker-local state: the LYFTDATA_JOBS_DIR listing joined with SQLite integrity results.

Only names, sizes and times are ever collected; cached keys are listed, never
read. A database the plan checks but the listing does not show is absent and
is left out; one the listing shows but the plan does not know is
``not_checked``.
"""

from __future__ import annotations

from schemas.evidence import LocalStateEvidence, Source, StateFileCheck

from ...base import StepResult
from ...raw import RawReader
from ..plan import STATE_DATABASES, sqlite_step_id
from .host_files import Integrity, classify_integrity, host_text, parse_listing
from .reading import gaps, settle_gaps

_SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")
_KEY_HINTS = ("key", "identity", "token", "credential")
_SQLITE_STEPS = {sqlite_step_id(db): db for db in STATE_DATABASES}


def _kind(path: str) -> str:
    lower = path.lower()
    if lower.endswith(_SQLITE_SUFFIXES):
        return "sqlite"
    if any(hint in lower for hint in _KEY_HINTS):
        return "key"
    if "cache" in lower:
        return "cache"
    return "other"


def _checks(reader: RawReader, alias: str) -> dict[str, tuple[StepResult, Integrity]]:
    found = {}
    for step, database in _SQLITE_STEPS.items():
        for result in reader.results(step):
            if result.host != alias:
                continue
            text = host_text(reader, step, alias)
            found[database] = (result, classify_integrity(result, text[1] if text else ""))
    return found


def _integrity_source(result: StepResult, database: str) -> Source:
    return Source(
        method="ssh",
        collector=result.collector,
        ref=f"sqlite3 -readonly {database} 'PRAGMA integrity_check'",
        member=result.member,
    )


def normalize_local_state(reader: RawReader) -> LocalStateEvidence:
    doc = LocalStateEvidence(
        product="lyftdata",
        observed_at=reader.ctx.observed_at,
        gaps=gaps(reader, "state-listing", *_SQLITE_STEPS),
    )
    doc.complete = not doc.gaps
    steps = ("state-listing", *_SQLITE_STEPS)
    aliases = sorted({r.host for s in steps for r in reader.results(s) if r.host})
    for alias in aliases:
        worker = reader.worker_of(alias)
        listing = host_text(reader, "state-listing", alias)
        checks = _checks(reader, alias)
        listed = parse_listing(listing[1]) if listing else []
        for entry in listed:
            record = StateFileCheck(
                host_alias=alias,
                worker=worker,
                path=entry.path,
                kind=_kind(entry.path),  # type: ignore[arg-type]
                size=entry.size,
                modified_at=entry.modified_at,
            )
            if listing is not None:
                record.source = Source(
                    method="ssh",
                    collector=listing[0].collector,
                    member=listing[0].member,
                    line_start=entry.line,
                    line_end=entry.line,
                )
            check = checks.get(entry.path)
            if check is not None:
                result, integrity = check
                status = "unreadable" if integrity.status == "absent" else integrity.status
                record.integrity = status  # type: ignore[assignment]
                record.detail = integrity.detail
                record.source = _integrity_source(result, entry.path)
            doc.files.append(record)
        seen = {entry.path for entry in listed}
        for database, (result, integrity) in checks.items():
            if database in seen or integrity.status in ("absent", "not_checked"):
                continue
            doc.files.append(
                StateFileCheck(
                    host_alias=alias,
                    worker=worker,
                    path=database,
                    kind="sqlite",
                    integrity=integrity.status,  # type: ignore[arg-type]
                    detail=integrity.detail,
                    source=_integrity_source(result, database),
                )
            )
    settle_gaps(doc, reader, "state-listing", *_SQLITE_STEPS)
    return doc
