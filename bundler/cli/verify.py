"""``bundler verify BUNDLE``: every checksum, the manifest and every schema, all problems listed."""

from __future__ import annotations

from pathlib import Path

import click

from ..archive.integrity.verify import verify_bundle
from ..archive.opening import open_bundle
from ..archive.render import make_console, render_verify
from ..exit_codes import ExitCode
from ..printable import printable_json
from ._archive_help import READ_EPILOG, sealed_bundle
from .options import OpenSecrets, click_prompt, open_options


@click.command("verify", epilog=READ_EPILOG)
@click.argument("bundle", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the verification report as JSON.")
@open_options
@click.pass_context
def command(ctx: click.Context, bundle: Path, as_json: bool, secrets: OpenSecrets) -> None:
    """Check every member's checksum and AES authentication, the manifest, and the
    schemas of canonical evidence and of the redaction report.

    Exit 0 when everything verifies, 1 when a problem was found (all are listed),
    2 when the bundle cannot be opened at all.
    """
    with open_bundle(
        sealed_bundle(bundle, "verify"), secrets, lenient=True, prompt=click_prompt
    ) as reader:
        report = verify_bundle(reader)
    if as_json:
        click.echo(printable_json(report, by_alias=False))
    else:
        render_verify(report, make_console())
    if not report.ok:
        ctx.exit(int(ExitCode.PROBLEM))
