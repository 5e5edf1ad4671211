"""The diff as one self-contained page, with the HTML report's templates, stylesheet and CSP."""

from __future__ import annotations

from schemas import DiffReport

from ._common import DOUBT_LABEL, headline, interesting, layer_line, shown, status


def render_html(report: DiffReport) -> str:
    from ...analyze.render.html import render_page  # Jinja2 only when HTML is asked for

    return render_page(
        "diff.html.j2",
        tool_version=report.tool_version,
        report=report,
        headline=headline(report),
        doubt_label=DOUBT_LABEL,
        rows=interesting(report),
        layer_line=layer_line,
        shown=shown,
        status=status,
    )
