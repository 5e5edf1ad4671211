"""Stop a child process for sure: SIGTERM, a grace period, then SIGKILL.

Every server the samples, the demo and the tests start (sshd, the LyftData
simulator) is stopped this way, so none outlives its owner even when it
ignores SIGTERM.
"""

from __future__ import annotations

import subprocess
from typing import Any

GRACE_S = 5.0


def stop_child(process: subprocess.Popen[Any], grace_s: float = GRACE_S) -> None:
    """Terminate ``process`` if it runs; kill it if it has not exited after ``grace_s``."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=grace_s)
