"""A cut-off says which limit fired: the run's --deadline or the collector's --timeout."""

from __future__ import annotations

import pytest

from bundler.collect.budget import Budget
from bundler.collect.errors import CollectorTimeout


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_deadline_fires_before_the_timeout_and_says_so() -> None:
    clock = Clock()
    budget = Budget.start(30, run_deadline=clock() + 5, clock=clock, deadline_s=5)
    clock.now += 6
    with pytest.raises(CollectorTimeout) as raised:
        budget.check("reading the response")
    assert "run deadline (--deadline 5s) was reached" in str(raised.value)
    assert "30s" not in str(raised.value)


def test_the_timeout_fires_before_the_deadline_and_says_so() -> None:
    clock = Clock()
    budget = Budget.start(3, run_deadline=clock() + 600, clock=clock, deadline_s=600)
    clock.now += 4
    with pytest.raises(CollectorTimeout) as raised:
        budget.check()
    assert "after 3s (--timeout, per collector)" in str(raised.value)
    assert "deadline" not in str(raised.value)
