"""Where the reversible map's password comes from (never a plain argument)."""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path

import click

from ..errors import UsageError
from .options import SealOptions

MIN_MAP_PASSWORD = 12


def _from(env: str | None, file: Path | None) -> str | None:
    if env:
        value = os.environ.get(env)
        if not value:
            raise UsageError(f"environment variable {env} is empty or not set")
        return value
    if file:
        try:
            lines = file.read_text().splitlines()
        except OSError as exc:
            raise UsageError(f"cannot read password file {file}: {exc.strerror}") from None
        if not lines or not lines[0]:
            raise UsageError(f"password file {file} is empty")
        return lines[0]
    return None


def map_password(
    map_out: Path | None, env: str | None, file: Path | None, seal: SealOptions | None = None
) -> str:
    """--map-password-env/-file, else the bundle's password source, else generated (shown once)."""
    value = _from(env, file) or (_from(seal.password_env, seal.password_file) if seal else None)
    if value is None:
        value = secrets.token_urlsafe(24)
        click.echo(f"bundler: map password (shown once, stored nowhere): {value}", err=True)
    if len(value) < MIN_MAP_PASSWORD:
        raise UsageError(f"the map password is too short (at least {MIN_MAP_PASSWORD} characters)")
    return value


def read_map_password(env: str | None, file: Path | None) -> str:
    value = _from(env, file)
    if value is None:
        if not sys.stdin.isatty():
            raise UsageError(
                "no password for --map",
                hint="use --map-password-env VAR or --map-password-file FILE",
            )
        value = click.prompt("Map password", hide_input=True)
    return value
