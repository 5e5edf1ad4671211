"""The terminal report (rich): verdict first, then why, then what to do.

Layout, top to bottom: a verdict panel; integrity and collector warnings;
fleet-wide findings; the fleet overview (a line per worker, or per group of
identical workers in a big fleet); the targets table; then each target's ladder as a table
with the first failed rung marked, the evidence behind every failing or
warning finding (``member#/pointer`` or ``member:12-14`` with an excerpt),
the next steps with their cautions, and the acceptance checklist.
"""

from __future__ import annotations

from collections import Counter

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.panel import Panel
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from schemas import AnalysisReport, FleetOverview, LayerStatus, TargetReport, Verdict

from ...analyze.overview import main_finding
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
    provenance,
    target_state,
    target_title,
)
from ._fleet import (
    SECTIONS_SHOWN,
    TABLE_ROWS_SHOWN,
    TargetGroup,
    age,
    compact,
    group_detail,
    grouped,
    labels_text,
    others_line,
    overview_title,
    shown,
    shown_groups,
    slots_text,
    target_groups,
    worker_finding,
    worker_state,
    worker_verdict,
)
from ._steps import Step, next_steps, said_once

COMPACT_CITATIONS = 3

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
    if report.fleet is not None and report.fleet.workers_total:
        console.print(_overview(report.fleet, console))
    console.print(_targets_table(report))
    short = compact(report)
    sections, rest = shown(report, target_groups(report), SECTIONS_SHOWN, "target section")
    for group in sections:
        console.print(_target_section(group, short))
    if rest:
        console.print(Text(rest, style="dim"))


def _verdict_panel(report: AnalysisReport) -> Panel:
    body = Group(
        Text(headline(report), style=VERDICT_STYLE[report.verdict]),
        Text(f"{counts(report)} · {provenance(report)}", style="dim"),
    )
    return Panel(body, title="bundler analyze", title_align="left", expand=True)


def _overview(overview: FleetOverview, console: Console) -> RenderableType:
    title = Text(overview_title(overview), style="bold")
    if grouped(overview):
        groups, rest = shown_groups(overview)
        lines: list[RenderableType] = [title]
        for group in groups:
            style = VERDICT_STYLE[group.verdict] if group.verdict else ""
            lines.append(Text("  " + group.summary, style=style))
            lines.append(Text("      " + group_detail(group), style="dim"))
        if rest:
            lines.append(Text("  " + rest, style="dim"))
        return Group(*lines)
    rows = [
        [
            row.name,
            worker_state(row),
            age(row.heartbeat_age_s),
            labels_text(row.labels).replace(",", ", "),  # a label list wraps between labels
            slots_text(row.in_flight, row.slots_max),
            str(row.jobs_placed),
            worker_verdict(row),
            worker_finding(row),
        ]
        for row in overview.workers
    ]
    table = Table(title=title, title_justify="left", expand=False, box=None, pad_edge=False)
    table.add_column("worker", overflow="fold", max_width=24)
    table.add_column("status", overflow="fold", max_width=20)
    table.add_column("heartbeat", no_wrap=True)
    table.add_column("labels", overflow="fold", max_width=28)
    table.add_column("slots", no_wrap=True)
    table.add_column("jobs", justify="right", no_wrap=True)
    table.add_column("verdict", overflow="fold", max_width=22)
    whole = _codes_fit(table, rows, console.width)  # asked of the columns before it
    table.add_column("finding", overflow="fold", no_wrap=whole)
    for row, cells in zip(overview.workers, rows, strict=True):
        style = VERDICT_STYLE[row.verdict] if row.verdict else "dim"
        table.add_row(*cells[:6], Text(cells[6], style=style), cells[7])
    return table


def _codes_fit(table: Table, rows: list[list[str]], width: int) -> bool:
    """Whether a last column, the finding, can keep each line whole within ``width``.

    rich wraps at spaces and folds a word longer than its column, and it narrows the widest
    column first: a finding code cut mid-word (``LICENSE_EXPIRED_OR_I`` / ``NVALID``) while
    the verdict and labels had room to wrap between words. When every other column, wrapped
    between words, leaves room for the longest finding, that column does not wrap (a
    sentence there, such as "no trouble found", is short); else it folds as before, never
    cropping a row.
    """

    def narrowest(texts: list[str], wraps: bool) -> int:
        words = [w for t in texts for w in (t.split() if wraps else [t])]
        return max((cell_len(w) for w in words), default=0)

    columns = table.columns
    others = sum(
        min(
            narrowest([str(c.header), *(r[i] for r in rows)], not c.no_wrap),
            c.max_width or width,
        )
        for i, c in enumerate(columns)
    )
    finding = narrowest([r[-1] for r in rows], wraps=False)
    return others + 2 * len(columns) + finding <= width


def _targets_table(report: AnalysisReport) -> RenderableType:
    groups, rest = shown(report, target_groups(report), TABLE_ROWS_SHOWN, "row")
    table = _table(groups)
    return Group(table, Text(rest, style="dim")) if rest else table


def _table(groups: list[TargetGroup]) -> Table:
    together = any(g.count > 1 for g in groups)
    table = Table(title="Targets", title_justify="left", expand=True, show_lines=False)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    if together:
        table.add_column("n", justify="right", no_wrap=True)
    table.add_column("worker", overflow="fold")
    table.add_column("job", overflow="fold")
    table.add_column("first failed", no_wrap=True)
    if not together:
        table.add_column("why chosen", overflow="fold", ratio=2)
    for group in groups:
        target = group.first
        more = f" (+{len(group.others)})" if group.others else ""
        cells = [
            str(group.index),
            Text(target.verdict.value, style=VERDICT_STYLE[target.verdict]),
            *([str(group.count)] if together else []),
            (target.worker or "—") + more,
            target.job or "—",
            target.first_failed_layer.value if target.first_failed_layer else "—",
            *([] if together else [target.reason or ""]),
        ]
        table.add_row(*cells)
    return table


def _target_section(group: TargetGroup, short: bool) -> RenderableType:
    target = group.first
    parts: list[RenderableType] = [
        Rule(
            Text(
                f"{target_title(group.index, target)} — {target_state(target)}",
                style=VERDICT_STYLE[target.verdict],
            ),
            align="left",
        ),
    ]
    if target.reason:
        parts.append(Text(f"why chosen: {target.reason}", style="dim"))
    if group.others:
        parts.append(Text(others_line(group), style="bold"))
    if short:
        parts.append(_quiet_line(target))
    parts.append(_ladder(target, short))
    parts += _evidence(target, short)
    parts += _steps(target, short)
    parts.append(_acceptance_line(target) if short else _acceptance(target))
    return Group(*parts)


def _ladder(target: TargetReport, short: bool = False) -> Table:
    table = Table(expand=True, box=None, pad_edge=False, show_header=not short)
    table.add_column("layer", no_wrap=True, min_width=13)
    table.add_column("status", no_wrap=True, min_width=9)
    table.add_column("finding", overflow="fold", ratio=1)
    quiet = (LayerStatus.PASS, LayerStatus.SKIPPED, LayerStatus.NOT_APPLICABLE)
    for layer in target.layers:
        if short and layer.status in quiet:
            continue
        first = layer.name is target.first_failed_layer
        name = Text(("▶ " if first else "  ") + layer.name.value, style="bold red" if first else "")
        status = Text(STATUS_LABEL[layer.status], style=STATUS_STYLE[layer.status])
        note = Text(
            "\n".join(layer_note(layer)), style="dim" if layer.status is LayerStatus.SKIPPED else ""
        )
        table.add_row(name, status, note)
    return table


def _quiet_line(target: TargetReport) -> Text:
    """Passing, n/a and skipped rungs named on one line (a compact report lists only the rest)."""
    quiet: dict[LayerStatus, list[str]] = {}
    for layer in target.layers:
        if layer.status in (LayerStatus.PASS, LayerStatus.SKIPPED, LayerStatus.NOT_APPLICABLE):
            quiet.setdefault(layer.status, []).append(layer.name.value)
    parts = [f"{STATUS_LABEL[status]}: {', '.join(names)}" for status, names in quiet.items()]
    return Text("  " + " · ".join(parts), style="dim")


def _evidence(target: TargetReport, short: bool = False) -> list[RenderableType]:
    citations = cited(target)[: COMPACT_CITATIONS if short else None]
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


def _steps(target: TargetReport, short: bool = False) -> list[RenderableType]:
    steps = next_steps(target)
    steps = said_once(_main_step(target, steps) if short else steps)
    if not steps:
        return []
    grid = Table.grid(padding=(0, 1), expand=True)
    grid.add_column(no_wrap=True, min_width=4)
    grid.add_column(ratio=1, overflow="fold")
    for step in steps:
        grid.add_row(Text("•"), Text(step.head))
        for number, item in enumerate(step.steps, start=1):
            grid.add_row(Text(f"  {number}."), Text(item))
        for caution in step.cautions:
            grid.add_row(Text("  !", style="yellow"), Text(caution, style="yellow"))
        if step.acceptance:
            grid.add_row(
                Text("  ✓", style="dim"),
                Text("proven by: " + "; ".join(step.acceptance), style="dim"),
            )
    return [Text("Next steps", style="bold"), grid]


def _main_step(target: TargetReport, steps: list[Step]) -> list[Step]:
    """In a compact report, only the main finding's step (the most specific one)."""
    code = main_finding(target)
    return [s for s in steps if s.finding and s.finding.code == code][:1] or steps[:1]


def _acceptance_line(target: TargetReport) -> RenderableType:
    """The checklist on one line: what failed or is unknown by name, the rest counted."""
    line = Text("Acceptance: ", style="bold")
    tally: Counter[str] = Counter()
    for check in target.acceptance:
        label = check_label(check, target)
        if label in ("FAIL", "unknown"):
            line.append(f"{label} ", style=CHECK_STYLE[check.status])
            line.append(f"{check.check}; ")
        else:
            tally[label] += 1
    line.append(", ".join(f"{n} {label}" for label, n in tally.items()), style="dim")
    return line


def _acceptance(target: TargetReport) -> RenderableType:
    lines: list[RenderableType] = [Text("Recovery acceptance", style="bold")]
    for check in target.acceptance:
        label = check_label(check, target)
        style = "dim" if label == NOT_REACHED else CHECK_STYLE[check.status]
        text = Text(check.check, style="dim" if check.status == "not_applicable" else "")
        lines.append(Hanging(Text(f"  {label:<12}", style=style), text))
    return Group(*lines)


class Hanging:
    """``head`` then ``body``, the body's continuation lines indented under its first (a
    hanging indent): a check too long for the terminal continues under its own text, not
    under the status column, which stays one column to scan. A table grid would do the same
    and pad every line with blanks to its widest row."""

    def __init__(self, head: Text, body: Text) -> None:
        self.head, self.body = head, body

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        indent = self.head.cell_len
        for number, line in enumerate(self.body.wrap(console, max(options.max_width - indent, 20))):
            line.rstrip()
            yield Text.assemble(self.head if number == 0 else " " * indent, line)
