"""``bundler analyze BUNDLE``: the support engineer's command, strictly offline."""

from __future__ import annotations

import io
from pathlib import Path

import click

from ..analyze.offline import analyze_opened
from ..analyze.opening import open_for_analysis
from ..analyze.render import FORMATS, render
from ..errors import UsageError
from ..exit_codes import ExitCode
from .options import OpenSecrets, open_options
from .output import reader_may_stop, report_output_option, report_stdout, write_report

VERDICT_EXIT = {
    "healthy": ExitCode.OK,
    "degraded": ExitCode.OK,
    "blocked": ExitCode.PROBLEM,
    "inconclusive": ExitCode.INCONCLUSIVE,
}


@click.command("analyze")
@click.argument("bundle", type=click.Path(path_type=Path))
@click.option("--worker", metavar="NAME", help="Analyze this worker only (name or id).")
@click.option("--job", metavar="NAME", help="Analyze this job only (exact name or execution id).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="text for a terminal, json for tools (schemas/json/analysis-report.schema.json), "
    "markdown for a ticket, html for a self-contained page with the fleet timeline.",
)
@report_output_option
@open_options
def command(
    bundle: Path,
    worker: str | None,
    job: str | None,
    fmt: str,
    output: Path | None,
    secrets: OpenSecrets,
) -> None:
    """Replay the serviceability ladder on BUNDLE, offline.

    BUNDLE is a bundle written by `bundler doctor` or a directory it was
    extracted to. For each target (worker and job) the ladder is checked in
    order — server, heartbeat, authorization, placement, deployment,
    requirements, capacity, outcome — and stops at the first failed layer.
    Every finding cites the bundle member and JSON pointer or line range it
    rests on, with the recovery path and acceptance checks. Nothing is
    contacted over the network.

    \b
    Exit codes: 0 healthy or degraded · 1 a layer failed (blocked) ·
    2 unreadable bundle or usage error (e.g. an unknown --worker/--job) ·
    3 inconclusive (nothing failed, evidence missing or over a reader's
    limit, e.g. a JSON member over BUNDLER_MAX_JSON_BYTES=256MiB) · 70 internal error ·
    130 interrupted.
    """
    if output is not None and output.exists() and output.resolve() == bundle.resolve():
        raise UsageError(f"--output {output} is the bundle itself")
    with open_for_analysis(bundle, secrets) as opened:
        done = analyze_opened(opened, worker=worker, job=job).analysis
        report = done.report
        extras = None
        if fmt == "html":
            from ..analyze.render.html import bundle_extras

            extras = bundle_extras(opened.source, opened.manifest)
    if output is None:
        with reader_may_stop():
            render(report, fmt, report_stdout(), timeline=done.timeline, extras=extras)  # type: ignore[arg-type]
    else:
        text = io.StringIO()
        render(report, fmt, text, color=False, timeline=done.timeline, extras=extras)  # type: ignore[arg-type]
        write_report(output, text.getvalue())
    click.get_current_context().exit(int(VERDICT_EXIT[report.verdict.value]))
