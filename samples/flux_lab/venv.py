"""Find (or create) the virtualenv that holds a real Flux.

Flux needs Python >= 3.12 while bundler supports 3.11, so Flux lives in its
own venv. ``BUNDLER_FLUX_VENV`` names it; otherwise the checkout's
``.cache/flux-venv``. When it is missing, ``scripts/setup.sh`` (the one place
that knows how to build it) is run to create it, so the lab never installs
Flux a second, different way.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

ENV_VAR = "BUNDLER_FLUX_VENV"
REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_VENV = REPO_ROOT / ".cache" / "flux-venv"
SETUP_SCRIPT = REPO_ROOT / "scripts" / "setup.sh"


class FluxUnavailable(RuntimeError):
    """No usable Flux venv, and it could not be created here."""


@dataclass(frozen=True)
class FluxInstall:
    """Paths of one Flux installation."""

    venv: Path

    @property
    def bin_dir(self) -> Path:
        return self.venv / "bin"

    @property
    def flux(self) -> Path:
        return self.bin_dir / "flux"

    @property
    def python(self) -> Path:
        return self.bin_dir / "python"

    def usable(self) -> bool:
        return os.access(self.flux, os.X_OK) and os.access(self.python, os.X_OK)


def configured_venv(environ: dict[str, str] | None = None) -> Path:
    """The venv path the environment asks for (it may not exist yet)."""
    env = os.environ if environ is None else environ
    return Path(env.get(ENV_VAR) or DEFAULT_VENV).expanduser()


def find_flux(*, create: bool = False, environ: dict[str, str] | None = None) -> FluxInstall:
    """The Flux installation to use; with ``create``, build it via scripts/setup.sh first.

    Raises :class:`FluxUnavailable` with the reason when there is none.
    """
    install = FluxInstall(configured_venv(environ))
    if install.usable():
        return install
    if create and SETUP_SCRIPT.exists():
        env = dict(os.environ if environ is None else environ)
        env[ENV_VAR] = str(install.venv)
        done = subprocess.run(
            [str(SETUP_SCRIPT)], env=env, capture_output=True, text=True, check=False
        )
        if install.usable():
            return install
        reason = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise FluxUnavailable(f"scripts/setup.sh could not create {install.venv}: {reason[0]}")
    raise FluxUnavailable(f"no Flux venv at {install.venv} (set {ENV_VAR} or run scripts/setup.sh)")
