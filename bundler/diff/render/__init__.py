"""Diff renderers: one function per format, ``DiffReport -> str``.

The report is a pydantic model and every renderer only reads it, so a new
format (an HTML page) is one more entry in :data:`RENDERERS`; the command's
``--format`` choices come from this table.
"""

from __future__ import annotations

from collections.abc import Callable

from schemas import DiffReport

from ...printable import printable_json, printable_model
from .html import render_html
from .markdown import render_markdown
from .text import render_text


def render_json(report: DiffReport) -> str:
    """Valid against ``schemas/json/diff-report.schema.json``; terminal-safe escapes."""
    return printable_json(report) + "\n"


RENDERERS: dict[str, Callable[[DiffReport], str]] = {
    "text": render_text,
    "json": render_json,
    "markdown": render_markdown,
    "html": render_html,
}
FORMATS: tuple[str, ...] = tuple(RENDERERS)


def render(report: DiffReport, fmt: str) -> str:
    """``report`` in ``fmt``; every format but JSON shows bundle text through ``printable``."""
    return RENDERERS[fmt](report if fmt == "json" else printable_model(report))


__all__ = [
    "FORMATS",
    "RENDERERS",
    "render",
    "render_html",
    "render_json",
    "render_markdown",
    "render_text",
]
