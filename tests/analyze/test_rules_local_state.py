"""Corrupt local state (deployment / authorization rungs), stale sockets, host clocks."""

from __future__ import annotations

from bundler.analyze.api import Rule, RuleContext, RuleResult, Target, Timeline
from bundler.analyze.rules import clock as clock_rules
from bundler.analyze.rules import local_state as rules
from bundler.products.flux import PROFILE as FLUX
from bundler.products.lyftdata import PROFILE as LYFTDATA
from schemas import LayerStatus
from schemas.evidence import (
    ConnectionState,
    ControlSocket,
    LocalStateEvidence,
    StateFileCheck,
    TimeSync,
)
from tests.support.evidence import Fleet, clock

from .conftest import codes, judge, status


def _state(
    fleet: Fleet, *files: StateFileCheck, sockets: list[ControlSocket] | None = None
) -> None:
    fleet.extra.append(LocalStateEvidence(files=list(files), sockets=sockets or []))


def _corrupt(fleet: Fleet, path: str) -> None:
    _state(
        fleet,
        StateFileCheck(
            worker="w1",
            path=path,
            kind="sqlite",
            integrity="corrupt",
            detail="database disk image is malformed",
        ),
    )


def _as_product(rule: Rule, fleet: Fleet, profile: object) -> RuleResult | None:
    """Ask ``rule`` about w1 as the engine does for ``profile``: with its recovery paths."""
    ctx = RuleContext(
        evidence=fleet.evidence(),
        target=Target(worker="w1", job=None, reason="test"),
        timeline=Timeline(),
        profile=getattr(profile, "name", None),
        recovery_paths=getattr(profile, "recovery_paths", {}),
    )
    return rule(ctx)


def test_corrupt_state_db_fails_deployment_with_the_products_repair_path(fleet: Fleet) -> None:
    _corrupt(fleet, "/var/lib/lyftdata/jobs.db")
    result = _as_product(rules.local_state_integrity, fleet, LYFTDATA)
    assert codes(result) == ["LOCAL_STATE_CORRUPT"]
    assert result is not None
    rec = result.findings[0].recovery
    assert rec is not None
    assert any("lyftdata-worker --reset-state repair" in s for s in rec.steps)
    assert any("last resort" in c for c in rec.cautions)
    assert any("Never edit the auth-cache or settings databases" in c for c in rec.cautions)
    assert judge(rules.auth_cache_integrity, fleet) is None


def test_corrupt_state_of_another_product_never_cites_lyftdatas_commands(fleet: Fleet) -> None:
    _corrupt(fleet, ".flux/flux.db")
    for profile in (FLUX, None):  # Flux has no text of its own for the path: the generic one
        result = _as_product(rules.local_state_integrity, fleet, profile)
        assert codes(result) == ["LOCAL_STATE_CORRUPT"]
        assert result is not None
        rec = result.findings[0].recovery
        assert rec is not None
        assert rec.steps[0] == "Stop the worker service."
        text = " ".join([rec.summary, *rec.steps, *rec.cautions]).lower()
        assert "lyftdata" not in text
        assert "--reset-state" not in text
        assert "last resort" in text


def test_corrupt_auth_cache_fails_authorization_and_prefers_auth_reset(fleet: Fleet) -> None:
    _state(
        fleet,
        StateFileCheck(
            host_alias="h02",
            path="/var/lib/lyftdata/auth-cache.db",
            kind="sqlite",
            integrity="corrupt",
        ),
    )
    result = _as_product(rules.auth_cache_integrity, fleet, LYFTDATA)
    assert codes(result) == ["AUTH_CACHE_CORRUPT"]
    assert result is not None
    assert result.findings[0].recovery is not None
    assert any("--reset-state auth" in s for s in result.findings[0].recovery.steps)
    generic = judge(rules.auth_cache_integrity, fleet)
    assert generic is not None
    assert generic.findings[0].recovery is not None
    assert "narrower repair of cached authorization" in generic.findings[0].recovery.steps[1]
    assert judge(rules.local_state_integrity, fleet) is None


def test_healthy_state_and_other_workers_state_say_nothing(fleet: Fleet) -> None:
    _state(
        fleet,
        StateFileCheck(worker="w1", path="/a.db", kind="sqlite", integrity="ok"),
        StateFileCheck(worker="w2", path="/b.db", kind="sqlite", integrity="corrupt"),
    )
    assert judge(rules.local_state_integrity, fleet) is None
    assert status(judge(rules.local_state_integrity, fleet, worker="w2")) is LayerStatus.FAIL


def test_unreadable_state_warns(fleet: Fleet) -> None:
    _state(fleet, StateFileCheck(worker="w1", path="/a.db", kind="sqlite", integrity="unreadable"))
    assert codes(judge(rules.local_state_integrity, fleet)) == ["LOCAL_STATE_UNREADABLE"]


def test_stale_control_socket_warns_with_meaning(fleet: Fleet) -> None:
    sock = ControlSocket(
        worker="w1",
        path=".flux/worker-w1.sock",
        responsive=False,
        detail="[Errno 111] Connection refused",
    )
    _state(fleet, sockets=[sock])
    fleet.worker("w1").connection = ConnectionState.OFFLINE
    result = judge(rules.stale_control_socket, fleet)
    assert codes(result) == ["STALE_CONTROL_SOCKET"]
    assert result is not None
    assert "process that created it is gone" in result.findings[0].message


def test_worker_clock_skew_and_unsynchronized_time_warn(fleet: Fleet) -> None:
    assert fleet.hosts is not None
    assert judge(clock_rules.worker_clock, fleet) is None
    fleet.hosts.hosts[1].clock = clock(-9.0)
    assert codes(judge(clock_rules.worker_clock, fleet)) == ["CLOCK_SKEW"]
    fleet.hosts.hosts[1].clock = clock(0.0)
    fleet.hosts.hosts[1].time_sync = TimeSync(synchronized=False, service="chrony")
    assert codes(judge(clock_rules.worker_clock, fleet)) == ["TIME_NOT_SYNCHRONIZED"]


def test_fleet_clock_spread(fleet: Fleet) -> None:
    assert fleet.hosts is not None
    assert clock_rules.fleet_clock_findings(fleet.evidence()) == []
    fleet.hosts.hosts[2].clock = clock(12.0)
    found = clock_rules.fleet_clock_findings(fleet.evidence())
    assert [f.code for f in found] == ["CLOCK_SKEW"]
    assert "h01 vs h03" in found[0].message
