"""Run the real ``bundler`` command line from the samples (demo, regeneration).

Samples drive bundler exactly as a user does, through ``python -m bundler`` in
a child process, so what the demo shows and what the committed samples record
is the command line's own behaviour and output, not a library shortcut.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
INTERRUPT_GRACE_S = 30.0
"""How long doctor gets to seal what it collected after Ctrl-C before it is killed."""


def argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "bundler", *args]


def _env(extra: Mapping[str, str] | None) -> dict[str, str]:
    return {**os.environ, **(extra or {})}


def run_captured(
    *args: str, env: Mapping[str, str] | None = None, timeout: float = 900
) -> subprocess.CompletedProcess[str]:
    """Run ``bundler ARGS`` and capture its output (for results the caller reads)."""
    return subprocess.run(
        argv(*args), cwd=REPO_ROOT, env=_env(env), capture_output=True, text=True,
        timeout=timeout, check=False,
    )  # fmt: skip


def run_shown(*args: str, env: Mapping[str, str] | None = None) -> int:
    """Run ``bundler ARGS`` with its output going straight to the user's terminal.

    On Ctrl-C (or SIGTERM turned into KeyboardInterrupt by the caller) the
    child is asked to stop with SIGINT, given time to seal what it has, and
    killed only after that; it never outlives the caller.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    process = subprocess.Popen(argv(*args), cwd=REPO_ROOT, env=_env(env))
    try:
        return process.wait()
    except BaseException:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=INTERRUPT_GRACE_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        raise


def analysis_json(
    bundle: Path, open_args: list[str], env: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """``bundler analyze BUNDLE --format json`` as data; RuntimeError when it cannot run."""
    done = run_captured("analyze", str(bundle), "--format", "json", *open_args, env=env)
    if done.returncode not in (0, 1, 3) or not done.stdout.strip():
        tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
        raise RuntimeError(
            f"bundler analyze {bundle.name} failed (exit {done.returncode}): {tail[0]}"
        )
    report: dict[str, Any] = json.loads(done.stdout)
    return report
