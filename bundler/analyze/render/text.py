"""The terminal report (rich): verdict first, then why, then what to do.

Layout, top to bottom: a verdict panel; integrity and collector warnings;
fleet-wide findings; the targets table; then each target's ladder as a table
with the first failed rung marked, the evidence behind every failing or
warning finding (``member#/pointer`` or ``member:12-14`` with an excerpt),
the next steps with their cautions, and the acceptance checklist.
"""

from __future__ import annotations

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from schemas import AnalysisReport, LayerStatus, TargetReport, Verdict

from ._common import (
    NOT_REACHED,
    STATUS_LABEL,
    check_label,
    cited,
    counts,
    excerpt_of,
    headline,
    integrity_lines,
    layer_note,
    next_steps,
    provenance,
    target_state,
    target_title,
)

VERDICT_STYLE = {
    Verdict.HEALTHY: "bold green",
    Verdict.DEGRADED: "bold yellow",
    Verdict.BLOCKED: "bold red",
    Verdict.INCONCLUSIVE: "bold magenta",
}
STATUS_STYLE = {
    LayerStatus.PASS: "green",
    LayerStatus.WARN: "yellow",
    LayerStatus.FAIL: "bold red",
    LayerStatus.UNKNOWN: "magenta",
    LayerStatus.SKIPPED: "dim",
    LayerStatus.NOT_APPLICABLE: "dim",
}
CHECK_STYLE = {"pass": "green", "fail": "bold red", "unknown": "magenta", "not_applicable": "dim"}


def render_text(report: AnalysisReport, console: Console) -> None:
    console.print(_verdict_panel(report))
    for line in integrity_lines(report):
        console.print(Text("! " + line, style="bold yellow"))
    if report.fleet_findings:
        console.print(Text("Fleet", style="bold"))
        for finding in report.fleet_findings:
            console.print(
                Text(f"  {finding.severity.upper():<5} {finding.code}: {finding.message}")
            )
    console.print(_targets_table(report))
    for index, target in enumerate(report.targets, start=1):
        console.print(_target_section(index, target))


def _verdict_panel(report: AnalysisReport) -> Panel:
    body = Group(
        Text(headline(report), style=VERDICT_STYLE[report.verdict]),
        Text(f"{counts(report)} · {provenance(report)}", style="dim"),
    )
    return Panel(body, title="bundler analyze", title_align="left", expand=True)


def _targets_table(report: AnalysisReport) -> Table:
    table = Table(title="Targets", title_justify="left", expand=True, show_lines=False)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    table.add_column("worker", overflow="fold")
    table.add_column("job", overflow="fold")
    table.add_column("first failed", no_wrap=True)
    table.add_column("why chosen", overflow="fold", ratio=2)
    for index, target in enumerate(report.targets, start=1):
        table.add_row(
            str(index),
            Text(target.verdict.value, style=VERDICT_STYLE[target.verdict]),
            target.worker or "—",
            target.job or "—",
            target.first_failed_layer.value if target.first_failed_layer else "—",
            target.reason or "",
        )
    return table


def _target_section(index: int, target: TargetReport) -> RenderableType:
    parts: list[RenderableType] = [
        Rule(
            Text(
                f"{target_title(index, target)} — {target_state(target)}",
                style=VERDICT_STYLE[target.verdict],
            ),
            align="left",
        ),
    ]
    if target.reason:
        parts.append(Text(f"why chosen: {target.reason}", style="dim"))
    parts.append(_ladder(target))
    parts += _evidence(target)
    parts += _steps(target)
    parts.append(_acceptance(target))
    return Group(*parts)


def _ladder(target: TargetReport) -> Table:
    table = Table(expand=True, box=None, pad_edge=False, show_header=True)
    table.add_column("layer", no_wrap=True, min_width=13)
    table.add_column("status", no_wrap=True, min_width=9)
    table.add_column("finding", overflow="fold", ratio=1)
    for layer in target.layers:
        first = layer.name is target.first_failed_layer
        name = Text(("▶ " if first else "  ") + layer.name.value, style="bold red" if first else "")
        status = Text(STATUS_LABEL[layer.status], style=STATUS_STYLE[layer.status])
        note = Text(
            "\n".join(layer_note(layer)), style="dim" if layer.status is LayerStatus.SKIPPED else ""
        )
        table.add_row(name, status, note)
    return table


def _evidence(target: TargetReport) -> list[RenderableType]:
    citations = cited(target)
    if not citations:
        return []
    grid = Table.grid(padding=(0, 2), expand=True)
    grid.add_column(no_wrap=True)
    grid.add_column(ratio=1, overflow="fold")
    for citation in citations:
        grid.add_row(
            Text("  " + citation.label(), style="cyan"),
            Text(excerpt_of(citation), style="dim"),
        )
    return [Text("Evidence", style="bold"), grid]


def _steps(target: TargetReport) -> list[RenderableType]:
    steps = next_steps(target)
    if not steps:
        return []
    grid = Table.grid(padding=(0, 1), expand=True)
    grid.add_column(no_wrap=True, min_width=4)
    grid.add_column(ratio=1, overflow="fold")
    for step in steps:
        rec = step.recovery
        grid.add_row(
            Text("•"),
            Text(f"{step.finding.code}: " + (rec.summary if rec else step.finding.message)),
        )
        for number, item in enumerate(rec.steps if rec else [], start=1):
            grid.add_row(Text(f"  {number}."), Text(item))
        for caution in rec.cautions if rec else []:
            grid.add_row(Text("  !", style="yellow"), Text(caution, style="yellow"))
        if step.finding.acceptance:
            grid.add_row(
                Text("  ✓", style="dim"),
                Text("proven by: " + "; ".join(step.finding.acceptance), style="dim"),
            )
    return [Text("Next steps", style="bold"), grid]


def _acceptance(target: TargetReport) -> RenderableType:
    lines: list[RenderableType] = [Text("Acceptance (seed 000)", style="bold")]
    for check in target.acceptance:
        line = Text("  ")
        label = check_label(check, target)
        style = "dim" if label == NOT_REACHED else CHECK_STYLE[check.status]
        line.append(f"{label:<12}", style=style)
        line.append(check.check, style="dim" if check.status == "not_applicable" else "")
        lines.append(line)
    return Group(*lines)
