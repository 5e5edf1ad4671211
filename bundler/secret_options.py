"""What a user said about a bundle's secrets: how to unlock one, how to seal a new one.

Plain data, filled in by the CLI's option groups (``@open_options`` and
``@seal_options``) and by any other caller of the library. They live here,
below the CLI, so the archive and the commands built on it take the same
request without importing the CLI.
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
