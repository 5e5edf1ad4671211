"""How a bundle is sealed or opened, as plain values: what the library takes from its callers.

The CLI builds these from its flags (:mod:`bundler.cli.options`); the library
(:mod:`bundler.archive.passwords`, :mod:`bundler.doctor`) only ever sees the
values, so nothing below the CLI imports it or click. Passwords never come
from a plain argument: only from an environment variable, a file, or a prompt.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class OpenSecrets:
    """How to unlock a bundle: exactly one source, or a prompt."""

    password_env: str | None = None
    password_file: Path | None = None
    identity: Path | None = None


@dataclass(frozen=True)
class SealOptions:
    """How to seal a new bundle: a password source or recipients."""

    password_env: str | None = None
    password_file: Path | None = None
    generate_password: bool = False
    recipients: tuple[Path, ...] = field(default_factory=tuple)
