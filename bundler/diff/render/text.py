"""The diff for a terminal: verdict first, then what changed, then the acceptance checklist."""

from __future__ import annotations

from schemas import DiffReport

from ._common import DOUBT_LABEL, headline, interesting, layer_line, shown, side_line, status

MAX_ROWS = 40


def render_text(report: DiffReport) -> str:
    out: list[str] = [headline(report), ""]
    out += [side_line("BEFORE", report.before), side_line("AFTER ", report.after)]
    out += [f"{DOUBT_LABEL}: {d}" for d in report.doubts]
    out += [f"warning: {w}" for w in report.warnings]
    rows = interesting(report)
    out += ["", "Ladder changes:" if rows else "Ladder: no layer changed."]
    for label, layers in rows:
        out.append(f"  {label}")
        out += [f"    {layer_line(layer)}" for layer in layers]
    if report.findings:
        out += ["", "Findings:"]
        for f in report.findings[:MAX_ROWS]:
            out.append(f"  {f.change:<10} {f.code} [{f.subject}]: {f.message}")
        if len(report.findings) > MAX_ROWS:
            out.append(f"  … and {len(report.findings) - MAX_ROWS} more (--format json)")
    for title, changes in (("Workers", report.workers), ("Deployments", report.deployments)):
        if changes:
            out += ["", f"{title}:"]
            for c in changes[:MAX_ROWS]:
                out.append(f"  {c.subject}: {c.field} {shown(c.before)} -> {shown(c.after)}")
            if len(changes) > MAX_ROWS:
                out.append(f"  … and {len(changes) - MAX_ROWS} more (--format json)")
    if report.collectors:
        out += ["", "Collectors that failed on one side only:"]
        for cc in report.collectors[:MAX_ROWS]:
            why = f": {cc.error}" if cc.error else ""
            out.append(f"  {cc.collector}: {status(cc.before)} -> {status(cc.after)}{why}")
    out += ["", "Recovery acceptance (on AFTER):"]
    for check in report.acceptance:
        mark = {"pass": "ok  ", "fail": "FAIL", "unknown": "??  ", "not_applicable": "n/a "}
        line = f"  [{mark[check.status]}] {check.check}"
        if check.status in ("fail", "unknown"):
            bad = [t for t, s in check.targets.items() if s == check.status]
            if bad:
                line += f" ({', '.join(bad)})"
        if check.detail and check.status != "pass":
            line += f": {check.detail}"
        out.append(line)
    return "\n".join(out) + "\n"
