"""``bundler doctor`` as a library call: validate the request, collect, normalize, analyze, seal.

Everything that can be wrong with the request (flags, inventory, ssh_config,
known_hosts, the bundle password) is checked *before* the first connection,
so a usage error never costs a collection and never leaves a file. Once
collection has started, the bundle is written whenever anything was
collected; a Ctrl-C during collection seals what was collected (manifest
``interrupted``), a Ctrl-C while sealing leaves nothing.

With a profile, the live verdict comes from the same ladder engine as
``bundler analyze`` (:mod:`.afterwards`) and is stored as ``analysis.json``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from schemas import AnalysisReport, utc_now

from ..archive import BundleBuilder
from ..archive.uncompressed import uncompressed_note
from ..collect.engine import CollectionResult, Engine
from ..collect.memory import release_free_memory
from ..collect.outcomes import OutcomeRecords
from ..collect.recorder import ProgressListener
from ..collect.targets import HostTarget
from ..errors import Interrupted
from ..exit_codes import ExitCode
from ..printable import json_printable
from ..products.base import Profile
from ..source import Refused
from .afterwards import (
    analyze,
    manifest_options,
    manifest_target,
    normalize,
    provisional_manifest,
    shown_url,
)
from .request import DoctorRequest, prepare
from .sinks import RecordingSink, create_bundle, open_live, redaction_transform
from .summary import BundleWritten, DoctorSummary, build_summary, exit_code, no_ladder_report


@dataclass
class DoctorOutcome:
    result: CollectionResult
    summary: DoctorSummary
    analysis: AnalysisReport | None
    exit_code: ExitCode

    def json_text(self) -> str:
        """What ``--json`` prints, always one schema: the analysis report (``bundler.analysis/1``)
        with the collection summary inside (``collection``), so a pipeline never branches.

        A run with nothing to judge (hosts only, no profile; an interrupted run; an analysis
        that failed) still prints a report: verdict ``inconclusive`` with a fleet note saying
        why there is no ladder, and the collection summary.
        """
        report = self.analysis if self.analysis is not None else no_ladder_report(self.summary)
        report = report.model_copy(
            update={"collection": self.summary.model_dump(mode="json", by_alias=True)}
        )
        # What the server sent reaches the customer's terminal: bidi, C1 and zero-width
        # characters as JSON escapes, as every bundle reader's --json writes them.
        return json_printable(report.model_dump_json(indent=2, by_alias=True))


def run_doctor(
    request: DoctorRequest,
    *,
    environ: Mapping[str, str] = os.environ,
    progress: ProgressListener | None = None,
    warn: Callable[[str], None] = lambda message: None,
    now: Callable[[], datetime] = utc_now,
    home: Path | None = None,
) -> DoctorOutcome:
    """Run doctor; returns the outcome (its exit code included) or raises a BundlerError."""
    run = prepare(request, environ, warn, now, home or Path.home())
    profile, server_url, token, connector = run.profile, run.server_url, run.token, run.connector
    transform = redaction_transform(
        [token] if token else [],
        keywords=request.keywords,
        custom=run.custom_rules,
        obfuscate_network="network" in request.obfuscate,
        known_hosts=_host_names(run.targets),
    )
    bundle = (
        create_bundle(request.bundle, request.seal, transform, request.bundle_limits)
        if request.bundle
        else None
    )
    sink: RecordingSink = bundle if bundle is not None else open_live(transform)
    if server_url:
        from ..collect.transports.http import HttpCollector, HttpOptions
    http = (
        HttpCollector(
            HttpOptions(
                server_url,
                token=token,
                ca_cert=request.ca_cert,
                insecure=request.insecure,
                api_concurrency=request.api_concurrency,
            )
        )
        if server_url
        else None
    )
    try:
        # Neither the engine nor the prepared run is kept past collection: the records,
        # host states, scheduler bookkeeping (per collector; 10,500 at 1,000 hosts),
        # targets and endpoints go before normalizing, the live verdict and sealing,
        # doctor's peak; the result holds what those need.
        engine = Engine(
            sink,
            run.targets,
            plan=profile.plan() if profile else None,
            profile=profile,
            settings=run.settings,
            http=http,
            connector=connector,
            endpoints=run.endpoints,
            progress=progress,
            now=now,
            secrets=[token] if token else [],
            room=bundle.room if bundle is not None else None,
        )
        del run  # the targets and resolved ssh_config endpoints (~1.5 MB at 1,000 hosts) ...
        result = engine.run()
        del engine  # ... go with the engine, before the verdict and sealing
        for note in result.notes:
            warn(note)
        api = http.usage.manifest_record() if http is not None else None
        return _conclude(request, sink, bundle, result, profile, server_url, now, warn, api)
    except KeyboardInterrupt as exc:
        sink.abort()
        raise Interrupted("interrupted while sealing: no bundle was written") from exc
    except BaseException:
        sink.abort()
        raise
    finally:
        if bundle is None:
            sink.abort()  # a live check keeps nothing
        if http is not None:
            http.close()
        if connector is not None:
            connector.close()


def _conclude(
    request: DoctorRequest,
    sink: RecordingSink,
    bundle: BundleBuilder | None,
    result: CollectionResult,
    profile: Profile | None,
    server_url: str | None,
    now: Callable[[], datetime],
    warn: Callable[[str], None],
    api: dict[str, Any] | None = None,
) -> DoctorOutcome:
    profile_name = profile.name if profile is not None else None
    # Even when nothing was collected: the failures themselves are evidence (a server that
    # is not there reads FLUX_SERVER_UNREACHABLE, one finding, as in a bundle with hosts).
    refused: dict[str, Refused] = {}  # kept whole in the bundle, but over a reader's limit
    if profile is not None and not result.interrupted:
        normalize(sink, result, profile, server_url, request, refused)
        release_free_memory()  # what the normalizers read is gone: its pages go back
    analysis = None
    if not result.interrupted and (result.collected or profile is not None):
        provisional = provisional_manifest(sink, request, result, profile, server_url, now)
        analysis = analyze(sink, profile, provisional, result.outcomes, warn, refused)
        release_free_memory()  # ... and the live verdict's evidence, before sealing
    verdict = analysis.verdict.value if analysis is not None else None
    code = exit_code(
        interrupted=result.interrupted,
        kept=result.kept,
        failed=len(result.failed),
        verdict=verdict,
    )
    shown = shown_url(server_url)
    written = None
    if bundle is not None and result.kept:
        sealed = bundle.finalize(
            command="doctor",
            profile=profile_name,
            target=manifest_target(request, result, server_url),  # sealing redacts it
            options=manifest_options(request, profile, api),
            collectors=OutcomeRecords(result.outcomes),
            interrupted=result.interrupted,
        )
        written = BundleWritten(sealed.path, sealed.path.stat().st_size, sealed.encryption.mode)
        if note := uncompressed_note(sealed.uncompressed):
            warn(note)
    elif bundle is not None:
        bundle.abort()
    summary = build_summary(
        result,
        profile=profile_name,
        server_url=shown,
        bundle=written,
        verdict=verdict,
        code=code,
        insecure_tls=request.insecure,
        unread=[str(refused[member]) for member in sorted(refused)],
    )
    return DoctorOutcome(result, summary, analysis, code)


def _host_names(targets: Sequence[HostTarget]) -> list[str]:
    """The names doctor was given for its hosts (``[user@]host[:port]``), not IPs or local."""
    names = []
    for target in targets:
        if target.is_local:
            continue
        host = target.address.rsplit("@", 1)[-1]
        host = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
        if host and not host.replace(".", "").isdigit():
            names.append(host)
    return names
