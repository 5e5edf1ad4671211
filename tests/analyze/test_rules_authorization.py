"""Rung 2 rules: native codes, lease validity, registration, license cross-check, clocks."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bundler.analyze.rules import authorization as rules
from bundler.analyze.rules import clock as clock_rules
from schemas import LayerStatus
from schemas.evidence import (
    AuthorizationEvidence,
    LeaseSignature,
    LicenseInfo,
    RegistrationAttempts,
    Source,
    WorkerAuthorization,
)
from tests.support.evidence import T0, Fleet, clock, lease

from .conftest import codes, judge, status


def _w1(fleet: Fleet) -> WorkerAuthorization:
    assert fleet.authorization is not None
    return fleet.authorization.workers[0]


def test_valid_lease_passes(fleet: Fleet) -> None:
    result = judge(rules.runtime_authorization, fleet)
    assert status(result) is LayerStatus.PASS
    assert codes(result) == ["AUTHORIZED"]


@pytest.mark.parametrize(
    ("native", "code"),
    [
        ("community_edition_no_external_workers", "COMMUNITY_EDITION_NO_EXTERNAL_WORKERS"),
        ("license_expired_or_invalid", "LICENSE_EXPIRED_OR_INVALID"),
    ],
)
def test_the_guides_native_codes_fail_verbatim(fleet: Fleet, native: str, code: str) -> None:
    entry = _w1(fleet)
    entry.decision = "deny"
    entry.native_code = native
    result = judge(rules.runtime_authorization, fleet)
    assert codes(result) == [code]
    assert result is not None
    assert result.findings[0].native_code == native


def test_other_denials_fail_with_the_products_message(fleet: Fleet) -> None:
    entry = _w1(fleet)
    entry.decision = "deny"
    entry.message = "worker revoked"
    result = judge(rules.runtime_authorization, fleet)
    assert codes(result) == ["AUTHORIZATION_DENIED"]
    assert result is not None
    assert "worker revoked" in result.findings[0].message


def test_expired_lease_fails_relative_to_collection_time(fleet: Fleet) -> None:
    _w1(fleet).lease = lease(expires_at=T0 - timedelta(seconds=1))
    assert codes(judge(rules.runtime_authorization, fleet)) == ["LEASE_EXPIRED"]


def test_lease_issued_in_the_future_beyond_tolerance_fails(fleet: Fleet) -> None:
    _w1(fleet).lease = lease(issued_at=T0 + timedelta(seconds=20))
    assert status(judge(rules.runtime_authorization, fleet)) is LayerStatus.PASS  # within 30 s
    _w1(fleet).lease = lease(issued_at=T0 + timedelta(seconds=90))
    assert codes(judge(rules.runtime_authorization, fleet)) == ["LEASE_NOT_YET_VALID"]


def test_unverified_signature_fails_and_all_lease_problems_are_reported(fleet: Fleet) -> None:
    _w1(fleet).lease = lease(
        expires_at=T0 - timedelta(minutes=1),
        signature=LeaseSignature(alg="EdDSA", key_id="k9", verified=False),
        renew_attempts_failed=4,
    )
    result = judge(rules.runtime_authorization, fleet)
    assert status(result) is LayerStatus.FAIL
    assert codes(result) == ["LEASE_EXPIRED", "LEASE_SIGNATURE_INVALID", "LEASE_RENEWAL_FAILING"]


def test_failing_renewals_alone_warn(fleet: Fleet) -> None:
    _w1(fleet).lease = lease(renew_attempts_failed=2)
    result = judge(rules.runtime_authorization, fleet)
    assert status(result) is LayerStatus.WARN
    assert codes(result) == ["LEASE_RENEWAL_FAILING"]


def test_registration_401_loop_fails_and_cites_the_log(fleet: Fleet) -> None:
    entry = _w1(fleet)
    entry.decision = "unknown"
    entry.lease = None
    entry.registration = RegistrationAttempts(
        attempts=12,
        rejected=12,
        last_status_code=401,
        last_error="401 Unauthorized",
        source=Source(method="log", member="hosts/h02/logs/1.log", line_start=3, line_end=3),
    )
    result = judge(rules.runtime_authorization, fleet)
    assert codes(result) == ["REGISTRATION_REJECTED"]
    assert result is not None
    labels = [c.label() for c in result.findings[0].evidence]
    assert "hosts/h02/logs/1.log:3" in labels


def test_registration_errors_other_than_rejection_are_not_authorization(fleet: Fleet) -> None:
    entry = _w1(fleet)
    entry.registration = RegistrationAttempts(attempts=3, rejected=3, last_status_code=503)
    assert status(judge(rules.runtime_authorization, fleet)) is LayerStatus.PASS


def test_enrollment_key_left_configured_warns(fleet: Fleet) -> None:
    _w1(fleet).enrollment_key_still_configured = True
    assert codes(judge(rules.runtime_authorization, fleet)) == ["ENROLLMENT_KEY_STILL_CONFIGURED"]


def test_not_applicable_for_products_without_runtime_authorization(fleet: Fleet) -> None:
    fleet.authorization = AuthorizationEvidence(applicable=False)
    assert status(judge(rules.runtime_authorization, fleet)) is LayerStatus.NOT_APPLICABLE
    fleet.authorization = None
    assert status(judge(rules.runtime_authorization, fleet)) is LayerStatus.UNKNOWN


def test_builtin_worker_without_record_is_not_applicable(fleet: Fleet) -> None:
    assert fleet.authorization is not None
    fleet.authorization.workers = []
    fleet.worker("w1").kind = "builtin"
    assert status(judge(rules.runtime_authorization, fleet)) is LayerStatus.NOT_APPLICABLE
    fleet.worker("w1").kind = None
    assert codes(judge(rules.runtime_authorization, fleet)) == ["AUTHORIZATION_RECORD_MISSING"]


def test_external_worker_without_record_fails_on_the_servers_license(fleet: Fleet) -> None:
    assert fleet.authorization is not None
    assert fleet.server is not None
    fleet.authorization.workers = []
    fleet.server.license = LicenseInfo(
        mode="community", state="valid", external_workers_allowed=False
    )
    assert codes(judge(rules.runtime_authorization, fleet)) == [
        "COMMUNITY_EDITION_NO_EXTERNAL_WORKERS"
    ]
    fleet.server.license = LicenseInfo(mode="licensed", state="expired")
    assert codes(judge(rules.runtime_authorization, fleet)) == ["LICENSE_EXPIRED_OR_INVALID"]


def test_undecided_without_lease_is_unknown(fleet: Fleet) -> None:
    entry = _w1(fleet)
    entry.decision = "unknown"
    entry.lease = None
    assert codes(judge(rules.runtime_authorization, fleet)) == ["AUTHORIZATION_UNDECIDED"]


def test_clock_skew_beyond_lease_tolerance_fails(fleet: Fleet) -> None:
    assert fleet.hosts is not None
    assert judge(clock_rules.clock_vs_lease, fleet) is None
    fleet.hosts.hosts[1].clock = clock(45.0)
    result = judge(clock_rules.clock_vs_lease, fleet)
    assert codes(result) == ["CLOCK_SKEW_EXCEEDS_LEASE_TOLERANCE"]
    assert result is not None
    assert result.findings[0].details["tolerance_s"] == 30


def test_skew_within_measurement_uncertainty_is_not_skew(fleet: Fleet) -> None:
    assert fleet.hosts is not None
    fleet.hosts.hosts[1].clock = clock(31.0, uncertainty=2.0)  # may be 28.9 s: within 30 s
    assert judge(clock_rules.clock_vs_lease, fleet) is None


def test_undecided_external_worker_still_fails_on_an_expired_license(fleet: Fleet) -> None:
    assert fleet.server is not None
    entry = _w1(fleet)
    entry.decision = "unknown"
    entry.lease = None
    fleet.server.license = LicenseInfo(mode="licensed", state="invalid")
    assert codes(judge(rules.runtime_authorization, fleet)) == ["LICENSE_EXPIRED_OR_INVALID"]
