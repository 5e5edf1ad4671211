"""Report renderers: text (rich), JSON (the documented schema), Markdown (tickets), HTML.

The report itself (``schemas.AnalysisReport``) never imports rich; only this
package turns it into something to read. ``render()`` is what the CLI calls.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Literal, TextIO

from rich.console import Console

from schemas import AnalysisReport

from ...printable import printable_json, printable_model
from .markdown import render_markdown
from .text import render_text

if TYPE_CHECKING:
    from ..api import Timeline
    from .html import BundleExtras

Format = Literal["text", "json", "markdown", "html"]
PIPE_WIDTH = 110
FORMATS: tuple[Format, ...] = ("text", "json", "markdown", "html")


def render_json(report: AnalysisReport) -> str:
    """The report as JSON, valid against ``schemas/json/analysis-report.schema.json``.

    Values exact; characters a terminal acts on are JSON escapes (:func:`printable_json`).
    """
    return printable_json(report) + "\n"


def render(
    report: AnalysisReport,
    fmt: Format,
    stream: TextIO,
    *,
    color: bool | None = None,
    width: int | None = None,
    timeline: Timeline | None = None,
    extras: BundleExtras | None = None,
) -> None:
    """Write ``report`` to ``stream`` in ``fmt``.

    ``color=None`` lets rich decide from the stream (a terminal gets colour, a
    pipe or file does not); ``width`` fixes the text width (tests use 100).
    ``timeline`` and ``extras`` (collectors, redaction) are drawn by HTML only.
    """
    if fmt == "html":
        from .html import render_html  # Jinja2 is imported only when HTML is asked for

        stream.write(render_html(report, timeline, extras))
    elif fmt == "json":
        stream.write(render_json(report))
    elif fmt == "markdown":
        stream.write(render_markdown(printable_model(report)))
    else:
        if width is None and not _is_terminal(stream) and "COLUMNS" not in os.environ:
            width = PIPE_WIDTH  # a file or a pipe: do not squeeze tables into 80 columns
        console = _ReportConsole(
            file=stream,
            width=width,
            force_terminal=color,
            no_color=color is False,
            highlight=False,
            soft_wrap=False,
            markup=False,  # bundle text such as a worker called "[/]" is text, never markup
            emoji=False,
        )
        render_text(printable_model(report), console)


class _ReportConsole(Console):
    """A console whose reader may stop reading: the broken pipe goes back to the caller.

    rich answers a broken pipe by exiting the process with status 1 ("a layer failed" to
    ``bundler analyze``) whatever the verdict; the CLI decides instead
    (``bundler.cli.output.reader_may_stop``).
    """

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError


def _is_terminal(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


__all__ = ["FORMATS", "Format", "render", "render_json", "render_markdown", "render_text"]
