"""One lab process: started in its own process group, logged to a file, always stopped.

Flux logs to stdout only, so stdout and stderr go to a per-process log file
(what an operator's service manager would capture). Each process gets its own
session so a signal reaches the Flux process *and* the runner children it
spawned, and so stopping the lab never touches anything it did not start.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Self, TypeVar

from ..stopping import die_with_parent

T = TypeVar("T")

STOP_GRACE_S = 5.0
"""How long a process gets to drain after SIGTERM before it is killed."""


class StartStop:
    """A lab part used as a context manager: a start that fails part-way stops what it started.

    Subclasses give ``start`` and ``stop``; ``stop`` must be safe on a part-started object.
    """

    def start(self) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


class ManagedProcess:
    """A child process the lab owns, from start to (guaranteed) stop."""

    def __init__(
        self,
        name: str,
        argv: Sequence[str],
        *,
        cwd: Path,
        env: Mapping[str, str],
        log_path: Path,
    ) -> None:
        self.name = name
        self.argv = list(argv)
        self.cwd = cwd
        self.env = dict(env)
        self.log_path = log_path
        self._popen: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        if self._popen is None:
            raise RuntimeError(f"{self.name} was never started")
        return self._popen.pid

    def start(self) -> None:
        """Start (or restart) the process; its output is appended to the log file."""
        if self.alive():
            raise RuntimeError(f"{self.name} is already running")
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("ab") as log:
            self._popen = subprocess.Popen(
                self.argv,
                cwd=self.cwd,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=die_with_parent(),
            )

    def alive(self) -> bool:
        return self._popen is not None and self._popen.poll() is None

    def returncode(self) -> int | None:
        return None if self._popen is None else self._popen.poll()

    def signal(self, sig: signal.Signals) -> None:
        """Send ``sig`` to the whole process group (the Flux process and its runners)."""
        if self._popen is None:
            raise RuntimeError(f"{self.name} was never started")
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self._popen.pid, sig)

    def stop(self, grace_s: float = STOP_GRACE_S) -> None:
        """SIGTERM the group (waking it first if stopped), then SIGKILL what is left."""
        if self._popen is None:
            return
        if self._popen.poll() is None:
            self.signal(signal.SIGTERM)
            self.signal(signal.SIGCONT)
            try:
                self._popen.wait(timeout=grace_s)
            except subprocess.TimeoutExpired:
                self.signal(signal.SIGKILL)
                self._popen.wait(timeout=grace_s)
        # Runner children may outlive a killed leader: sweep the group too.
        self.signal(signal.SIGKILL)

    def log_tail(self, lines: int = 20) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])


def wait_until(
    condition: Callable[[], T],
    *,
    timeout_s: float,
    interval_s: float = 0.2,
    what: str = "condition",
) -> T:
    """Poll ``condition()`` until it returns something truthy; return that value.

    Raises TimeoutError naming ``what``. Lab readiness is always polled,
    never slept for: a slow machine waits longer, a fast one not at all.
    """
    deadline = time.monotonic() + timeout_s
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise TimeoutError(f"timed out after {timeout_s:.0f}s waiting for {what}")
        time.sleep(interval_s)
