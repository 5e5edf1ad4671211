"""Report renderers: text (rich), JSON (the documented schema), Markdown (for tickets).

The report itself (``schemas.AnalysisReport``) never imports rich; only this
package turns it into something to read. ``render()`` is what the CLI calls.
"""

from __future__ import annotations

import os
from typing import Literal, TextIO

from rich.console import Console

from schemas import AnalysisReport

from .markdown import render_markdown
from .text import render_text

Format = Literal["text", "json", "markdown"]
PIPE_WIDTH = 110
FORMATS: tuple[Format, ...] = ("text", "json", "markdown")


def render_json(report: AnalysisReport) -> str:
    """The report as JSON, valid against ``schemas/json/analysis-report.schema.json``."""
    return report.model_dump_json(by_alias=True, indent=2) + "\n"


def render(
    report: AnalysisReport,
    fmt: Format,
    stream: TextIO,
    *,
    color: bool | None = None,
    width: int | None = None,
) -> None:
    """Write ``report`` to ``stream`` in ``fmt``.

    ``color=None`` lets rich decide from the stream (a terminal gets colour, a
    pipe or file does not); ``width`` fixes the text width (tests use 100).
    """
    if fmt == "json":
        stream.write(render_json(report))
    elif fmt == "markdown":
        stream.write(render_markdown(report))
    else:
        if width is None and not _is_terminal(stream) and "COLUMNS" not in os.environ:
            width = PIPE_WIDTH  # a file or a pipe: do not squeeze tables into 80 columns
        console = Console(
            file=stream,
            width=width,
            force_terminal=color,
            no_color=color is False,
            highlight=False,
            soft_wrap=False,
        )
        render_text(report, console)


def _is_terminal(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


__all__ = ["FORMATS", "Format", "render", "render_json", "render_markdown", "render_text"]
