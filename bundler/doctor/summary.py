"""The end of a doctor run: its exit code, the summary table, and the collection summary JSON.

Exit codes (documented in ``bundler doctor --help`` and the README), when
several apply the first in this list wins:

===  ==========================================================================
130  interrupted (Ctrl-C): what was collected is sealed, manifest ``interrupted``
2    usage or configuration error (nothing was collected)
4    nothing could be collected (no collector kept anything): no bundle written
1    a ladder layer failed (verdict ``blocked``)
5    partial: the bundle is written but some collectors failed
3    inconclusive: nothing failed, but evidence for a layer is missing
0    healthy (or degraded: warnings only); or, without --profile, every host
     collector succeeded (a host-only run has no ladder verdict)
===  ==========================================================================

The verdict outranks "partial" because it is what the reader acts on; a
partial bundle is a caveat the summary lists collector by collector.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from schemas import CollectorStatus, HostSummary, RecordModel, UTCDateTime

from ..collect.engine import CollectionResult
from ..collect.outcomes import SettledOutcome
from ..exit_codes import ExitCode
from ..sizes import human_size
from .progress import STATUS_STYLE

SUMMARY_SCHEMA = "bundler.doctor-summary/1"


def exit_code(*, interrupted: bool, kept: int, failed: int, verdict: str | None) -> ExitCode:
    """The doctor's exit code; see the module docstring for the precedence.

    ``kept`` counts the collectors that kept evidence, failed ones that kept a member
    included (:attr:`CollectionResult.kept`): with one, the bundle is written.
    """
    if interrupted:
        return ExitCode.INTERRUPTED
    if kept == 0:
        return ExitCode.NOTHING_COLLECTED
    if verdict == "blocked":
        return ExitCode.PROBLEM
    if failed:
        return ExitCode.PARTIAL
    if verdict == "inconclusive":
        return ExitCode.INCONCLUSIVE
    return ExitCode.OK


@dataclass(frozen=True)
class BundleWritten:
    path: Path
    size: int
    encryption: str


class CollectorLine(RecordModel):
    id: str
    status: CollectorStatus
    error_class: str | None = None
    message: str | None = None


class ProblemGroup(RecordModel):
    """Collectors that failed the same way (one unreachable server is one line, not 17)."""

    status: CollectorStatus
    error_class: str | None = None
    message: str | None = None
    count: int
    collectors: list[str]


def group_problems(lines: list[CollectorLine]) -> list[ProblemGroup]:
    """Problems with the same status, error class and message, in first-seen order."""
    groups: dict[tuple[str, str | None, str | None], ProblemGroup] = {}
    for line in lines:
        key = (line.status.value, line.error_class, line.message)
        if key not in groups:
            groups[key] = ProblemGroup(
                status=line.status,
                error_class=line.error_class,
                message=line.message,
                count=0,
                collectors=[],
            )
        groups[key].count += 1
        groups[key].collectors.append(line.id)
    return list(groups.values())


class DoctorSummary(RecordModel):
    """What ``doctor --json`` prints when no analysis is available (collection only)."""

    schema_: str = Field(default=SUMMARY_SCHEMA, alias="schema")
    profile: str | None = None
    server_url: str | None = None
    insecure_tls: bool = False
    started_at: UTCDateTime
    finished_at: UTCDateTime
    interrupted: bool = False
    deadline_reached: bool = False
    collected: int
    total: int
    problems: list[CollectorLine] = Field(
        default_factory=list, description="Every collector that did not end ok or skipped."
    )
    problem_groups: list[ProblemGroup] = Field(
        default_factory=list,
        description="The problems grouped by status, error class and message: one line each.",
    )
    skipped: list[CollectorLine] = Field(default_factory=list)
    hosts: list[HostSummary] = Field(default_factory=list)
    bundle: dict[str, Any] | None = None
    unread: list[str] = Field(
        default_factory=list,
        description="Members kept whole in the bundle that a reader's limit refuses (over the "
        "JSON cap): each with its size, the limit and the setting that reads it.",
    )
    verdict: str | None = None
    exit_code: int


def _line(outcome: SettledOutcome) -> CollectorLine:
    return CollectorLine(
        id=outcome.id,
        status=outcome.status,
        error_class=outcome.error_class,
        message=outcome.error_message or outcome.note,
    )


def build_summary(
    result: CollectionResult,
    *,
    profile: str | None,
    server_url: str | None,
    bundle: BundleWritten | None,
    verdict: str | None,
    code: ExitCode,
    insecure_tls: bool = False,
    unread: list[str] | None = None,
) -> DoctorSummary:
    return DoctorSummary(
        profile=profile,
        server_url=server_url,
        insecure_tls=insecure_tls,
        started_at=result.started_at,
        finished_at=result.finished_at,
        interrupted=result.interrupted,
        deadline_reached=result.end.value == "deadline",
        collected=result.collected,
        total=len(result.outcomes),
        problems=[_line(o) for o in result.failed],
        problem_groups=group_problems([_line(o) for o in result.failed]),
        skipped=[_line(o) for o in result.outcomes if o.status is CollectorStatus.SKIPPED],
        hosts=result.hosts,
        bundle=(
            {"path": str(bundle.path), "size": bundle.size, "encryption": bundle.encryption}
            if bundle
            else None
        ),
        unread=list(unread or []),
        verdict=verdict,
        exit_code=int(code),
    )


def render_summary(console: Console, summary: DoctorSummary) -> None:
    """The closing table: collected N of M, each problem with its reason, the bundle."""
    headline = f"collected {summary.collected} of {summary.total} collectors"
    if summary.interrupted:
        headline += " (interrupted)"
    elif summary.deadline_reached:
        headline += " (run deadline reached)"
    console.print(f"[bold]bundler doctor:[/] {headline}")
    if summary.problems:
        table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
        table.add_column("collector")
        table.add_column("status")
        table.add_column("reason", overflow="fold")
        for group in summary.problem_groups or group_problems(summary.problems):
            reason = " ".join(filter(None, (group.error_class, group.message)))
            shown = group.collectors[0] if group.count == 1 else _collective(group.collectors)
            table.add_row(shown, f"[{STATUS_STYLE[group.status]}]{group.status.value}[/]", reason)
        console.print(table)
    if summary.skipped:
        console.print(f"[dim]{len(summary.skipped)} skipped (not applicable or absent)[/]")
    if summary.bundle:
        console.print(
            f"bundle: {summary.bundle['path']} ({human_size(summary.bundle['size'])}, "
            f"encryption: {summary.bundle['encryption']})"
        )
    elif summary.exit_code == ExitCode.NOTHING_COLLECTED:
        console.print("[red]nothing could be collected: no bundle written[/]")
    kept = "; kept whole in the bundle" if summary.bundle else ""
    for unread in summary.unread:  # neither this verdict nor `bundler analyze` reads it
        console.print(f"[yellow]not read:[/] {escape(unread)}{kept}", highlight=False)
    if summary.verdict:
        console.print(f"verdict: [bold]{summary.verdict}[/]")
    elif summary.profile is None and summary.exit_code in (ExitCode.OK, ExitCode.PARTIAL):
        console.print("[dim]no ladder verdict: hosts only (give --profile to check a product)[/]")


def _collective(ids: list[str]) -> str:
    """``http.* (17 collectors)`` for a group: the shared prefix, and how many."""
    prefix = ids[0].split(".", 1)[0]
    same = all(i.split(".", 1)[0] == prefix for i in ids)
    return f"{prefix + '.*' if same else ids[0] + ' …'} ({len(ids)} collectors)"


def no_ladder_report(summary: DoctorSummary) -> Any:
    """The analysis report of a run with no ladder to walk: inconclusive, and why."""
    from schemas import AnalysisReport, BundleInfo, Integrity, Verdict

    from .. import __version__
    from ..analyze.codes import NO_LADDER
    from ..analyze.fleet import note

    if summary.interrupted:
        why = "the run was interrupted before anything could be judged"
    elif summary.profile is None:
        why = "hosts only: give --profile to check a product's serviceability ladder"
    else:
        why = "the live analysis could not run; the collection summary says what was collected"
    return AnalysisReport(
        tool_version=__version__,
        bundle=BundleInfo(
            profile=summary.profile,
            integrity=Integrity(status="unverified", problems=["live check: nothing sealed"]),
            collectors_total=summary.total,
            collectors_failed=[f"{p.id}: {p.status.value}" for p in summary.problems],
        ),
        verdict=Verdict.INCONCLUSIVE,
        fleet_findings=[note(NO_LADDER, f"No ladder verdict: {why}.", severity="info")],
    )
