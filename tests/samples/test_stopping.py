"""A lab's server dies with the process that started it, even when that one is SIGKILLed.

The owner here is a real Python process that starts a real child with
:func:`samples.stopping.die_with_parent` and is then killed with SIGKILL, so no
teardown of its runs: what a test run stopped by a timeout leaves behind.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from samples.stopping import alive, stop_child

ROOT = Path(__file__).resolve().parents[2]
OWNER = textwrap.dedent(
    """
    import subprocess, sys, time
    from samples.stopping import die_with_parent
    armed = sys.argv[1] == "armed"
    child = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(120)"],
        preexec_fn=die_with_parent() if armed else None,
    )
    print(child.pid, flush=True)
    time.sleep(120)
    """
)


def _orphan_after_owner_killed(mode: str) -> tuple[int, bool]:
    """Start an owner (and its child), SIGKILL the owner; is the child alive 5 s later?"""
    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER, mode], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert owner.stdout is not None
        child = int(owner.stdout.readline())
        assert alive(child)
        owner.send_signal(signal.SIGKILL)
        owner.wait(timeout=10)
        deadline = time.monotonic() + 5
        while alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        return child, alive(child)
    finally:
        stop_child(owner)


@pytest.mark.skipif(sys.platform != "linux", reason="PR_SET_PDEATHSIG is Linux's")
def test_a_child_started_with_die_with_parent_ends_when_its_owner_is_killed() -> None:
    child, alive = _orphan_after_owner_killed("armed")
    assert not alive, f"child {child} outlived its SIGKILLed owner"


@pytest.mark.skipif(sys.platform != "linux", reason="PR_SET_PDEATHSIG is Linux's")
def test_without_it_the_child_outlives_its_owner() -> None:
    """The control: the first test proves something only if a plain child does survive."""
    child, alive = _orphan_after_owner_killed("plain")
    try:
        assert alive
    finally:
        if alive:
            os.kill(child, signal.SIGKILL)
