"""Ctrl-C in tests, whatever the suite inherited.

A shell starts a background job (``cmd &``, a CI runner's step) with SIGINT
*ignored*, and Python then keeps it ignored: no KeyboardInterrupt, in the test
process or in any child it starts. Tests that interrupt something set the
default disposition first, in themselves (:func:`ctrl_c_in`) or in the child
(``preexec_fn=default_sigint``).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager


def default_sigint() -> None:
    """``Popen(preexec_fn=...)``: the child gets SIGINT's default (Python: KeyboardInterrupt)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@contextmanager
def ctrl_c_in(
    seconds: float, *, once: Callable[[], bool] = lambda: True, wait_s: float = 60.0
) -> Iterator[None]:
    """Send this process a real SIGINT, raised as KeyboardInterrupt.

    It comes ``seconds`` after ``once()`` first holds (checked every 20 ms, for at
    most ``wait_s``), so a loaded machine cannot make it arrive before the
    moment the test means to interrupt.
    """
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    cancelled = threading.Event()

    def interrupt() -> None:
        deadline = time.monotonic() + wait_s
        while not once() and time.monotonic() < deadline:
            if cancelled.wait(0.02):
                return
        if not cancelled.wait(seconds):
            os.kill(os.getpid(), signal.SIGINT)

    thread = threading.Thread(target=interrupt, name="ctrl-c", daemon=True)
    thread.start()
    try:
        yield
    finally:
        cancelled.set()
        thread.join()
        signal.signal(signal.SIGINT, previous)
