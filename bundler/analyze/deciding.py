"""What an unknown was missing, and how to decide it: the evidence to collect and the option.

An unknown that only says "unknown" sends the engineer back to guess. The
engine records which evidence documents a rule read (``EvidenceSet.tracking``);
when the answer is unknown, every one of them that is absent, unusable or
incomplete is named (``Finding.missing``: the member, or the collectors that
failed), with the ``doctor`` option or inventory entry that collects it
(``Finding.to_decide``). A product may say it more exactly
(``Profile.collection_hints``: member path -> text; a key ending in ``:`` names a family
of gaps, e.g. Flux's ``registration:`` + worker). A document that was collected but is
incomplete only for gaps that have hints of their own is not "to collect" again: its
gaps say what is missing (a worker the server refused is missing from a worker list
doctor did read, and running doctor with an API token changes nothing). A member that is
in the bundle but over a reader's limit (``EvidenceSet.refused``) needs no collecting: it is named
after the gap it left, and the hint is the setting that reads it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from schemas import Finding, Layer
from schemas.evidence import (
    AuthorizationEvidence,
    CapacityEvidence,
    DeploymentEvidence,
    EvidenceDoc,
    HostsEvidence,
    JobsEvidence,
    LocalStateEvidence,
    LogIndex,
    OutcomeEvidence,
    PlacementEvidence,
    RequirementsEvidence,
    ServerEvidence,
    WorkersEvidence,
)

from ..sizes import human_size
from ..source import Refused
from .api import EvidenceSet

SERVER = "run `bundler doctor` with `--server URL` and an API token that can read it"
HOSTS = (
    "give the worker host in the `--inventory` file (role: worker, its `worker:` name and "
    "`state_dir:`), so doctor collects it over SSH"
)

GENERIC_HINTS: dict[str, str] = {
    ServerEvidence.member_path: f"{SERVER} (the control plane's health and version)",
    WorkersEvidence.member_path: f"{SERVER} (the worker list)",
    AuthorizationEvidence.member_path: f"{SERVER} (each worker's runtime authorization)",
    JobsEvidence.member_path: f"{SERVER} (the job list)",
    PlacementEvidence.member_path: f"{SERVER} (the job's placement report)",
    DeploymentEvidence.member_path: f"{SERVER} (the job's deployment records)",
    RequirementsEvidence.member_path: f"{SERVER} (the job's runtime-requirements report)",
    CapacityEvidence.member_path: f"{SERVER} (each worker's capacity report)",
    OutcomeEvidence.member_path: f"{SERVER} (canary runs and their receipts)",
    LocalStateEvidence.member_path: f"{HOSTS}: its local state directory",
    LogIndex.member_path: f"{HOSTS} with a `logs:` entry, to collect its log",
    HostsEvidence.member_path: f"{HOSTS}: its system facts and clock",
}

LAYER_DOCUMENTS: dict[Layer, tuple[type[EvidenceDoc], ...]] = {
    Layer.SERVER: (ServerEvidence,),
    Layer.HEARTBEAT: (WorkersEvidence,),
    Layer.AUTHORIZATION: (AuthorizationEvidence,),
    Layer.PLACEMENT: (PlacementEvidence, JobsEvidence),
    Layer.DEPLOYMENT: (DeploymentEvidence,),
    Layer.REQUIREMENTS: (RequirementsEvidence,),
    Layer.CAPACITY: (CapacityEvidence, WorkersEvidence),
    Layer.OUTCOME: (OutcomeEvidence, JobsEvidence),
}
"""The documents that answer each rung, for a rung on which no rule said anything."""


def shortfalls(evidence: EvidenceSet, read: Iterable[type[EvidenceDoc]]) -> list[str]:
    """Members among ``read`` that are absent, unusable or incomplete, and the failed collectors
    (each followed by the member a reader refused, when that is why)."""
    refused_by = {label: r.member for r in evidence.refused.values() for label in r.labels}
    missing: list[str] = []
    for cls in read:
        doc = evidence.get(cls)
        if doc is None:
            missing.append(cls.member_path)
        elif not doc.complete or doc.gaps:
            missing.append(cls.member_path)
            for gap in doc.gaps:
                behind = refused_by.get(gap)
                missing += [said for said in (gap, behind) if said and said not in missing]
    return missing


def _hint(member: str, hints: Mapping[str, str]) -> str | None:
    """The hint for ``member``: its own, else its gap family's (the label up to ``:``)."""
    found = hints.get(member)
    if found is None and ":" in member:
        found = hints.get(member.split(":", 1)[0] + ":")
    return found


def explained(
    evidence: EvidenceSet,
    read: Iterable[type[EvidenceDoc]],
    hints: Mapping[str, str] | None = None,
) -> set[str]:
    """Members among ``read`` that were collected, and are incomplete only for gaps each
    with a hint of its own: what to do is the gaps' hints, not collecting them again."""
    merged = {**GENERIC_HINTS, **(hints or {})}
    found: set[str] = set()
    for cls in read:
        doc = evidence.get(cls)
        if doc is not None and doc.gaps and all(_hint(g, merged) for g in doc.gaps):
            found.add(cls.member_path)
    return found


def how_to_decide(
    missing: list[str],
    hints: Mapping[str, str] | None = None,
    refused: Mapping[str, Refused] | None = None,
    collected: Iterable[str] = (),
) -> str | None:
    """One sentence: what collects the first missing member (product hints win).

    A member over a reader's limit comes first, with the setting that reads it: the
    evidence is in the bundle, and collecting it again would only refuse it again. A
    member in ``collected`` (see :func:`explained`) gets no hint of its own: its gaps'
    hints follow it."""
    merged = {**GENERIC_HINTS, **(hints or {})}
    collected = set(collected)
    refused = refused or {}
    said: list[str] = [
        f"analyze again with {over.remedy} ({over.member} is over the "
        f"{human_size(over.limit)} JSON cap)"
        for member in missing
        if (over := refused.get(member)) is not None
    ]
    unread = {label for over in refused.values() for label in over.labels}
    for member in missing:
        if member in unread:  # its collector did complete: the gap is the refusal above
            continue
        if said and member.startswith("evidence/"):  # the refusal is what it lacks, not a run
            continue
        if member in collected:
            continue
        hint = _hint(member, merged)
        if hint is None and member.startswith("http."):
            hint = f"{SERVER} (collector {member} did not complete)"
        elif hint is None and member.startswith(("ssh.", "local.")):
            alias = member.split(".")[1]
            hint = f"make host {alias} reachable (collector {member} did not complete)"
        if hint and hint not in said:
            said.append(hint)
    if not said:
        return None
    return "To decide it: " + "; ".join(said[:3]) + "."


def annotate(
    findings: list[Finding],
    evidence: EvidenceSet,
    read: Iterable[type[EvidenceDoc]],
    hints: Mapping[str, str] | None = None,
) -> None:
    """Fill ``missing`` and ``to_decide`` of the unknowns (info findings) that lack them."""
    read = list(read)
    missing = shortfalls(evidence, read)
    collected = explained(evidence, read, hints)
    for finding in findings:
        if finding.severity != "info":
            continue
        if not finding.missing:
            finding.missing = list(missing)
        if finding.to_decide is None:
            finding.to_decide = how_to_decide(finding.missing, hints, evidence.refused, collected)
