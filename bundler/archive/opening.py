"""One call for every command that reads a bundle: options in, open reader out.

``analyze``, ``review``, ``inspect``, ``verify`` and ``extract`` all take the
same ``@open_options``; they all open through :func:`open_bundle`, so a
password source, an identity and the safety limits behave the same everywhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..secret_options import OpenSecrets
from .limits import ReaderLimits
from .passwords import Prompt, resolve_open, terminal_prompt
from .reader import BundleReader


def open_bundle(
    path: Path,
    secrets: OpenSecrets | None = None,
    *,
    lenient: bool = False,
    limits: ReaderLimits | None = None,
    environ: Mapping[str, str] | None = None,
    interactive: bool | None = None,
    prompt: Prompt = terminal_prompt,
) -> BundleReader:
    """Open ``path`` with the password or identity the user gave (or a prompt).

    ``limits`` default to :meth:`ReaderLimits.from_env` (``BUNDLER_MAX_*``).
    Close the reader when done (it is a context manager).
    """
    keys = resolve_open(
        secrets or OpenSecrets(), environ=environ, interactive=interactive, prompt=prompt
    )
    return BundleReader.open(
        Path(path), keys, lenient=lenient, limits=limits or ReaderLimits.from_env(environ)
    )
