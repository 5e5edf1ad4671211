"""Human output of ``bundler inspect`` and ``bundler verify`` (rich), kept apart from the data.

Commands print the pydantic models with ``--json``; these functions turn the
same models into tables for people. Data types never import a console.
"""

from __future__ import annotations

import pyzipper
from pydantic import BaseModel, Field
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from schemas import CollectorStatus, Integrity, Manifest

from ..printable import printable_model
from ..sizes import human_size
from ..timetext import formatted
from .integrity.verify import VerifyReport
from .reader import BundleReader

_STATUS_STYLE = {
    CollectorStatus.OK: "green",
    CollectorStatus.SKIPPED: "dim",
    CollectorStatus.FAILED: "red",
    CollectorStatus.TIMEOUT: "red",
    CollectorStatus.REFUSED: "red",
    CollectorStatus.INTERRUPTED: "yellow",
}


class InspectReport(BaseModel):
    """What ``bundler inspect --json`` prints: the manifest plus what the zip itself shows."""

    bundle: str
    file_size: int
    sealed_to: list[str] = Field(
        default_factory=list, description="Recipient fingerprints from the zip comment envelope."
    )
    integrity: Integrity = Field(
        description="Problems visible without reading contents (run `bundler verify` for all)."
    )
    manifest: Manifest | None = None
    compression: dict[str, str] = Field(
        default_factory=dict,
        description="Each zip entry's compression method, from the zip: 'deflate', or "
        "'stored' for a member that would deflate past the readers' ratio limit (stored "
        "uncompressed, still encrypted, every byte kept).",
    )

    @classmethod
    def of(cls, reader: BundleReader) -> InspectReport:
        return cls(
            bundle=str(reader.path),
            file_size=reader.path.stat().st_size,
            sealed_to=reader.envelope.fingerprints if reader.envelope else [],
            integrity=reader.integrity.to_schema(),
            manifest=reader.manifest,
            compression={
                entry.name: _METHODS.get(entry.info.compress_type, "other")
                for entry in reader.entries
                if not entry.is_dir
            },
        )


_METHODS = {pyzipper.ZIP_DEFLATED: "deflate", pyzipper.ZIP_STORED: "stored"}
"""What inspect calls the compression methods bundler writes (the reader refuses others)."""


PIPE_WIDTH = 160
"""Width when output is not a terminal: wide tables beat wrapped cells in logs and tickets."""


def make_console() -> Console:
    """A console for command output (stdout), wide when piped, never re-wrapping text lines."""
    probe = Console()
    width = None if probe.is_terminal else PIPE_WIDTH
    return Console(highlight=False, soft_wrap=True, width=width)


def render_inspect(report: InspectReport, console: Console) -> None:
    report = printable_model(report)  # bundle text: control and bidi characters shown escaped
    _render_integrity(report.integrity, console, hint="run `bundler verify` for details")
    manifest = report.manifest
    if manifest is None:
        console.print("[red]No readable manifest[/]: only the problems above can be shown.")
        return
    console.print(_summary_grid(report, manifest))
    if manifest.collectors:
        console.print(_collectors_table(manifest))
    else:
        console.print("Collectors: none recorded")
    console.print(_members_table(manifest, report.compression))


def _summary_grid(report: InspectReport, manifest: Manifest) -> Table:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(overflow="fold")
    enc = manifest.encryption
    recipients = ", ".join(
        f"{r.fingerprint}" + (f" ({r.comment})" if r.comment else "") for r in enc.recipients
    )
    target = manifest.target
    hosts = ", ".join(
        f"{h.alias} {h.role.value}" + (f" {h.worker}" if h.worker else "") for h in target.hosts
    )
    rows = [
        ("Bundle", f"{report.bundle} ({human_size(report.file_size)})"),
        ("Format", f"{manifest.format} · {manifest.tool.name} {manifest.tool.version}"),
        (
            "Created",
            f"{formatted(manifest.created_at, '%Y-%m-%d %H:%M:%S')} UTC · id {manifest.bundle_id}",
        ),
        ("Command", f"{manifest.command} · profile {manifest.profile or '-'}"),
        (
            "Target",
            f"{target.server_url or '-'}" + (" · TLS NOT verified" if target.insecure_tls else ""),
        ),
        ("Hosts", hosts or "-"),
        ("Encryption", f"{enc.mode} ({enc.cipher})" + (f" → {recipients}" if recipients else "")),
        ("Redaction", _redaction_line(manifest)),
    ]
    if manifest.interrupted:
        rows.append(("Interrupted", "[yellow]yes: the run was interrupted (Ctrl-C)[/]"))
    for key, value in rows:
        grid.add_row(key, value if key == "Interrupted" else escape(value))
    return grid


def _redaction_line(manifest: Manifest) -> str:
    red = manifest.redaction
    if red is None:
        return "none recorded"
    if red.ruleset_id == "none":
        return "NOT redacted (written without a redaction rule set)"
    kinds = ", ".join(f"{kind} {count}" for kind, count in sorted(red.by_kind.items()))
    return (
        f"ruleset {red.ruleset_id} · {red.total} redactions"
        + (f" ({kinds})" if kinds else "")
        + f" · {red.files_redacted} files redacted, {red.files_skipped} skipped"
        + (" · network obfuscated" if red.obfuscate_network else "")
    )


def _collectors_table(manifest: Manifest) -> Table:
    failed = sum(1 for c in manifest.collectors if c.status is not CollectorStatus.OK)
    table = Table(
        title=f"Collectors ({len(manifest.collectors)}, {failed} not ok)", title_justify="left"
    )
    for column in ("id", "kind", "target", "status", "time", "bytes", "reason"):
        table.add_column(column, overflow="fold")
    for c in manifest.collectors:
        reason = " ".join(x for x in (c.error_class, c.error_message, c.note) if x)
        style = _STATUS_STYLE.get(c.status, "")
        table.add_row(
            escape(c.id),
            c.kind.value,
            escape(c.target),
            f"[{style}]{c.status.value}[/]",
            f"{c.duration_s:.1f}s",
            human_size(c.bytes),
            escape(reason),
        )
    return table


def _members_table(manifest: Manifest, compression: dict[str, str]) -> Table:
    table = Table(title=f"Members ({len(manifest.members)})", title_justify="left")
    for column in ("path", "size", "method", "type", "schema", "collector", "flags"):
        table.add_column(column, overflow="fold")
    for m in manifest.members:
        flags = [f for f, on in (("truncated", m.truncated), ("invalid", m.valid is False)) if on]
        table.add_row(
            escape(m.path),
            human_size(m.size),
            compression.get(m.path, "-"),
            escape(m.media_type),
            escape(m.schema_name or "-"),
            escape(m.collector or "-"),
            ", ".join(flags),
        )
    return table


def render_verify(report: VerifyReport, console: Console) -> None:
    report = printable_model(report)
    if report.problems:
        console.print(f"[red bold]Integrity: {report.integrity.status}[/]")
    for check in report.problems:
        where = f"{check.member}: " if check.member else ""
        console.print(f"[red]✗ {check.check}[/] {escape(where + (check.detail or ''))}")
    schema_ok = sum(1 for c in report.checks if c.check == "schema" and c.status == "ok")
    unchecked = sum(1 for c in report.checks if c.status == "not_checked")
    verdict = "[green]verified[/]" if report.ok else "[red]problems found[/]"
    console.print(
        f"{escape(report.bundle)}: {verdict} · {report.members_checked} members "
        f"({human_size(report.bytes_checked)}) checksummed · {schema_ok} schema-valid"
        + (f" · {unchecked} product records not checked offline" if unchecked else "")
    )


def _render_integrity(integrity: Integrity, console: Console, hint: str = "") -> None:
    if not integrity.problems:
        return
    console.print(
        f"[red bold]Integrity: {integrity.status}[/] ({len(integrity.problems)} problems)"
    )
    for problem in integrity.problems:
        console.print(f"  [red]•[/] {escape(problem)}")
    if hint:
        console.print(f"  [dim]{hint}[/]")
