"""A fleet's size must not multiply the work: one worker is looked up by name, not by a scan.

A hostile (or simply huge) bundle lists 100,000 workers. Rules, target
selection, trouble and the fleet overview look workers up by name for every
worker; a scan of the list per lookup is quadratic (10,000 workers took
minutes, 100,000 hours). Timed tests are not how this project measures speed
(``bench/``), so this counts how often each per-worker list is walked while a
fleet is analyzed: a constant number of times, whatever the fleet's size.
"""

from __future__ import annotations

from typing import Any

import pytest

from bundler.analyze.engine import analyze
from schemas.evidence import (
    AuthorizationEvidence,
    CapacityEvidence,
    WorkerAuthorization,
    WorkersEvidence,
)
from tests.support.evidence import healthy_fleet, lease, worker

PER_WORKER = (WorkersEvidence, CapacityEvidence, AuthorizationEvidence)


class _Walked(list[Any]):
    """A list that counts how often it is walked from the start."""

    walks = 0

    def __iter__(self) -> Any:
        self.walks += 1
        return super().__iter__()


def _walks_per_list(size: int) -> dict[str, int]:
    fleet = healthy_fleet()
    assert fleet.workers is not None
    assert fleet.capacity is not None
    assert fleet.authorization is not None
    names = [f"x{i}" for i in range(size)]
    fleet.workers.workers += [worker(name, labels={"zone": "b"}) for name in names]
    template = fleet.capacity.workers[-1]
    fleet.capacity.workers += [template.model_copy(update={"worker": name}) for name in names]
    fleet.authorization.workers += [
        WorkerAuthorization(worker=n, bootstrap_method="api_key", decision="allow", lease=lease())
        for n in names
    ]
    evidence = fleet.evidence()
    walked = {}
    for cls in PER_WORKER:
        doc = evidence.get(cls)
        assert doc is not None
        walked[cls.__name__] = doc.workers = _Walked(doc.workers)  # type: ignore[attr-defined]
    report = analyze(evidence)
    assert report.fleet is not None
    assert len(report.fleet.workers) == size + 2
    return {name: listed.walks for name, listed in walked.items()}


@pytest.mark.parametrize("size", [300])
def test_per_worker_lists_are_walked_a_constant_number_of_times(size: int) -> None:
    small, large = _walks_per_list(10), _walks_per_list(size)
    assert large == small, (small, large)
    assert max(large.values()) < 30, large
