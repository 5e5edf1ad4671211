"""Layer 0: the control plane's reachability, TLS, token, health, version and license.

TLS and token problems never produce a response body, so they are read from
the step outcomes (status, HTTP code, transport error) rather than from members.
"""

from __future__ import annotations

from schemas.evidence import APIAuth, HTTPProbe, LicenseInfo, ServerEvidence, TLSInfo

from ...base import StepResult
from ...raw import RawReader
from ..plan import http_steps
from ..raw import Health, License, Version
from .reading import gaps, settle_gaps, utc

SERVER_STEPS = ("health", "version", "license", "settings")
_HTTP_STEP_IDS = frozenset(step.id for step in http_steps())

_TLS_MARKERS: tuple[tuple[str, str], ...] = (
    ("hostname mismatch", "hostname_mismatch"),
    ("doesn't match", "hostname_mismatch"),
    ("ip address mismatch", "hostname_mismatch"),
    ("certificate has expired", "certificate_expired"),
    ("self-signed certificate", "self_signed"),
    ("self signed certificate", "self_signed"),
    ("certificate verify failed", "certificate_verify_failed"),
    ("certificate not trusted", "certificate_verify_failed"),
    ("unable to get local issuer", "certificate_verify_failed"),
    ("tlsverifyfailed", "certificate_verify_failed"),
    ("certificate_verify_failed", "certificate_verify_failed"),
    ("wrong version number", "handshake_failed"),
    ("handshake", "handshake_failed"),
    ("sslerror", "handshake_failed"),
)


def tls_error_code(result: StepResult) -> str | None:
    """A machine code for a TLS failure, read from the transport error (None: not TLS)."""
    text = f"{result.error_class or ''} {result.error_message or ''}".lower()
    return next((code for marker, code in _TLS_MARKERS if marker in text), None)


def _http_results(reader: RawReader) -> list[StepResult]:
    return [r for r in reader.ctx.results if r.host is None and r.step in _HTTP_STEP_IDS]


def _auth(reader: RawReader, results: list[StepResult]) -> APIAuth:
    rejected = [r for r in results if r.http_status in (401, 403)]
    if rejected:
        return APIAuth(
            status="rejected",
            http_status=rejected[0].http_status,
            detail=f"{reader.ref(rejected[0])} answered {rejected[0].http_status}",
        )
    if any(r.http_status is not None and 200 <= r.http_status < 300 for r in results):
        return APIAuth(status="ok", http_status=200)
    return APIAuth(status="unknown")


def _tls(reader: RawReader, results: list[StepResult], reachable: bool) -> TLSInfo | None:
    ctx = reader.ctx
    url = ctx.server_url or ""
    if not url:
        return None
    enabled = url.lower().startswith("https:")
    insecure = bool(ctx.settings.get("insecure"))
    info = TLSInfo(
        enabled=enabled,
        insecure_override=insecure,
        ca_file_used=bool(ctx.settings.get("ca_cert")),
    )
    failure = next((r for r in results if tls_error_code(r)), None) if enabled else None
    if failure is not None:
        info.verified = False
        info.error = tls_error_code(failure)
        info.error_message = failure.error_message
    elif enabled and reachable:
        info.verified = not insecure
    return info


def _license(fetch_license: License | None) -> LicenseInfo | None:
    if fetch_license is None:
        return None
    known = ("valid", "expiring", "expired", "invalid")
    state = fetch_license.state if fetch_license.state in known else "unknown"
    return LicenseInfo(
        mode=fetch_license.mode,
        state=state,  # type: ignore[arg-type]
        expires_at=utc(fetch_license.expires_at),
        external_workers_allowed=fetch_license.external_workers_allowed,
        limits=fetch_license.limits.model_dump() if fetch_license.limits else {},
        native_code=fetch_license.native_code,
    )


def normalize_server(reader: RawReader) -> ServerEvidence:
    results = _http_results(reader)
    reachable = any(r.http_status is not None for r in results)
    doc = ServerEvidence(
        product="lyftdata",
        observed_at=reader.ctx.observed_at,
        url=reader.ctx.server_url,
        reachable=reachable if results else None,
        auth=_auth(reader, results),
        gaps=gaps(reader, *SERVER_STEPS),
    )
    doc.complete = not doc.gaps
    doc.tls = _tls(reader, results, reachable)
    if results and not reachable:
        failed = results[0]
        doc.error_class, doc.error_message = failed.error_class, failed.error_message
    for step in SERVER_STEPS:
        for r in reader.results(step):
            doc.probes.append(
                HTTPProbe(
                    endpoint=reader.ref(r).removeprefix("GET "),
                    status_code=r.http_status,
                    error_class=r.error_class,
                    error_message=r.error_message,
                    member=r.member,
                )
            )
    health = reader.first("health", Health)
    if health is not None:
        model = health.value
        doc.healthy = model.status == "ok"
        doc.database_ok = None if model.database is None else model.database == "ok"
        doc.storage_used_pct = model.storage.used_pct if model.storage else None
        native = reader.document(health.result)
        doc.native = native if isinstance(native, dict) else {}
        doc.source = health.source()
    elif any(r.http_status is not None and r.http_status >= 500 for r in reader.results("health")):
        doc.healthy = False
    version = reader.first("version", Version)
    if version is not None:
        doc.version = version.value.version
    lic = reader.first("license", License)
    doc.license = _license(lic.value if lic else None)
    settle_gaps(doc, reader, *SERVER_STEPS)
    return doc
