"""The Markdown report: the text report's story, ready to paste into a ticket.

GitHub-flavoured Markdown only (tables, task lists, fenced code). Cell text is
escaped so a pipe or backtick in an excerpt cannot break a table.
"""

from __future__ import annotations

import re

from schemas import AnalysisReport, FleetOverview

from ._common import (
    NOT_REACHED,
    STATUS_LABEL,
    check_label,
    cited,
    counts,
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
from ._steps import next_steps, said_once

CHECKBOX = {"pass": "[x]", "fail": "[ ]", "unknown": "[ ]", "not_applicable": "[x]"}
SUFFIX = {
    "pass": "",
    "fail": " — **failed**",
    "unknown": " — *unknown*",
    "not_applicable": " — n/a",
}


MARKDOWN_PUNCTUATION = re.compile(r"([\\*\[\]<>~|]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z]))")
"""What bundle text could use to become a link, an image, HTML, emphasis or a new cell.

Backticks are left alone: our own messages mark commands with them, and a code
span can only make text *more* literal (whatever it leaves outside is escaped).
An underscore inside a word (``NO_MATCHING_WORKER``) never starts emphasis, so
only one at a word's edge is escaped."""


BACKTICK_RUN = re.compile(r"`+")


def cell(text: str) -> str:
    """Text shown as itself in a table cell or a line: one line, Markdown syntax escaped.

    A worker called ``[click](https://…)`` or ``**HEALTHY**`` must read as those
    characters in a rendered ticket, not as a link or a bold verdict. Inside a code span
    a backslash is shown as itself (CommonMark), so there only ``|`` is escaped (GFM strips
    that backslash in a table cell): `` `lyftdata workers logs <worker-id>` `` must not
    read ``\\<worker-id\\>`` in the ticket.
    """
    text = " ".join(text.split())
    out: list[str] = []
    done = 0
    for start, end in _code_spans(text):
        out.append(MARKDOWN_PUNCTUATION.sub(r"\\\1", text[done:start]))
        out.append(text[start:end].replace("|", "\\|"))
        done = end
    out.append(MARKDOWN_PUNCTUATION.sub(r"\\\1", text[done:]))
    return "".join(out)


def _code_spans(text: str) -> list[tuple[int, int]]:
    """Where CommonMark reads code spans: a run of N backticks up to the next run of exactly N.

    A run with no closing run of its length is literal backticks, and the text after it is
    read as ordinary text again (so it is escaped). Backslashes before a backtick do not
    matter here: :func:`cell` doubles every backslash outside a span.
    """
    runs = [(m.start(), m.end()) for m in BACKTICK_RUN.finditer(text)]
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(runs):
        start, end = runs[i]
        closing = next(
            (j for j in range(i + 1, len(runs)) if runs[j][1] - runs[j][0] == end - start), None
        )
        if closing is None:
            i += 1
            continue
        spans.append((start, runs[closing][1]))
        i = closing + 1
    return spans


def code(text: str) -> str:
    """Inline code that survives backticks inside it: a fence longer than any run in ``text``."""
    text = " ".join(text.split())
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def render_markdown(report: AnalysisReport) -> str:
    out = [f"# bundler analyze: **{cell(headline(report))}**", ""]
    out.append(f"{cell(counts(report))} · {cell(provenance(report))}")
    out.append("")
    for line in integrity_lines(report):
        out += [f"> **Warning:** {cell(line)}", ""]
    if report.fleet_findings:
        out.append("## Fleet")
        out += [
            f"- **{f.severity}** {code(f.code)} {cell(f.message)}" for f in report.fleet_findings
        ]
        out.append("")
    if report.fleet is not None and report.fleet.workers_total:
        out += _overview(report.fleet)
    groups = target_groups(report)
    rows, more_rows = shown(report, groups, TABLE_ROWS_SHOWN, "row")
    out += _targets_table(rows)
    if more_rows:
        out += [cell(more_rows), ""]
    sections, more = shown(report, groups, SECTIONS_SHOWN, "target section")
    for group in sections:
        out += _target(group)
    if more:
        out += [cell(more), ""]
    return "\n".join(out).rstrip() + "\n"


def _overview(overview: FleetOverview) -> list[str]:
    out = [f"## {cell(overview_title(overview))}", ""]
    if grouped(overview):
        groups, rest = shown_groups(overview)
        for group in groups:
            out.append(f"- **{cell(group.summary)}**  ")
            out.append(f"  {cell(group_detail(group))}")
        if rest:
            out.append(f"- {cell(rest)}")
        return [*out, ""]
    out += [
        "| Worker | Status | Heartbeat | Labels | Slots | Jobs | Verdict | Finding |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in overview.workers:
        out.append(
            f"| {cell(row.name)} | {cell(worker_state(row))} | {age(row.heartbeat_age_s)} "
            f"| {cell(labels_text(row.labels))} | {slots_text(row.in_flight, row.slots_max)} "
            f"| {row.jobs_placed} | {worker_verdict(row)} | {cell(worker_finding(row))} |"
        )
    return [*out, ""]


def _targets_table(groups: list[TargetGroup]) -> list[str]:
    rows = [
        "## Targets",
        "",
        "| # | Verdict | Worker | Job | First failed | Why chosen |",
        "|---|---|---|---|---|---|",
    ]
    for group in groups:
        t = group.first
        failed = t.first_failed_layer.value if t.first_failed_layer else "—"
        more = f" (+{len(group.others)} similar)" if group.others else ""
        rows.append(
            f"| {group.index} | {t.verdict.value} | {cell(t.worker or '—')}{more} "
            f"| {cell(t.job or '—')} | {failed} | {cell(t.reason or '')} |"
        )
    return [*rows, ""]


def _target(group: TargetGroup) -> list[str]:
    target = group.first
    out = [f"## {cell(target_title(group.index, target))} — {target_state(target)}", ""]
    if target.reason:
        out += [f"*Why chosen:* {cell(target.reason)}", ""]
    if group.others:
        out += [f"**{cell(others_line(group))}**", ""]
    out += ["| Layer | Status | Finding |", "|---|---|---|"]
    for layer in target.layers:
        name = (
            f"**{layer.name.value}**"
            if layer.name is target.first_failed_layer
            else (layer.name.value)
        )
        status = STATUS_LABEL[layer.status]
        status = f"**{status}**" if layer.name is target.first_failed_layer else status
        note = "<br>".join(cell(line) for line in layer_note(layer))
        out.append(f"| {name} | {status} | {note} |")
    out.append("")
    citations = cited(target)
    if citations:
        out.append("**Evidence**")
        out.append("")
        for c in citations:
            tail = f" — {code(c.excerpt)}" if c.excerpt else ""
            out.append(f"- {code(c.label())}{tail}")
        out.append("")
    steps = said_once(next_steps(target))
    if steps:
        out += ["**Next steps**", ""]
        for step in steps:
            head = f"{code(step.finding.code)}: " if step.finding else ""
            out.append(f"- {head}{cell(step.summary)}")
            out += [f"  {n}. {cell(s)}" for n, s in enumerate(step.steps, start=1)]
            out += [f"  - *Caution:* {cell(c)}" for c in step.cautions]
            if step.acceptance:
                out.append(f"  - *Proven by:* {cell('; '.join(step.acceptance))}")
        out.append("")
    out += ["**Recovery acceptance**", ""]
    out += [
        f"- {CHECKBOX[c.status]} {cell(c.check)}"
        + (" — *not reached*" if check_label(c, target) == NOT_REACHED else SUFFIX[c.status])
        for c in target.acceptance
    ]
    out.append("")
    return out
