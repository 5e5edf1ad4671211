"""Where a report goes when ``--output FILE`` is given: published whole, in one rename."""

from __future__ import annotations

from pathlib import Path

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
    """Publish ``text`` at ``path`` in one rename: the old report or the new one, never half."""
    out = AtomicOutput(path, overwrite=True, mode=0o644)
    try:
        out.file.write(text.encode("utf-8"))
        out.publish()
    except OSError as exc:
        out.discard()
        raise OutputError(f"cannot write {path}: {exc.strerror}") from exc
    except BaseException:
        out.discard()
        raise
