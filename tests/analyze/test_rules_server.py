"""Rung 0 rules: reachability, TLS, API token, health, license, storage."""

from __future__ import annotations

import pytest

from bundler.analyze.recovery import recovery_for
from bundler.analyze.rules import server as rules
from bundler.products.flux import PROFILE as FLUX
from bundler.products.lyftdata import PROFILE as LYFTDATA
from schemas import LayerStatus
from schemas.evidence import APIAuth, HTTPProbe, LicenseInfo, TLSInfo
from tests.support.evidence import Fleet

from .conftest import codes, judge, status


def test_healthy_server_passes(fleet: Fleet) -> None:
    assert status(judge(rules.server_reachable, fleet)) is LayerStatus.PASS
    assert status(judge(rules.server_healthy, fleet)) is LayerStatus.PASS
    assert judge(rules.api_token_accepted, fleet) is None
    assert judge(rules.server_license, fleet) is None


def test_unreachable_server_fails_with_the_connection_error(fleet: Fleet) -> None:
    assert fleet.server is not None
    fleet.server.reachable = False
    fleet.server.error_class = "ConnectError"
    fleet.server.error_message = "All connection attempts failed"
    result = judge(rules.server_reachable, fleet)
    assert status(result) is LayerStatus.FAIL
    assert codes(result) == ["SERVER_UNREACHABLE"]
    assert result is not None
    assert "ConnectError: All connection attempts failed" in result.findings[0].message
    assert result.findings[0].evidence[0].label() == "evidence/server.json#/error_message"


def test_untrusted_tls_fails_before_reachability(fleet: Fleet) -> None:
    assert fleet.server is not None
    fleet.server.tls = TLSInfo(
        enabled=True, verified=False, error="hostname_mismatch", error_message="Hostname mismatch"
    )
    result = judge(rules.server_reachable, fleet)
    assert codes(result) == ["TLS_NOT_TRUSTED"]
    assert result is not None
    assert "hostname_mismatch" in result.findings[0].message
    assert result.findings[0].message.startswith("Doctor's connection to the server did not trust")


@pytest.mark.parametrize("paths", [{}, FLUX.recovery_paths, LYFTDATA.recovery_paths])
def test_untrusted_tls_is_checked_first_where_doctor_ran(paths: object) -> None:
    """It is doctor's own connection that refused the certificate, yet the path said to
    check "from the worker host" only: now the machine that ran doctor (its CA bundle,
    ``--ca-cert``, the option ``bundler doctor --help`` lists) first, then the workers."""
    rec = recovery_for("TLS_NOT_TRUSTED", paths)  # type: ignore[arg-type]
    assert rec is not None
    assert "Doctor's own connection" in rec.summary
    assert rec.steps[0].startswith("On the machine that ran `bundler doctor`")
    assert "`--ca-cert FILE`" in rec.steps[0]
    assert "CA bundle" in rec.steps[0]
    worker = [i for i, step in enumerate(rec.steps) if "worker host" in step]
    assert worker
    assert min(worker) > 0


@pytest.mark.parametrize("paths", [{}, FLUX.recovery_paths, LYFTDATA.recovery_paths])
def test_insecure_collection_is_checked_first_where_doctor_ran(paths: object) -> None:
    """``--insecure`` switched off doctor's own certificate check, yet the finding got the
    worker host's connectivity path: now the machine that ran doctor first (``--ca-cert``,
    collect again without ``--insecure``), as for a certificate it refused."""
    rec = recovery_for("TLS_INSECURE_IN_USE", paths)  # type: ignore[arg-type]
    assert rec is not None
    assert rec == recovery_for("TLS_NOT_TRUSTED", paths)  # type: ignore[arg-type]
    assert "verification switched off" in rec.summary
    assert rec.steps[0].startswith("On the machine that ran `bundler doctor`")
    assert "without `--insecure`" in rec.steps[0]


def test_insecure_override_only_warns(fleet: Fleet) -> None:
    assert fleet.server is not None
    fleet.server.tls = TLSInfo(enabled=True, verified=False, insecure_override=True)
    result = judge(rules.server_reachable, fleet)
    assert status(result) is LayerStatus.WARN
    assert codes(result) == ["TLS_INSECURE_IN_USE"]


def test_rejected_api_token_fails(fleet: Fleet) -> None:
    assert fleet.server is not None
    fleet.server.auth = APIAuth(status="rejected", http_status=401)
    result = judge(rules.api_token_accepted, fleet)
    assert codes(result) == ["API_TOKEN_REJECTED"]
    assert result is not None
    assert "HTTP 401" in result.findings[0].message


def test_missing_server_evidence_is_unknown_not_pass(fleet: Fleet) -> None:
    fleet.server = None
    assert status(judge(rules.server_reachable, fleet)) is LayerStatus.UNKNOWN
    # Every rule that needs the document says so in the same words (the rung shows it once).
    assert codes(judge(rules.server_healthy, fleet)) == ["SERVER_EVIDENCE_MISSING"]
    assert judge(rules.server_healthy, fleet) == judge(rules.server_reachable, fleet)


def test_reachability_not_recorded_is_unknown(fleet: Fleet) -> None:
    assert fleet.server is not None
    fleet.server.reachable = None
    assert codes(judge(rules.server_reachable, fleet)) == ["SERVER_REACHABILITY_UNKNOWN"]


def test_unhealthy_not_ready_and_database_down_each_fail(fleet: Fleet) -> None:
    assert fleet.server is not None
    fleet.server.healthy = False
    assert codes(judge(rules.server_healthy, fleet)) == ["SERVER_UNHEALTHY"]
    fleet.server.healthy = True
    fleet.server.ready = False
    assert codes(judge(rules.server_healthy, fleet)) == ["SERVER_NOT_READY"]
    fleet.server.ready = True
    fleet.server.database_ok = False
    assert codes(judge(rules.server_healthy, fleet)) == ["SERVER_DATABASE_DOWN"]


def test_server_errors_warn_and_cite_the_probe(fleet: Fleet) -> None:
    assert fleet.server is not None
    fleet.server.probes = [
        HTTPProbe(endpoint="/health", status_code=200),
        HTTPProbe(endpoint="/workers", status_code=503),
    ]
    result = judge(rules.server_healthy, fleet)
    assert status(result) is LayerStatus.WARN
    assert result is not None
    assert result.findings[0].evidence[0].label() == "evidence/server.json#/probes/1"


def test_health_not_collected_is_unknown(fleet: Fleet) -> None:
    assert fleet.server is not None
    fleet.server.healthy = None
    fleet.server.ready = None
    assert status(judge(rules.server_healthy, fleet)) is LayerStatus.UNKNOWN


def test_expired_license_warns_here_and_expiring_license_warns(fleet: Fleet) -> None:
    assert fleet.server is not None
    fleet.server.license = LicenseInfo(
        mode="licensed", state="expired", native_code="license_expired_or_invalid"
    )
    result = judge(rules.server_license, fleet)
    assert status(result) is LayerStatus.WARN
    assert codes(result) == ["LICENSE_EXPIRED_OR_INVALID"]
    fleet.server.license = LicenseInfo(mode="licensed", state="expiring")
    assert codes(judge(rules.server_license, fleet)) == ["LICENSE_EXPIRING"]


def test_storage_pressure_warns_from_the_prune_threshold(fleet: Fleet) -> None:
    assert fleet.server is not None
    fleet.server.storage_used_pct = 79.0
    assert judge(rules.server_storage, fleet) is None
    fleet.server.storage_used_pct = 91.0
    assert codes(judge(rules.server_storage, fleet)) == ["STORAGE_PRESSURE"]
