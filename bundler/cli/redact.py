"""``bundler redact SRC --out DST``: redact a file or a tree into a directory or a bundle.

Exit codes: 0 done · 2 usage error or unreadable input.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from ..archive.uncompressed import uncompressed_note
from ..redaction.request import RedactRequest, prepare, run, summary_line
from .options import SealOptions, redaction_options, seal_options


@click.command(
    "redact",
    epilog="\b\nExit codes: 0 redacted (the report lists what, where) · 2 usage error, a bad\n"
    "rule file, unreadable input, or an output that exists or cannot be written ·\n"
    "70 internal error · 130 interrupted (nothing is left behind).",
)
@click.argument("src", type=click.Path(path_type=Path, exists=True, file_okay=True, dir_okay=True))
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(path_type=Path),
    help="Output directory (same relative paths), or a path ending in .zip for a bundle.",
)
@click.option(
    "--report",
    "report_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Also write the redaction report here (it is always inside the output).",
)
@click.option(
    "--keep-binary",
    is_flag=True,
    help="Keep binary files (unredacted) instead of leaving them out; `review` refuses them.",
)
@click.option(
    "--map-out",
    "map_out",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write the reversible map (token -> original), encrypted, to this file (keep it private).",
)
@click.option(
    "--map-password-env",
    metavar="VAR",
    help="Password for --map-out from this environment variable.",
)
@click.option(
    "--map-password-file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Password for --map-out from this file (first line).",
)
@click.option(
    "--workers", type=click.IntRange(1, 64), help="Processes for pass one (default: CPU count)."
)
@click.option("--force", is_flag=True, help="Replace an existing output bundle.")
@redaction_options
@seal_options
def command(seal: SealOptions, **options: Any) -> None:
    """Redact SRC (a file or a directory tree, e.g. an extracted bundle) into --out.

    \b
    bundler redact ./logs --out ./logs-redacted
    bundler redact ./logs --out support.zip --generate-password --obfuscate network
    bundler redact ./extracted --out ./clean --rules acme-rules.yaml --keyword acme-prod

    Symlinks are never followed (they are listed as skipped in the report);
    binary files are left out unless --keep-binary.
    """
    prepared = prepare(RedactRequest(seal=seal, **options), announce=_to_stderr)
    with _phases() as progress:
        outcome = run(prepared, progress)
    _to_stderr(summary_line(outcome))
    if note := uncompressed_note(outcome.uncompressed):
        _to_stderr(f"bundler: {note}")


def _to_stderr(text: str) -> None:
    click.echo(text, err=True)


@contextmanager
def _phases() -> Iterator[Callable[[str], None] | None]:
    """On a terminal, a transient status line with the phase; elsewhere, nothing.

    Pipes, CI logs and scripts keep their one summary line on stderr.
    """
    if not sys.stderr.isatty():  # before rich: importing it costs a pipe's run ~25 ms
        yield None
        return
    from rich.console import Console  # not at import time: --help stays fast

    console = Console(stderr=True)
    if not console.is_terminal:
        yield None
        return
    with console.status("bundler: starting", spinner="dots") as status:
        yield lambda text: status.update(f"bundler: {text}")
