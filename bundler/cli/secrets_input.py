"""Asking for the reversible map's password at a terminal (never a plain argument)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..errors import UsageError
from ..redaction.request import password_from


def read_map_password(env: str | None, file: Path | None) -> str:
    value = password_from(env, file)
    if value is None:
        if not sys.stdin.isatty():
            raise UsageError(
                "no password for --map",
                hint="use --map-password-env VAR or --map-password-file FILE",
            )
        value = click.prompt("Map password", hide_input=True)
    return value
