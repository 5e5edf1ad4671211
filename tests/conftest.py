"""Shared pytest configuration. Real-part fixtures live in ``tests/support``."""

from __future__ import annotations

import pytest

LONG_RUNNING = ("slow", "flux")
"""Marks of tests that run real Flux fleets or long end-to-end stories (tens of seconds each)."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Long-running tests first, each file's order kept otherwise.

    ``scripts/test.sh`` runs pytest-xdist with ``--dist loadfile``: each process takes the
    next file in collection order. Files of real Flux fleets and end-to-end stories take
    minutes each; collected where the alphabet puts them, one could start last and leave
    one process running it alone at the end. Started first, the short files fill in behind
    them. The sort is stable, so tests keep their order within each group.
    """
    items.sort(key=lambda item: not any(item.get_closest_marker(m) for m in LONG_RUNNING))


def pytest_make_parametrize_id(config: pytest.Config, val: object, argname: str) -> str | None:
    """A ``bytes`` parameter is named by its length, never its content.

    pytest names a bytes value by its escaped content, and some are made at collection
    time with the clock in them (``gzip.compress`` writes the current second into its
    header). pytest-xdist requires every process to collect the same names: a run whose
    two processes collected on either side of a second failed before running a test.
    """
    if isinstance(val, bytes | bytearray):
        return f"{argname}-{len(val)}B"
    return None
