"""Parsers for what the worker hosts said: service state, worker version, state-dir listing,
SQLite integrity. Each takes the command's (redacted) stdout and returns plain data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

from schemas.manifest import CollectorStatus

from ....source import MemberNotFound
from ...base import NormalizeContext, StepResult

_VERSION = re.compile(r"(\d+\.\d+(?:\.\d+)?(?:[-+.][0-9A-Za-z.]+)?)")


def host_text(ctx: NormalizeContext, step: str, alias: str | None) -> tuple[StepResult, str] | None:
    """The OK output of host step ``step`` on host ``alias``."""
    for result in ctx.results_for(step):
        if result.host == alias and result.status is CollectorStatus.OK and result.member:
            try:
                return result, ctx.source.read_bytes(result.member).decode("utf-8", "replace")
            except MemberNotFound:
                return None
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


def service_metadata(ctx: NormalizeContext, alias: str | None) -> dict[str, str | float | int]:
    """The worker service's state, as WorkerStatus.metadata (``service.*`` keys)."""
    if alias is None:
        return {}
    found = host_text(ctx, "worker-service", alias)
    meta: dict[str, str | float | int] = {}
    if found is not None:
        props = parse_systemctl_show(found[1])
        for key in ("ActiveState", "SubState", "LoadState"):
            if key in props:
                meta[f"service.{key}"] = props[key]
        if props.get("NRestarts", "").isdigit():
            meta["service.NRestarts"] = int(props["NRestarts"])
    version = host_text(ctx, "worker-version", alias)
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


@dataclass
class IntegrityResult:
    path: str
    line_start: int
    status: str = "not_checked"
    """ok | corrupt | unreadable | not_checked"""
    detail: list[str] = field(default_factory=list)
    line_end: int = 0


_UNREADABLE = ("unable to open", "permission denied", "authorization denied")


def parse_integrity(text: str) -> tuple[list[IntegrityResult], str | None]:
    """Blocks of ``== file P`` / output / ``== exit N`` from the plan's check script.

    Returns the per-file results and a note (``sqlite3-missing``,
    ``no-sqlite-files``) when the script could not check anything.
    """
    results: list[IntegrityResult] = []
    note = None
    current: IntegrityResult | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("== file "):
            current = IntegrityResult(path=line.removeprefix("== file ").strip(), line_start=number)
            results.append(current)
        elif line.startswith("== exit ") and current is not None:
            current.line_end = number
            code = line.removeprefix("== exit ").strip()
            output = [d for d in current.detail if d.strip()]
            if code == "0" and output == ["ok"]:
                current.status = "ok"
            elif any(marker in " ".join(output).lower() for marker in _UNREADABLE):
                current.status = "unreadable"
            else:
                current.status = "corrupt"
            current = None
        elif line.startswith("== ") and current is None:
            note = line.removeprefix("== ").strip()
        elif current is not None:
            current.detail.append(line)
    return results, note
