"""The Markdown report: the text report's story, ready to paste into a ticket.

GitHub-flavoured Markdown only (tables, task lists, fenced code). Cell text is
escaped so a pipe or backtick in an excerpt cannot break a table.
"""

from __future__ import annotations

from schemas import AnalysisReport, TargetReport

from ._common import (
    NOT_REACHED,
    STATUS_LABEL,
    check_label,
    cited,
    counts,
    headline,
    integrity_lines,
    layer_note,
    next_steps,
    provenance,
    target_state,
    target_title,
)

CHECKBOX = {"pass": "[x]", "fail": "[ ]", "unknown": "[ ]", "not_applicable": "[x]"}
SUFFIX = {
    "pass": "",
    "fail": " — **failed**",
    "unknown": " — *unknown*",
    "not_applicable": " — n/a",
}


def cell(text: str) -> str:
    """Safe inside a table cell: one line, pipes escaped."""
    return " ".join(text.split()).replace("\\", "\\\\").replace("|", "\\|")


def code(text: str) -> str:
    """Inline code that survives backticks inside it."""
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def render_markdown(report: AnalysisReport) -> str:
    out = [f"# bundler analyze: **{cell(headline(report))}**", ""]
    out.append(f"{counts(report)} · {provenance(report)}")
    out.append("")
    for line in integrity_lines(report):
        out += [f"> **Warning:** {cell(line)}", ""]
    if report.fleet_findings:
        out.append("## Fleet")
        out += [
            f"- **{f.severity}** {code(f.code)} {cell(f.message)}" for f in report.fleet_findings
        ]
        out.append("")
    out += _targets_table(report)
    for index, target in enumerate(report.targets, start=1):
        out += _target(index, target)
    return "\n".join(out).rstrip() + "\n"


def _targets_table(report: AnalysisReport) -> list[str]:
    rows = [
        "## Targets",
        "",
        "| # | Verdict | Worker | Job | First failed | Why chosen |",
        "|---|---|---|---|---|---|",
    ]
    for index, t in enumerate(report.targets, start=1):
        failed = t.first_failed_layer.value if t.first_failed_layer else "—"
        rows.append(
            f"| {index} | {t.verdict.value} | {cell(t.worker or '—')} | {cell(t.job or '—')} "
            f"| {failed} | {cell(t.reason or '')} |"
        )
    return [*rows, ""]


def _target(index: int, target: TargetReport) -> list[str]:
    out = [f"## {cell(target_title(index, target))} — {target_state(target)}", ""]
    if target.reason:
        out += [f"*Why chosen:* {cell(target.reason)}", ""]
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
            tail = f" — {code(cell(c.excerpt))}" if c.excerpt else ""
            out.append(f"- {code(c.label())}{tail}")
        out.append("")
    steps = next_steps(target)
    if steps:
        out += ["**Next steps**", ""]
        for step in steps:
            rec = step.recovery
            out.append(
                f"- {code(step.finding.code)}: "
                + cell(rec.summary if rec else step.finding.message)
            )
            out += [f"  {n}. {cell(s)}" for n, s in enumerate(rec.steps if rec else [], start=1)]
            out += [f"  - *Caution:* {cell(c)}" for c in (rec.cautions if rec else [])]
        out.append("")
    out += ["**Recovery acceptance**", ""]
    out += [
        f"- {CHECKBOX[c.status]} {cell(c.check)}"
        + (" — *not reached*" if check_label(c, target) == NOT_REACHED else SUFFIX[c.status])
        for c in target.acceptance
    ]
    out.append("")
    return out
