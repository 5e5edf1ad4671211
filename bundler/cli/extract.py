"""``bundler extract BUNDLE --to DIR``: verified, link-proof extraction."""

from __future__ import annotations

from pathlib import Path

import click

from ..archive.extract import extract_bundle
from ..archive.opening import open_bundle
from ..sizes import human_size
from ._archive_help import EXTRACT_EPILOG, sealed_bundle
from .options import OpenSecrets, click_prompt, open_options


@click.command("extract", epilog=EXTRACT_EPILOG)
@click.argument("bundle", type=click.Path(path_type=Path))
@click.option(
    "--to",
    "dest",
    required=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="Folder to extract into (created 0700 if absent; must be empty unless --force).",
)
@click.option("--force", is_flag=True, help="Extract into a non-empty folder, replacing files.")
@open_options
def command(bundle: Path, dest: Path, force: bool, secrets: OpenSecrets) -> None:
    """Extract a bundle safely: every member is verified against the manifest before it
    gets its name, nothing is written outside DIR, no symbolic link is followed,
    files are 0600 and folders 0700. On any error nothing extracted is left behind.
    """
    with open_bundle(sealed_bundle(bundle, "extract"), secrets, prompt=click_prompt) as reader:
        result = extract_bundle(reader, dest, overwrite=force)
    click.echo(f"extracted {result.files} files ({human_size(result.bytes)}) into {result.folder}")
