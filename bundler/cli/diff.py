"""``bundler diff BEFORE AFTER``: did the recovery work? Offline, like ``analyze``."""

from __future__ import annotations

from pathlib import Path

import click

from ..diff import compare, open_side
from ..diff.render import FORMATS, render
from ..errors import UsageError
from ..exit_codes import ExitCode
from .options import OpenSecrets, open_options
from .output import reader_may_stop, report_output_option, report_stdout, write_report

VERDICT_EXIT = {
    "recovered": ExitCode.OK,
    "still_failing": ExitCode.PROBLEM,
    "regressed": ExitCode.PROBLEM,
    "inconclusive": ExitCode.INCONCLUSIVE,
}


@click.command("diff")
@click.argument("before", type=click.Path(path_type=Path))
@click.argument("after", type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="text for a terminal, json for tools (schemas/json/diff-report.schema.json), "
    "markdown for a ticket, html for a self-contained page.",
)
@report_output_option
@open_options
def command(before: Path, after: Path, fmt: str, output: Path | None, secrets: OpenSecrets) -> None:
    """Compare BEFORE (the incident's bundle) with AFTER (one taken after the repair).

    Both are analyzed offline, as `bundler analyze` does. For each target and
    ladder layer it says what was fixed, what still fails, what newly fails
    and what became unknown; which findings were resolved, are new or
    persist; what changed about workers (status, version, labels, capacity),
    deployments and collectors; and evaluates the Recovery acceptance
    checklist on AFTER, including a canary (and receipt) newer than BEFORE.
    The same opening options unlock both bundles.

    \b
    Exit codes: 0 recovered (every applicable acceptance check holds on AFTER,
    nothing regressed) · 1 something still fails or regressed ·
    2 a bundle cannot be opened, the two come from different products or are
    one collection given twice, or usage error · 3 inconclusive (nothing fails,
    evidence missing) · 70 internal error · 130 interrupted.
    """
    for bundle in (before, after):
        if output is not None and output.exists() and output.resolve() == bundle.resolve():
            raise UsageError(f"--output {output} is one of the bundles")
    with open_side(before, secrets) as old, open_side(after, secrets) as new:
        report = compare(old, new)
    if output is None:
        with reader_may_stop():
            report_stdout().write(render(report, fmt))
    else:
        write_report(output, render(report, fmt))
    for warning in report.warnings:
        click.echo(f"bundler: warning: {warning}", err=True)
    click.get_current_context().exit(int(VERDICT_EXIT[report.verdict]))
