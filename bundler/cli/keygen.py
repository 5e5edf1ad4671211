"""``bundler keygen --out NAME``: an X25519 identity for recipient-sealed bundles."""

from __future__ import annotations

from pathlib import Path

import click

from ..archive.keys import keygen


@click.command("keygen")
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="Identity file to create (mode 0600); the public key goes to NAME.pub.",
)
@click.option(
    "--comment", default=None, help="Free text stored with the key, e.g. 'support@vendor'."
)
def command(out: Path, comment: str | None) -> None:
    """Create an identity NAME and its public key NAME.pub (never overwrites).

    \b
    Give NAME.pub to whoever writes bundles for you:
      bundler doctor ... --recipient NAME.pub
    and open what they send with:
      bundler extract support.zip --to DIR --identity NAME

    \b
    Exit codes: 0 created · 2 a file exists or cannot be written · 70 internal
    error · 130 interrupted.
    """
    identity, identity_path, public_path = keygen(out, comment)
    click.echo(f"identity:    {identity_path}  (secret: keep it, mode 0600)")
    click.echo(f"public key:  {public_path}  (share it)")
    click.echo(f"fingerprint: {identity.public.fingerprint}")
