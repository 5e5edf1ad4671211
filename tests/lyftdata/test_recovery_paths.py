"""The recovery paths a LyftData finding renders say what the guide says, in its order.

LyftData's *Worker Recovery and Serviceability* guide ("Common recovery paths", "Upgrade
or replace a worker", "Remove a worker safely", "Recovery acceptance") names the
commands, variables and steps of each path. Each test reads the text the engine
attaches to a finding (``recovery_for`` with the LyftData profile's own paths, as
``analyze`` does) and checks the guide's words appear, in the guide's order, and that
nothing the guide does not ask is asked. The audit is in docs/lyftdata-contract.md
("Fidelity to the guide").
"""

from __future__ import annotations

from bundler.analyze.recovery import recovery_for
from bundler.products.lyftdata import PROFILE
from schemas import Recovery


def _path(code: str) -> Recovery:
    recovery = recovery_for(code, PROFILE.recovery_paths)
    assert recovery is not None, code
    return recovery


def _in_order(texts: list[str], needles: list[str]) -> list[int]:
    """Where each needle first appears in ``texts`` (each in a later or the same item)."""
    found, start = [], 0
    for needle in needles:
        at = next((i for i in range(start, len(texts)) if needle in texts[i]), None)
        assert at is not None, f"{needle!r} missing or out of order in {texts}"
        found.append(at)
        start = at
    return found


def test_lease_offers_trust_operations_only_for_a_trust_root_blocker() -> None:
    """The guide names trust-health and trust-reset only "if runtime requirements report a
    worker-auth trust-root problem"; the lease path offered them for an invalid signature."""
    lease = _path("LEASE_SIGNATURE_INVALID")
    [trust] = [step for step in lease.steps if "trust-health" in step]
    assert trust.startswith("If the runtime-requirements report names a worker-auth trust-root")
    assert "trust-reset" in trust
    assert "signature" not in trust
    assert any("auth-cache or settings databases" in c for c in lease.cautions)
