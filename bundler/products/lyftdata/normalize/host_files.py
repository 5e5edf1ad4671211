"""Parsers for what the worker hosts said: service state, worker version, state-dir listing,
SQLite integrity. Each takes the command's (redacted) stdout and returns plain data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from schemas.manifest import CollectorStatus

from ...base import StepResult
from ...raw import RawReader

_VERSION = re.compile(r"(\d+\.\d+(?:\.\d+)?(?:[-+.][0-9A-Za-z.]+)?)")


def host_text(reader: RawReader, step: str, alias: str | None) -> tuple[StepResult, str] | None:
    """The OK output of host step ``step`` on host ``alias``."""
    for result in reader.results(step):
        if result.host == alias and reader.ok(result):
            text = reader.text(result)
            return (result, text) if text is not None else None
    return None


def parse_version(text: str) -> str | None:
    """``lyftdata-worker 1.4.2`` -> ``1.4.2``."""
    match = _VERSION.search(text)
    return match.group(1) if match else None


def parse_systemctl_show(text: str) -> dict[str, str]:
    """``Key=Value`` lines of ``systemctl show``."""
    out = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip():
            out[key.strip()] = value.strip()
    return out


def service_metadata(reader: RawReader, alias: str | None) -> dict[str, str | float | int]:
    """The worker service's state, as WorkerStatus.metadata (``service.*`` keys)."""
    if alias is None:
        return {}
    found = host_text(reader, "worker-service", alias)
    meta: dict[str, str | float | int] = {}
    if found is not None:
        props = parse_systemctl_show(found[1])
        for key in ("ActiveState", "SubState", "LoadState"):
            if key in props:
                meta[f"service.{key}"] = props[key]
        if props.get("NRestarts", "").isdigit():
            meta["service.NRestarts"] = int(props["NRestarts"])
    version = host_text(reader, "worker-version", alias)
    if version is not None and (v := parse_version(version[1])):
        meta["host.worker_version"] = v
    return meta


@dataclass(frozen=True)
class ListedFile:
    path: str
    kind: str
    size: int | None
    modified_at: datetime | None
    line: int


def parse_listing(text: str) -> list[ListedFile]:
    """``find -printf '%y\\t%s\\t%T@\\t%m\\t%P\\n'`` lines; regular files only."""
    files = []
    for number, line in enumerate(text.splitlines(), start=1):
        parts = line.split("\t")
        if len(parts) != 5 or parts[0] != "f" or not parts[4]:
            continue
        kind, size, mtime, _mode, path = parts
        try:
            modified = datetime.fromtimestamp(float(mtime), UTC)
        except ValueError:
            modified = None
        files.append(
            ListedFile(path, kind, int(size) if size.isdigit() else None, modified, number)
        )
    return files


@dataclass(frozen=True)
class Integrity:
    status: str
    """ok | corrupt | unreadable | absent | not_checked"""
    detail: str | None


SQLITE_CORRUPT, SQLITE_NOTADB, SQLITE_CANT_OPEN_CLI = 11, 26, 1


def classify_integrity(result: StepResult, stdout: str) -> Integrity:
    """One ``sqlite3 -readonly FILE 'PRAGMA integrity_check'`` outcome.

    Exit 0 with exactly ``ok`` is healthy; exit 0 with other lines lists the
    damage; 11/26 mean corrupt / not a database; 1 means it could not be opened
    (absent or unreadable: the listing tells which).
    """
    lines = [line.strip() for line in stdout.splitlines() if line.strip()]
    if result.status is CollectorStatus.SKIPPED:
        return Integrity("not_checked", result.error_message or "sqlite3 is not installed")
    if result.status is not CollectorStatus.OK:
        return Integrity("unreadable", result.error_message or f"check {result.status.value}")
    code = result.exit_code or 0
    if code == 0 and lines == ["ok"]:
        return Integrity("ok", "ok")
    if code == SQLITE_NOTADB:
        return Integrity("corrupt", "file is not a database (sqlite3 exit 26)")
    if code == SQLITE_CANT_OPEN_CLI and not lines:
        return Integrity("absent", "sqlite3 could not open it (exit 1)")
    summary = "; ".join(lines)[:500] or f"sqlite3 exit {code}"
    if code == SQLITE_CORRUPT:
        summary = f"database disk image is malformed: {summary}"
    return Integrity("corrupt", summary)
