"""``bundler inspect BUNDLE``: what a bundle holds, who made it, and what failed."""

from __future__ import annotations

from pathlib import Path

import click

from ..archive.opening import open_bundle
from ..archive.render import InspectReport, make_console, render_inspect
from ..exit_codes import ExitCode
from ..printable import printable_json
from ._archive_help import READ_EPILOG, sealed_bundle
from .options import OpenSecrets, click_prompt, open_options


@click.command("inspect", epilog=READ_EPILOG)
@click.argument("bundle", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the manifest summary as JSON.")
@open_options
@click.pass_context
def command(ctx: click.Context, bundle: Path, as_json: bool, secrets: OpenSecrets) -> None:
    """Show a bundle's manifest: format, origin, encryption, redaction, collectors, members.

    Contents are not read (use `bundler verify` for checksums); problems
    visible from the zip and manifest alone are shown first, with exit code 1.
    """
    with open_bundle(
        sealed_bundle(bundle, "inspect"), secrets, lenient=True, prompt=click_prompt
    ) as reader:
        report = InspectReport.of(reader)
    if as_json:
        click.echo(printable_json(report))
    else:
        render_inspect(report, make_console())
    if report.integrity.problems:
        ctx.exit(int(ExitCode.PROBLEM))
