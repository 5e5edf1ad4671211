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
