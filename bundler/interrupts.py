"""SIGTERM is a request to stop, as Ctrl-C is.

``timeout``, systemd, ``docker stop`` and CI runners that cancel a job send
SIGTERM. Its default action ended bundler on the spot: no "interrupted" line,
exit 143, and whatever a command was writing left behind (``redact``'s hidden
staging folders, a half-sealed bundle's temporary file). Raised as
``KeyboardInterrupt`` in the main thread instead, it takes the paths Ctrl-C
takes: ``doctor`` seals what was collected, ``redact`` and ``extract`` leave
nothing, and the command exits 130.

:func:`terminated` tells a coordinator whose pool workers the same SIGTERM
ended (``timeout`` signals the whole process group) that the pool broke because
the run was stopped, not because a worker crashed.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

_state = {"terminated": False}


@contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM raises ``KeyboardInterrupt`` in the main thread.

    Only the main thread can own a signal handler; anywhere else this does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def terminated() -> bool:
    """Whether a SIGTERM arrived while :func:`terminate_as_interrupt` was in force."""
    return _state["terminated"]


def _interrupt(signum: int, frame: FrameType | None) -> None:
    _state["terminated"] = True
    raise KeyboardInterrupt
