"""The diff for a ticket: the same content as the text renderer, as Markdown tables."""

from __future__ import annotations

from schemas import DiffReport

from ...analyze.render.markdown import cell
from ._common import DOUBT_LABEL, headline, interesting, layer_line, shown, side_line, status


def render_markdown(report: DiffReport) -> str:
    out = [f"## bundler diff: {headline(report)}", ""]
    out += [f"- {cell(side_line('BEFORE', report.before))}"]
    out += [f"- {cell(side_line('AFTER', report.after))}"]
    out += [f"- **{DOUBT_LABEL}:** {cell(d)}" for d in report.doubts]
    out += [f"- **warning:** {cell(w)}" for w in report.warnings]
    rows = interesting(report)
    out += ["", "### Ladder changes", ""]
    if not rows:
        out.append("No layer changed.")
    for label, layers in rows:
        out.append(
            f"- **{cell(label)}**: " + cell("; ".join(layer_line(layer) for layer in layers))
        )
    if report.findings:
        out += [
            "",
            "### Findings",
            "",
            "| change | code | subject | message |",
            "|---|---|---|---|",
        ]
        for f in report.findings:
            out.append(f"| {f.change} | `{f.code}` | {cell(f.subject)} | {cell(f.message)} |")
    for title, changes in (("Workers", report.workers), ("Deployments", report.deployments)):
        if changes:
            out += [
                "",
                f"### {title}",
                "",
                "| subject | field | before | after |",
                "|---|---|---|---|",
            ]
            for c in changes:
                out.append(
                    f"| {cell(c.subject)} | {c.field} | {cell(shown(c.before))} | "
                    f"{cell(shown(c.after))} |"
                )
    if report.collectors:
        out += ["", "### Collectors that failed on one side only", ""]
        out += ["| collector | before | after | error |", "|---|---|---|---|"]
        for cc in report.collectors:
            error = cell(cc.error or "")
            collector = cell(cc.collector)
            out.append(f"| {collector} | {status(cc.before)} | {status(cc.after)} | {error} |")
    out += [
        "",
        "### Recovery acceptance (on AFTER)",
        "",
        "| check | status | where |",
        "|---|---|---|",
    ]
    for check in report.acceptance:
        where = ", ".join(f"{t}: {status(s)}" for t, s in check.targets.items())
        if check.detail:
            where = f"{where} — {check.detail}" if where else check.detail
        out.append(f"| {cell(check.check)} | {status(check.status)} | {cell(where)} |")
    return "\n".join(out) + "\n"
