"""Warnings a worker's host raises, whatever else is wrong in the fleet.

Target selection walks a ladder for each job and worker in trouble (:mod:`.trouble`), and
for every worker only when nothing is. A worker whose host warns (a nearly full state
volume, a skewed clock, a stale control socket) is no trouble by those screens: it is online
and takes work. So beside any other trouble it got no ladder, and its warning was in no
report; and in a large healthy fleet a warned worker past the ladders walked
(:data:`~.engine.MAX_EVALUATED`) left the fleet "healthy" with a warning known.

The rules that judge a worker from its host's evidence alone declare it (``@rule(...,
host=True)``, the product's and the generic ones alike: no code is listed here), and are
asked of every worker before targets are chosen: a few look-ups each, never a ladder. A
worker they warn about is a target after the fleet's trouble (:func:`~.targets.select_targets`),
and a warning that no reported ladder shows is named in one fleet finding,
``HOST_WARNINGS``, workers grouped by code, so the verdict cannot be healthy beside it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from schemas import Citation, Finding, TargetReport

from . import codes
from .api import Rule, RuleContext, Supersedes, make_finding
from .ladder import replaced_findings, run_rule, speaks_for
from .wording import CITED, by_reason

WARNING_SEVERITIES = frozenset({"warn", "fail"})
"""What a host rule's finding must be to make its worker worth a ladder."""

PerWorker = dict[str, list[Finding]]


def host_rules(rules: Iterable[Rule]) -> list[Rule]:
    """The rules that judge a worker from its host's evidence alone (``Rule.host``)."""
    return [r for r in rules if r.host]


def screen(
    contexts: Iterable[RuleContext], rules: Sequence[Rule], supersedes: Supersedes
) -> PerWorker:
    """Each worker's warnings (``ctx.target.worker``), by the host rules alone.

    A rule that breaks answers with ``RULE_ERROR`` (a warning): the worker then gets a ladder,
    which names the bug, rather than a silence that would read as nothing to warn of. A
    product's finding replaces the generic one it supersedes, as on a rung (one cause, one
    warning: Flux's clock skew, not the generic one beside it).
    """
    found: PerWorker = {}
    for ctx in contexts:
        said: list[Finding] = []
        for rule in rules:
            answer = run_rule(rule, ctx)
            if answer is not None:
                said += [f for f in answer.findings if f.severity in WARNING_SEVERITIES]
        replaced = replaced_findings(said, supersedes)
        kept = [f for f in said if id(f) not in replaced]
        if kept and ctx.target.worker is not None:
            found[ctx.target.worker] = kept
    return found


def reasons(warned: Mapping[str, Sequence[Finding]]) -> dict[str, str]:
    """Why each warned worker is a target: ``host warning: FLUX_WORKER_DISK_NEARLY_FULL``."""
    return {
        worker: "host warning: " + ", ".join(dict.fromkeys(f.code for f in findings))
        for worker, findings in warned.items()
    }


def unshown(
    warned: Mapping[str, Sequence[Finding]],
    reports: Sequence[TargetReport],
    supersedes: Supersedes,
) -> PerWorker:
    """The warnings no reported ladder of their worker shows (not walked, or cut from the
    report: a ladder that stopped below the warning's rung shows it where it stopped,
    :mod:`.host_context`, or a finding there says it already, :func:`.ladder.speaks_for`)."""
    shown: dict[str, list[Finding]] = {}
    for report in reports:
        if report.worker is not None:
            said = shown.setdefault(report.worker, [])
            said += [f for layer in report.layers for f in layer.findings]
    hidden: PerWorker = {}
    for worker, findings in warned.items():
        said = shown.get(worker, [])
        codes_shown = {f.code for f in said}
        left = [
            f
            for f in findings
            if f.code not in codes_shown and not any(speaks_for(s, f, supersedes) for s in said)
        ]
        if left:
            hidden[worker] = left
    return hidden


def fleet_note(hidden: Mapping[str, Sequence[Finding]]) -> list[Finding]:
    """``HOST_WARNINGS``: the workers whose host warnings no ladder below shows, grouped by
    code (eight named a group, the rest counted; every name in ``details``), citing the first
    piece of evidence of a few of them."""
    if not hidden:
        return []
    per_worker = {w: list(dict.fromkeys(f.code for f in fs)) for w, fs in hidden.items()}
    count = len(per_worker)
    noun = "worker" if count == 1 else "workers"
    evidence: list[Citation] = [
        finding.evidence[0]
        for findings in list(hidden.values())[:CITED]
        for finding in findings[:1]
        if finding.evidence
    ]
    return [
        make_finding(
            codes.HOST_WARNINGS,
            "warn",
            f"{count} {noun} with host warnings that no ladder below shows: "
            f"{by_reason(per_worker)}. Each is its worker's own (its host's clock, disk or "
            "control socket), whatever else is wrong; analyze with --worker NAME for its "
            "ladder, evidence and recovery.",
            evidence=evidence,
            workers=per_worker,
        )
    ]


__all__ = ["fleet_note", "host_rules", "reasons", "screen", "unshown"]
