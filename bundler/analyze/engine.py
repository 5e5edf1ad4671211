"""The ladder engine: from a bundle's evidence to one :class:`~schemas.AnalysisReport`.

``analyze()`` is the single entry point for both ``bundler analyze`` (a sealed
bundle, offline) and ``bundler doctor --json`` (the in-progress spool, live):
it knows nothing of the command line, of files or of output formats. It

1. builds one shared :class:`~bundler.analyze.api.Timeline` from the
   profile's log parser,
2. asks the rules that judge a worker from its host alone of every worker
   (:mod:`.host_warnings`), and chooses the targets (:mod:`.targets`): the trouble,
   then the workers whose host warns,
3. walks each target's ladder with the generic rules plus the profile's own
   (:mod:`.ladder`), and evaluates the product's acceptance checklist (:mod:`.checklist`),
4. adds fleet-wide findings, the fleet overview (:mod:`.overview`) and the
   bundle's provenance and integrity; a host warning no reported ladder shows is a
   fleet finding (``HOST_WARNINGS``), so it never goes unsaid.

A profile that breaks (its parser or its rule list raises) degrades the
report to generic rules with a visible note; it never aborts the analysis.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from schemas import (
    AnalysisReport,
    BundleInfo,
    Finding,
    Integrity,
    Layer,
    TargetReport,
    Verdict,
)
from schemas.evidence import LogIndex, WorkersEvidence
from schemas.manifest import CollectorStatus

from .. import __version__
from . import acceptance, codes
from .api import EvidenceSet, Rule, RuleContext, Supersedes, Target, Timeline, excerpt
from .checklist import checklist_of
from .fleet import UNTRUSTWORTHY, fleet_findings, note
from .host_context import beside_stop
from .host_warnings import PerWorker, fleet_note, host_rules, reasons, screen, unshown
from .ladder import VERDICT_ORDER, overall, target_verdict, walk
from .overview import fleet_overview
from .rules import GENERIC_RULES
from .sampling import FIRST_KEPT, LATEST_KEPT, sample
from .targets import screened_workers, select_targets
from .worker_clock import log_clocks

if TYPE_CHECKING:
    from ..products.base import Profile

MAX_TARGETS = 50
"""A report past this many ladders is unreadable; the rest are counted in a fleet note."""
MAX_EVALUATED = 4 * MAX_TARGETS
"""Ladders walked to choose the most severe MAX_TARGETS (bounded: each costs a little)."""


@dataclass(frozen=True)
class Analysis:
    """The report and the timeline it was judged on (the HTML report draws it)."""

    report: AnalysisReport
    timeline: Timeline


def analyze(
    evidence: EvidenceSet,
    *,
    profile: Profile | None = None,
    worker: str | None = None,
    job: str | None = None,
    integrity: Integrity | None = None,
) -> AnalysisReport:
    """Replay the serviceability ladder on ``evidence`` (see the module docstring).

    Raises :class:`~bundler.errors.UsageError` when ``worker`` or ``job`` names
    nothing in the bundle (the message lists the known names).
    """
    return run_analysis(
        evidence, profile=profile, worker=worker, job=job, integrity=integrity
    ).report


def run_analysis(
    evidence: EvidenceSet,
    *,
    profile: Profile | None = None,
    worker: str | None = None,
    job: str | None = None,
    integrity: Integrity | None = None,
) -> Analysis:
    """:func:`analyze`, keeping the timeline too, so a renderer need not parse the logs again."""
    notes: list[Finding] = []
    name = profile.name if profile is not None else _profile_name(evidence)
    if profile is None and name is not None:
        notes.append(
            note(
                codes.PROFILE_UNAVAILABLE,
                f"The bundle was collected with profile {name!r}, which this bundler "
                "does not have: only generic rules ran, and logs were not parsed.",
                severity="info",
            )
        )
    timeline = _timeline(evidence, profile, notes)
    ladders = Ladders(evidence, profile, timeline, _rules(profile, name, notes))
    warned: PerWorker = {}
    if worker is None and job is None:  # a narrowed report is about what was asked for
        warned = ladders.host_warnings(screened_workers(evidence))
    targets = select_targets(evidence, worker=worker, job=job, host_warned=reasons(warned))
    reports = ladders.walk(targets)
    if len(targets) > MAX_TARGETS:
        evaluated = min(len(targets), MAX_EVALUATED)
        notes.append(
            note(
                codes.TARGETS_TRUNCATED,
                f"{len(targets)} targets need attention; the {MAX_TARGETS} most severe of the "
                f"first {evaluated} are shown. Narrow with --worker or --job.",
                severity="info",
            )
        )
    fleet = (
        notes + fleet_findings(evidence) + fleet_note(unshown(warned, reports, ladders.supersedes))
    )
    verdict = overall([r.verdict for r in reports])
    if verdict is Verdict.HEALTHY and any(f.severity in ("warn", "fail") for f in fleet):
        verdict = Verdict.DEGRADED
    verdict = capped(verdict, fleet)
    failed = [r.first_failed_layer for r in reports if r.first_failed_layer is not None]
    report = AnalysisReport(
        tool_version=__version__,
        bundle=_bundle_info(evidence, name, integrity),
        verdict=verdict,
        first_failed_layer=min(failed, key=lambda layer: layer.index) if failed else None,
        targets=reports,
        fleet_findings=fleet,
        fleet=fleet_overview(evidence, reports, reasons(warned)),
    )
    return Analysis(report=report, timeline=timeline)


class Ladders:
    """The ladders of one evidence set's targets, as :func:`run_analysis` walks and reports them.

    Its timeline and rules are made once: ``bundler diff`` walks a target that only the other
    bundle's analysis chose by name (:meth:`named`), up to a hundred of them on a large fleet,
    and analyzing the whole fleet again for each (parsing the logs, the fleet findings and
    the overview, all of them over every worker) made the comparison of two 100,000-worker
    bundles take as long as a hundred analyses.
    """

    def __init__(
        self,
        evidence: EvidenceSet,
        profile: Profile | None,
        timeline: Timeline | None = None,
        rules: Sequence[Rule] | None = None,
    ) -> None:
        self.evidence = evidence
        self.name = profile.name if profile is not None else _profile_name(evidence)
        self.timeline = timeline if timeline is not None else _timeline(evidence, profile, [])
        self.rules = list(rules) if rules is not None else _rules(profile, self.name, [])
        self.template = RuleContext(
            evidence=evidence,
            target=Target(worker=None, job=None),
            timeline=self.timeline,
            profile=self.name,
            collection_hints=getattr(profile, "collection_hints", {}) or {},
            recovery_paths=getattr(profile, "recovery_paths", {}) or {},
            requirement_repairs=getattr(profile, "requirement_repairs", {}) or {},
            missing_documents=getattr(profile, "missing_documents", {}) or {},
            supersedes=getattr(profile, "supersedes", {}) or {},
            checklist=checklist_of(profile),
        )
        """Every rule context of this analysis but its target: the per-analysis fields are
        read from the profile here, once, so a new field of :class:`RuleContext` is set in
        this one place and reaches both the host screen and every ladder (:meth:`context`)."""

    @property
    def supersedes(self) -> Supersedes:
        """The profile's finding code -> the generic code(s) it replaces (the fleet note of
        unshown host warnings leaves out what a shown finding supersedes)."""
        return self.template.supersedes

    def context(self, target: Target) -> RuleContext:
        """The rule context of ``target``: the template's, with only the target changed.

        A fresh object per target, as every ladder had before the template: nothing one
        ladder's rules do to their context can reach another target's.
        """
        return replace(self.template, target=target)

    def walk(self, targets: Sequence[Target]) -> list[TargetReport]:
        """The reports of the first :data:`MAX_EVALUATED` targets, the most severe
        :data:`MAX_TARGETS` of them, most severe first."""
        reports = sorted((self.report(t) for t in targets[:MAX_EVALUATED]), key=_order)
        return reports[:MAX_TARGETS]

    def named(self, worker: str | None, job: str | None) -> list[TargetReport]:
        """The target reports ``analyze(worker=worker, job=job)`` gives, without its fleet-wide
        parts; raises :class:`~bundler.errors.UsageError` as it does for an unknown name."""
        return self.walk(select_targets(self.evidence, worker=worker, job=job))

    def host_warnings(self, workers: Iterable[str]) -> PerWorker:
        """Each of ``workers``' warnings by the rules that judge it from its host alone: a few
        look-ups per worker, no ladder (:func:`.host_warnings.screen`)."""
        rules = host_rules(self.rules)
        if not rules:
            return {}
        contexts = (self.context(Target(worker=name, job=None)) for name in workers)
        return screen(contexts, rules, self.supersedes)

    def report(self, target: Target) -> TargetReport:
        """``target``'s ladder, walked with this analysis' rules and its rule context."""
        return _target_report(self.context(target), self.rules)


def capped(verdict: Verdict, fleet: Sequence[Finding]) -> Verdict:
    """``verdict``, but never healthy or degraded beside a fleet finding that says the evidence
    cannot be trusted as a whole (:data:`~bundler.analyze.fleet.UNTRUSTWORTHY`)."""
    if verdict in (Verdict.HEALTHY, Verdict.DEGRADED) and any(
        f.code in UNTRUSTWORTHY for f in fleet
    ):
        return Verdict.INCONCLUSIVE
    return verdict


def _profile_name(evidence: EvidenceSet) -> str | None:
    return evidence.manifest.profile if evidence.manifest is not None else None


def _timeline(evidence: EvidenceSet, profile: Profile | None, notes: list[Finding]) -> Timeline:
    if profile is None:
        return Timeline()
    try:
        clocks = log_clocks(evidence.document(WorkersEvidence), evidence.document(LogIndex))
        sampled = sample(profile.parse_logs(evidence), clocks)
    except Exception as exc:  # a parser bug must not cost the whole report
        notes.append(
            note(
                codes.LOG_PARSER_ERROR,
                f"The {profile.name} log parser failed ({type(exc).__name__}: "
                f"{excerpt(str(exc), 160)}); log-based evidence is missing.",
            )
        )
        return Timeline()
    if sampled.kept < sampled.seen:
        routine = ""
        if sampled.routine_kept and sampled.routine_kept != (FIRST_KEPT, LATEST_KEPT):
            first, latest = sampled.routine_kept
            routine = (
                f"; of routine progress lines, in a fleet this size, the first {first} "
                f"and the latest {latest}"
            )
        notes.append(
            note(
                codes.TIMELINE_SAMPLED,
                f"The logs held {sampled.seen:,} timeline events; {sampled.kept:,} were kept (per "
                f"kind and worker the first {FIRST_KEPT} and the latest {LATEST_KEPT}{routine}), "
                "so memory stays bounded. Counts stay exact.",
                severity="info",
                seen=sampled.seen,
                kept=sampled.kept,
            )
        )
    return sampled.timeline


def _rules(profile: Profile | None, name: str | None, notes: list[Finding]) -> list[Rule]:
    rules: list[Rule] = list(GENERIC_RULES)
    if profile is None:
        return rules
    try:
        rules += list(profile.rules())
    except Exception as exc:
        notes.append(
            note(
                codes.PROFILE_RULES_ERROR,
                f"The {profile.name} rules could not be loaded ({type(exc).__name__}); "
                "only generic rules ran.",
            )
        )
    return [r for r in rules if r.applies_to(name)]


def _target_report(ctx: RuleContext, rules: Sequence[Rule]) -> TargetReport:
    target = ctx.target
    layers = beside_stop(walk(ctx, rules), rules, ctx)
    verdict, first_failed = target_verdict(layers)
    return TargetReport(
        worker=target.worker,
        job=target.job.name if target.job else None,
        job_id=target.job.id if target.job else None,
        reason=target.reason or None,
        verdict=verdict,
        first_failed_layer=first_failed,
        layers=layers,
        acceptance=acceptance.evaluate(ctx.evidence, target, layers, ctx.checklist),
    )


def _order(report: TargetReport) -> tuple[int, int]:
    layer = report.first_failed_layer
    return VERDICT_ORDER[report.verdict], layer.index if layer else len(Layer)


def _bundle_info(
    evidence: EvidenceSet, profile: str | None, integrity: Integrity | None
) -> BundleInfo:
    manifest = evidence.manifest
    checked = integrity or Integrity(
        status="unverified", problems=["checksums were not verified (live or in-memory evidence)"]
    )
    if manifest is None:
        return BundleInfo(profile=profile, integrity=checked)
    failed = []
    for outcome in evidence.collectors:
        if outcome.status is CollectorStatus.OK or outcome.status is CollectorStatus.SKIPPED:
            continue
        why = ": ".join(x for x in (outcome.error_class, outcome.error_message) if x)
        failed.append(f"{outcome.id}: {outcome.status.value}" + (f" ({why})" if why else ""))
    return BundleInfo(
        bundle_id=manifest.bundle_id,
        created_at=manifest.created_at,
        profile=profile or manifest.profile,
        format=manifest.format,
        tool_version=manifest.tool.version,
        integrity=checked,
        collectors_total=len(evidence.collectors),
        collectors_failed=failed,
    )
