"""Help text shared by the archive commands (exit codes and safety limits, said once)."""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError


def sealed_bundle(path: Path, command: str) -> Path:
    """``path`` when it can be a sealed bundle; a folder gets the same one-line error as
    every other unreadable input (click's own message would not say what to do)."""
    if path.is_dir():
        raise InputError(
            f"{path} is a folder; `bundler {command}` reads a sealed bundle (a .zip file)",
            hint="`bundler analyze DIR` and `bundler review DIR` read an extracted bundle",
        )
    return path


LIMITS = """\b
Safety limits (environment variables; sizes accept KiB, MiB, GiB):
  BUNDLER_MAX_MEMBERS=100000       BUNDLER_MAX_TOTAL_BYTES=20GiB
  BUNDLER_MAX_MEMBER_BYTES=8GiB    BUNDLER_MAX_RATIO=200
  BUNDLER_MAX_MANIFEST_BYTES=64MiB BUNDLER_MAX_JSON_BYTES=256MiB (one JSON document)
"""

READ_EPILOG = (
    """\b
Exit codes: 0 ok · 1 a problem was found in the bundle · 2 usage error, or
unreadable / hostile / undecryptable input · 70 internal error · 130 interrupted.

"""
    + LIMITS
)

EXTRACT_EPILOG = (
    """\b
Exit codes: 0 extracted · 2 usage error, unreadable / hostile / undecryptable
input, a member that fails verification, or a file in the way (nothing
extracted is left behind) · 70 internal error · 130 interrupted.

"""
    + LIMITS
)
"""extract has no exit 1: a problem found while extracting aborts the whole extraction."""
