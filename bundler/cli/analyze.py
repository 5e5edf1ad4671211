"""``bundler analyze BUNDLE``: the support engineer's command, strictly offline."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..analyze.engine import analyze
from ..analyze.opening import open_bundle, profile_for
from ..analyze.rederive import rederive
from ..analyze.render import FORMATS, render
from ..exit_codes import ExitCode
from .options import OpenSecrets, open_options

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
    "markdown for a ticket.",
)
@open_options
def command(
    bundle: Path, worker: str | None, job: str | None, fmt: str, secrets: OpenSecrets
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
    3 inconclusive (nothing failed, evidence missing) · 70 internal error.
    """
    with open_bundle(bundle, secrets) as opened:
        stored = opened.evidence()
        profile = profile_for(opened.manifest, stored)
        used = rederive(stored, profile)
        report = analyze(used.evidence, profile=profile, worker=worker, job=job)
        report.fleet_findings.insert(0, used.note)
        report.bundle.integrity = opened.integrity()
    render(report, fmt, sys.stdout)  # type: ignore[arg-type]
    click.get_current_context().exit(int(VERDICT_EXIT[report.verdict.value]))
