"""Where a report goes when ``--output FILE`` is given: published whole, in one rename."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

import click

from ..archive.atomic import AtomicOutput
from ..errors import OutputError

report_output_option = click.option(
    "--output",
    "-o",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE",
    help="Write the report to FILE (replaced whole, never half-written) instead of stdout.",
)
"""``--output FILE`` of the commands that print a report (analyze, diff)."""


def write_report(path: Path, text: str) -> None:
    """Publish ``text`` at ``path`` in one rename: the old report or the new one, never half.

    Text UTF-8 cannot hold (a lone surrogate) is written escaped (``\\ud800``),
    never raised: readers refuse such bundle text (``bundler/jsondoc.py``), and
    should one still get this far, the report is worth more than a traceback.
    """
    out = AtomicOutput(path, overwrite=True, mode=0o644)
    try:
        out.file.write(text.encode("utf-8", "backslashreplace"))
        out.publish()
    except OSError as exc:
        out.discard()
        raise OutputError(f"cannot write {path}: {exc.strerror}") from exc
    except BaseException:
        out.discard()
        raise


def report_stdout() -> TextIO:
    """``sys.stdout`` for a report: what its encoding cannot hold is escaped, never raised.

    A lone surrogate (which readers refuse, but the last writer must not crash
    on), or a report's ``…`` on a terminal whose locale is ASCII, becomes
    ``\\ud800`` / ``\\u2026`` rather than a ``UnicodeEncodeError`` half-way through.
    """
    stream = sys.stdout
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(errors="backslashreplace")
    return stream


@contextmanager
def reader_may_stop() -> Iterator[None]:
    """Around a report written to stdout: a reader that stops reading (``| head``, ``less``
    quit early) ends the writing, not the command, which still exits with its verdict.

    Click turned the broken pipe into exit 1, "a layer failed", for any verdict: a
    healthy fleet read as blocked by ``bundler analyze support.zip | head`` under
    ``set -o pipefail``. What is left unwritten goes to ``/dev/null``, so the
    interpreter's last flush does not fail again.
    """
    try:
        yield
        sys.stdout.flush()
    except BrokenPipeError:
        try:
            fileno = sys.stdout.fileno()
        except (OSError, ValueError):  # not a file (a test's captured output)
            return
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fileno)
        os.close(devnull)
