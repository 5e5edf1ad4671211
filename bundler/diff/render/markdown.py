"""The diff for a ticket: the same content as the text renderer, as Markdown tables."""

from __future__ import annotations

from schemas import DiffReport

from ._common import HEADLINES, interesting, layer_line, shown, side_line, status


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(report: DiffReport) -> str:
    out = [f"## bundler diff: {HEADLINES[report.verdict]}", ""]
    out += [f"- {side_line('BEFORE', report.before)}", f"- {side_line('AFTER', report.after)}"]
    out += [f"- **warning:** {_cell(w)}" for w in report.warnings]
    rows = interesting(report)
    out += ["", "### Ladder changes", ""]
    if not rows:
        out.append("No layer changed.")
    for label, layers in rows:
        out.append(f"- **{_cell(label)}**: " + "; ".join(layer_line(layer) for layer in layers))
    if report.findings:
        out += [
            "",
            "### Findings",
            "",
            "| change | code | subject | message |",
            "|---|---|---|---|",
        ]
        for f in report.findings:
            out.append(f"| {f.change} | `{f.code}` | {_cell(f.subject)} | {_cell(f.message)} |")
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
                    f"| {_cell(c.subject)} | {c.field} | {_cell(shown(c.before))} | "
                    f"{_cell(shown(c.after))} |"
                )
    if report.collectors:
        out += ["", "### Collectors that failed on one side only", ""]
        out += ["| collector | before | after | error |", "|---|---|---|---|"]
        for cc in report.collectors:
            error = _cell(cc.error or "")
            out.append(f"| `{cc.collector}` | {status(cc.before)} | {status(cc.after)} | {error} |")
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
        out.append(f"| {_cell(check.check)} | {status(check.status)} | {_cell(where)} |")
    return "\n".join(out) + "\n"
