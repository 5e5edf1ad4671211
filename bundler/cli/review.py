"""``bundler review BUNDLE_OR_DIR``: prove nothing secret is left (what an upload pipeline runs).

Exit codes: 0 clean · 1 residual findings (or a report that does not match
the members) · 2 unreadable input, a bundle verify would not accept, or a
usage error. Exit 0 means every byte given was accounted for and scanned.
"""

from __future__ import annotations

from pathlib import Path

import click

from ..exit_codes import ExitCode
from ..plurals import counted
from ..printable import printable, printable_json
from ..redaction.mapfile import read_map
from ..redaction.reviewing import review_path
from ..sizes import human_size
from .options import OpenSecrets, click_prompt, open_options
from .secrets_input import read_map_password


@click.command(
    "review",
    epilog="\b\nExit codes: 0 clean · 1 residual findings, or a redaction report that does\n"
    "not match the members · 2 usage error, unreadable / undecryptable input, or a\n"
    "bundle `bundler verify` would not accept (unreadable: rejected) · 70 internal\n"
    "error · 130 interrupted.",
)
@click.argument("target", type=click.Path(path_type=Path, exists=True))
@click.option("--json", "as_json", is_flag=True, help="Print the ReviewResult as JSON on stdout.")
@click.option(
    "--map",
    "map_path",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="The reversible map from `redact --map-out`: also search every original value.",
)
@click.option(
    "--map-password-env", metavar="VAR", help="Password of --map from this environment variable."
)
@click.option(
    "--map-password-file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Password of --map from this file (first line).",
)
@open_options
@click.pass_context
def command(
    ctx: click.Context,
    target: Path,
    as_json: bool,
    map_path: Path | None,
    map_password_env: str | None,
    map_password_file: Path | None,
    secrets: OpenSecrets,
) -> None:
    """Scan every member, member name, the manifest and the report for residual secrets.

    \b
    bundler review support.zip --password-env BUNDLE_PW
    bundler review ./redacted-dir --json
    """
    originals: list[bytes] = []
    if map_path is not None:
        mapping = read_map(map_path, read_map_password(map_password_env, map_password_file))
        originals = [value for _kind, value in mapping.values()]
    result = review_path(target, secrets, originals, prompt=click_prompt)
    if as_json:
        click.echo(printable_json(result))
    else:
        # Member names and the report's entries are bundle text: shown escaped, so an ESC
        # or carriage return in a name cannot redraw the status line below as "clean".
        for finding in result.findings:
            where = f"{finding.member}:{finding.line}" if finding.line else finding.member
            shown = f"{where}\t{finding.kind}\t{finding.check}\t{finding.preview}"
            click.echo("\t".join(printable(part) for part in shown.split("\t")))
        state = "clean" if result.clean else counted(len(result.findings), "residual finding")
        if result.report_consistent is False:
            for line in result.report_mismatches:
                click.echo(f"{printable(line)}\treport-mismatch")
            first = printable(result.report_mismatches[0]) if result.report_mismatches else "?"
            more = len(result.report_mismatches) - 1
            state += f"; the redaction report does not match the members ({first}"
            state += f", and {more} more)" if more > 0 else ")"
        size = human_size(result.bytes_checked)
        click.echo(
            f"bundler: review: {counted(result.members_checked, 'member')}, {size}: {state}",
            err=True,
        )
    ctx.exit(int(ExitCode.OK if result.clean else ExitCode.PROBLEM))
