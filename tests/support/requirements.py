"""Skip a test when the machine lacks a real part it needs, but never in CI.

Locally, a developer without sshd or Flux still gets a useful run. Under
``BUNDLER_REQUIRE_ALL=1`` (set by ``.ci/run``) a missing part is a failure,
so CI can never turn green by skipping the tests that matter.
"""

from __future__ import annotations

import os
import shutil

import pytest

REQUIRE_ALL = os.environ.get("BUNDLER_REQUIRE_ALL", "") == "1"


def need(condition: bool, reason: str) -> None:
    """Skip (locally) or fail (in CI) unless ``condition`` holds."""
    if condition:
        return
    if REQUIRE_ALL:
        pytest.fail(f"required test dependency missing: {reason}")
    pytest.skip(reason)


def need_executable(name: str, *extra_dirs: str) -> str:
    """Path of executable ``name`` (searching PATH and ``extra_dirs``), or skip/fail."""
    path = shutil.which(name) or next(
        (os.path.join(d, name) for d in extra_dirs if os.access(os.path.join(d, name), os.X_OK)),
        None,
    )
    need(path is not None, f"{name} is not installed")
    assert path is not None
    return path
