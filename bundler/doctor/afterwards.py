"""After collection: normalize the product's evidence, analyze it live, describe the run.

These steps read what the collectors stored (through the sink, redacted) and
never talk to a target. A failing normalizer or analyzer is recorded and
reported, never allowed to lose the bundle.

Everything they read is redacted once already: the members, the collectors'
outcomes and step results (the recorder redacts what the remote side said as
each collector settles), and the run's own target and settings (redacted here,
by the function sealing uses on the same values, so they read as the manifest
will). What they write is made of that text only, so it is stored without its
pseudonyms made again (``add_derived``): ``--obfuscate network`` gave an address
pseudonym a pseudonym of its own, and one address had three in one bundle. The
secret rules do run over it: on redacted text they change nothing, but a document
can put a value under a key that reads as secret, and ``bundler review`` would
reject the bundle for it.
"""

from __future__ import annotations

import platform
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from schemas import (
    AnalysisReport,
    CollectorKind,
    CollectorStatus,
    EncryptionInfo,
    Manifest,
    TargetSummary,
    ToolInfo,
)
from schemas.evidence import EvidenceDoc

from .. import __version__
from ..analyze.api import EvidenceSet
from ..analyze.engine import analyze as analyze_bundle
from ..archive import BundleSink
from ..archive.finalizing import redact_values
from ..archive.manifest_draft import redact_target
from ..archive.room import NoRoom
from ..collect.engine import CollectionResult
from ..collect.outcomes import SettledOutcome
from ..products.base import NormalizeContext, Profile, StepResult
from ..source import Refused
from .request import DoctorRequest
from .sinks import RecordingSink

ANALYSIS_MEMBER = "analysis.json"


def normalize(
    sink: RecordingSink,
    result: CollectionResult,
    profile: Profile,
    server_url: str | None,
    request: DoctorRequest,
    refused: dict[str, Refused] | None = None,
) -> None:
    """Store the profile's evidence documents; the step results are consumed.

    The results (one per plan step expansion, ~1 MB at 1,000 hosts) are the
    normalizer's input only, so ``result.results`` is emptied here: the live
    verdict and sealing, doctor's peak, come after. ``bundler analyze`` rebuilds
    them from the manifest when it needs them (:mod:`bundler.analyze.rederive`).

    ``refused`` receives the members the normalizer declined to parse, over the JSON
    cap a reader honours (``BUNDLER_MAX_JSON_BYTES``): they stay in the bundle whole,
    and the live verdict and the summary name them.
    """
    results, result.results = result.results, []
    try:
        documents = _normalized(
            sink, result, results, profile, server_url, request, {} if refused is None else refused
        )
        del results  # before the documents are stored: parsing the largest is a peak
    except Exception as exc:  # a profile bug must not lose the bundle: record it
        result.outcomes.append(
            _normalizer_failed(
                profile, type(exc).__name__, "the profile's normalizer failed; raw evidence is kept"
            )
        )
        return
    # Smallest first, each document's bytes leaving the list as it is stored: storing a
    # document parses it again (the secret rules' structure pass), so the largest (at
    # fleet size ``evidence/workers.json``, its tree three times its text) is parsed with
    # no other document still held. Its text was redacted already: no pseudonyms again.
    documents.sort(key=lambda document: len(document[1]), reverse=True)
    left_out = []
    while documents:
        member, data, schema_name = documents.pop()
        try:
            sink.add_derived(member, data, media_type="application/json", schema_name=schema_name)
        except NoRoom as full:  # analyze derives it again from the raw members
            left_out.append(f"{member} left out of the bundle: {full}")
    if left_out:
        result.outcomes.append(_normalizer_failed(profile, "BundleFull", "; ".join(left_out)))


def _normalizer_failed(profile: Profile, error_class: str, message: str) -> SettledOutcome:
    """The normalizer's own collector record, failed: what it could not give is a named gap."""
    return SettledOutcome(
        id=f"normalize.{profile.name}",
        kind=CollectorKind.LOCAL,
        target=f"profile {profile.name}",
        status=CollectorStatus.FAILED,
        error_class=error_class,
        error_message=message,
    )


def _normalized(
    sink: RecordingSink,
    result: CollectionResult,
    results: list[StepResult],
    profile: Profile,
    server_url: str | None,
    request: DoctorRequest,
    refused: dict[str, Refused],
) -> list[tuple[str, bytes, str]]:
    """The profile's documents as JSON, ``(member, bytes, schema)``; nothing stored yet.

    Each document is serialized as the profile yields it and its model let go, and the
    normalizers' context (their parsed raw records and log events) is gone when this
    returns: storing the documents parses each one, and at 1,000 workers that step on
    top of the context and every document model was doctor's peak.

    The context holds redacted text only, as the documents' pseudonyms are not made
    again: the members (the sink's spool), the step results (the recorder's), and the
    target and settings redacted here, as the manifest will have them (so the server
    URL, an inventory's worker names and addresses read the same in the evidence as in
    the members and the manifest, and ``bundler analyze`` re-derives the same documents).
    """
    target = redacted_target(sink, request, result, server_url)
    settings = {
        "since": request.since,
        "log_lines": request.log_lines,
        "ca_cert": str(request.ca_cert) if request.ca_cert else None,
        "insecure": request.insecure,
    }
    context = NormalizeContext(
        source=sink.source(),
        results=results,
        hosts=target.hosts,
        observed_at=result.started_at,
        server_url=target.server_url,
        settings=redact_values(settings, sink.redact_text),
        members={entry.path: entry for entry in sink.entries},
        refused=refused,
    )
    documents = []
    for document in profile.normalize(context):
        if not isinstance(document, EvidenceDoc) or not document.member_path:
            raise TypeError(f"normalize returned {type(document).__name__}, not an EvidenceDoc")
        data = document.model_dump_json(indent=2, exclude_none=True, by_alias=True).encode()
        documents.append((document.member_path, data, document.schema_name))
    return documents


def manifest_target(
    request: DoctorRequest, result: CollectionResult, server_url: str | None
) -> TargetSummary:
    """The manifest's ``target`` as given: sealing redacts it (:func:`redacted_target`)."""
    return TargetSummary(
        server_url=shown_url(server_url), hosts=result.hosts, insecure_tls=request.insecure
    )


def redacted_target(
    sink: BundleSink, request: DoctorRequest, result: CollectionResult, server_url: str | None
) -> TargetSummary:
    """The manifest's ``target`` redacted as sealing will redact it: the same function over
    the same values (two redactions of one original give one text; never one of the other)."""
    return redact_target(manifest_target(request, result, server_url), sink.redact_text)


def provisional_manifest(
    sink: BundleSink,
    request: DoctorRequest,
    result: CollectionResult,
    profile: Profile | None,
    server_url: str | None,
    now: Callable[[], datetime],
) -> Manifest:
    """The manifest as it will be, less what the verdict reads elsewhere or never.

    Its ``collectors`` are empty: the verdict reads doctor's own outcomes
    (:func:`analyze`), so the ~10,000 schema records of a fleet are built only when
    the bundle's manifest is written, after the verdict, doctor's memory peak. Its
    ``members`` are empty too: they are not all stored yet. Its target and options are
    redacted as the manifest's will be: the verdict's pseudonyms are not made again.
    """
    return Manifest(
        tool=ToolInfo(version=__version__, python=platform.python_version()),
        created_at=now(),
        bundle_id="live-check" if request.bundle is None else "pending",
        profile=profile.name if profile is not None else None,
        target=redacted_target(sink, request, result, server_url),
        options=redact_values(manifest_options(request, profile), sink.redact_text),
        encryption=EncryptionInfo(mode="recipient" if request.seal.recipients else "password"),
        interrupted=result.interrupted,
    )


def analyze(
    sink: RecordingSink,
    profile: Profile | None,
    manifest: Manifest,
    collectors: Sequence[SettledOutcome],
    warn: Callable[[str], None],
    refused: dict[str, Refused] | None = None,
) -> AnalysisReport | None:
    """The live ladder verdict, or None when there is no product to judge.

    Without a profile only hosts were collected: there is no control plane, worker
    or job evidence, so a ladder verdict would only ever say "inconclusive". A
    host-only run is a collection, and its exit code says how the collection went.

    ``refused``: the members the normalizer declined to parse (over the JSON cap), which
    the verdict names; the documents the verdict itself declines are added to it.
    """
    if profile is None:
        return None
    try:
        evidence = EvidenceSet(sink.source(), manifest=manifest, collectors=collectors)
        if refused is not None:  # named by the verdict; what it refuses itself, by the summary
            evidence.refused.update(refused)
        report = analyze_bundle(evidence, profile=profile)
        if refused is not None:
            refused.update(evidence.refused)
    except Exception as exc:  # a live verdict is a bonus; the bundle matters more
        warn(f"warning: live analysis failed ({type(exc).__name__}); the bundle is still written")
        return None
    try:
        sink.add_derived(  # made of redacted text only: its pseudonyms are not made again
            ANALYSIS_MEMBER,
            report.model_dump_json(indent=2, by_alias=True).encode(),
            media_type="application/json",
            schema_name="bundler.analysis/1",
        )
    except NoRoom as full:  # the verdict is still shown; analyze judges the bundle again
        warn(f"warning: {ANALYSIS_MEMBER} left out of the bundle: {full}")
    return report


def manifest_options(
    request: DoctorRequest, profile: Profile | None, api: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Sanitized options: flags and counts, never values that could be secrets.

    ``api`` is what the run asked of the control plane (:class:`ApiUsage`): the request
    cap, how often it was throttled, and how far each fan-out went.
    """
    options: dict[str, Any] = {
        "profile": profile.name if profile is not None else None,
        "server_given": bool(request.server),
        "token_env": request.token_env or (profile.token_env if profile is not None else None),
        "ca_cert": request.ca_cert is not None,
        "insecure": request.insecure,
        "ssh_hosts": len(request.ssh),
        "inventory": request.inventory is not None,
        "local": request.local,
        "accept_new_host_keys": request.accept_new_host_keys,
        "since": request.since,
        "log_lines": request.log_lines,
        "log_bytes": request.log_bytes,
        "concurrency": request.concurrency,
        "api_concurrency": request.api_concurrency,
        "timeout_s": request.timeout_s,
        "deadline_s": request.deadline_s,
        "obfuscate": list(request.obfuscate),
        "keywords": len(request.keywords),
        "custom_rules": request.rules is not None,
    }
    if api is not None:
        options["api"] = api
    return options


def shown_url(server_url: str | None) -> str | None:
    if server_url is None:
        return None
    from ..collect.transports.http import display_url

    return display_url(server_url)
