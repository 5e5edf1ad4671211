"""One entry listed twice in placement, requirements, deployments or local state, disagreeing.

:mod:`.contradictions` finds a *worker* listed twice. The documents a target's
upper rungs read hold entries of their own, each with an identity
(:data:`KEYS`): a job's placement report (by job) and its verdict for each
worker (by worker), a runtime-requirements report (by job and worker) and each
requirement in it (by id), a run in the job list (by id), a deployment record
(by deployment id) and each job deployment in it (by job and worker), a local
state file or control socket (by worker and path, whichever host alias read it;
a host's own by host alias and path), the volume under a worker's state directory,
its blocks and inodes as ``df`` counted them (by worker, whichever host alias read
it; a host's own by host alias).
A rule looks an entry up by that identity and takes the first match (the
product's placement verdict), or judges every match and lets the worst win
(a report that reads ``satisfied`` and again ``blocked``). Either way two
records of one entry that disagree decide the rung by list order, or by the
record that suits the rule. So such records are a :class:`Dispute` like a
worker's, judged in :mod:`.readings`: the rung is read once per record, and
stands only if every reading gives the same answer; otherwise it is unknown
with ``EVIDENCE_RECORDS_CONFLICT``, citing each record where it differs.

Records equal but for where they were read (``source``, at any depth: the
same deployment listed twice points at two places in the raw list) are one
fact, listed twice: no dispute. Only entries the target's ladder can read are
looked at (its job, the workers it names and their hosts), so a duplicate
elsewhere in the fleet does not multiply every target's readings.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel

from schemas import Citation, Finding, Layer
from schemas.evidence import (
    ControlSocket,
    DeploymentEvidence,
    DeploymentRecord,
    EvidenceDoc,
    Job,
    JobDeployment,
    JobPlacement,
    JobsEvidence,
    LocalStateEvidence,
    PlacementEvidence,
    Requirement,
    RequirementsEvidence,
    StateFileCheck,
    StateVolume,
    WorkerPlacementVerdict,
)

from . import codes
from .api import EvidenceSet, RuleContext, make_finding
from .contradictions import ENTRY_DOUBTED, IGNORED, Dispute, readings_verdict, spell
from .facts import cite_source, host_for_worker, job_label, pointer, worker_records

T = TypeVar("T")
Path = tuple[str | int, ...]


@dataclass(frozen=True)
class Listed:
    """One list of entries: its path in the document, the entry holding it (None for a
    top-level list), its items."""

    at: Path
    owner: Any
    items: Sequence[Any]


@dataclass(frozen=True)
class Keyed:
    """Entries of one list of a document, and what makes two of them the same entry."""

    document: type[EvidenceDoc]
    lists: Callable[[EvidenceDoc], Iterable[Listed]]
    """Each list of such entries in the document."""
    key: Callable[[Any], Hashable | None]
    """The entry's identity; None: it has none (never the same as another)."""
    reads: Callable[[Any, Any, Scope], bool]
    """Whether the target's ladder reads this entry (the entry, what holds it, the scope)."""
    named: Callable[[Any, Any], str]
    """The entry as a finding names it (the entry, what holds it)."""
    read_at: frozenset[str] = frozenset()
    """Fields that say where a record was read, not what it says (besides ``source``):
    records that differ only there are one fact."""


@dataclass(frozen=True)
class Scope:
    """What a target's ladder reads: its job, the workers it names, those workers' hosts."""

    job: str | None
    workers: frozenset[str]
    hosts: frozenset[str]

    def owns(self, worker: str | None, host: str | None) -> bool:
        """A local entry of one of the named workers (by name, else by the host it is on)."""
        if worker is not None:
            return worker in self.workers
        return host is not None and host in self.hosts


def scope(ctx: RuleContext, names: Iterable[str]) -> Scope:
    """The target's scope: ``names`` are the workers it names (:func:`.readings.named`)."""
    ev = ctx.evidence
    workers = frozenset(names)
    hosts = {w.host_alias for n in workers for _, w in worker_records(ev, n) if w.host_alias}
    hosts |= {found[1].alias for n in workers if (found := host_for_worker(ev, n)) is not None}
    job = ctx.target.job.name if ctx.target.job else None
    return Scope(job, workers, frozenset(hosts))


def _top(field: str) -> Callable[[EvidenceDoc], Iterable[Listed]]:
    return lambda doc: [Listed((field,), None, getattr(doc, field))]


def _verdicts(doc: EvidenceDoc) -> Iterable[Listed]:
    assert isinstance(doc, PlacementEvidence)
    for index, placement in enumerate(doc.placements):
        yield Listed(("placements", index, "per_worker"), placement, placement.per_worker)


def _job_deployments(doc: EvidenceDoc) -> Iterable[Listed]:
    assert isinstance(doc, DeploymentEvidence)
    for index, record in enumerate(doc.deployments):
        yield Listed(("deployments", index, "job_deployments"), record, record.job_deployments)


def _requirements(doc: EvidenceDoc) -> Iterable[Listed]:
    assert isinstance(doc, RequirementsEvidence)
    for index, report in enumerate(doc.reports):
        yield Listed(("reports", index, "requirements"), report, report.requirements)


def _deploys(record: Any, scope: Scope) -> bool:
    return any(jd.job == scope.job or jd.worker in scope.workers for jd in record.job_deployments)


def placement_key(placement: JobPlacement) -> str:
    """A product's placement report is of one job."""
    return placement.job


def verdict_key(verdict: WorkerPlacementVerdict) -> str:
    """A placement report's verdict is on one worker."""
    return verdict.worker


def job_key(job: Job) -> str | None:
    """A job (an execution) is one run, by its id; without one it is no other's: two runs of a
    job may share a name (:func:`~.facts.undated_job_rivals` tells them apart by id too)."""
    return job.id or None


def requirement_key(requirement: Requirement) -> str:
    """A report's requirement is one check, by its id."""
    return requirement.id


def local_key(entry: StateFileCheck | ControlSocket) -> tuple[str, str | None, str]:
    """A local state file or control socket: of its worker, at its path, whichever host
    alias read it (an inventory that lists a host twice collects it under two aliases:
    the same file, read twice); a host's own (no worker), by host alias and path."""
    if entry.worker is not None:
        return ("worker", entry.worker, entry.path)
    return ("host", entry.host_alias, entry.path)


def volume_key(volume: StateVolume) -> tuple[str, str | None]:
    """The volume under a worker's state directory: one per worker, whichever host alias read
    it (a host listed twice has ``df`` read twice: one volume, counted twice, and counts that
    differ are a contradiction, not a second volume); a host's own (no worker) by its alias.
    Not by mount: two records of one worker naming two mounts disagree on where it writes."""
    if volume.worker is not None:
        return ("worker", volume.worker)
    return ("host", volume.host_alias)


def _volumes(doc: EvidenceDoc) -> Iterable[Listed]:
    assert isinstance(doc, LocalStateEvidence)
    return [Listed(("volumes",), None, doc.volumes or [])]  # None: not read (older bundles)


def deployment_key(record: DeploymentRecord) -> str | None:
    """A deployment record is one deployment, by its id (without one, it is no other's)."""
    return record.deployment_id


def job_deployment_key(jd: JobDeployment) -> tuple[str | None, str, str]:
    """One job deployed to one worker, by one deployment."""
    return (jd.deployment_id, jd.job, jd.worker)


READ_AT_HOST = frozenset({"host_alias"})
"""A worker's local entry names the host alias it was read under: where, not what."""
READ_AT_VOLUME = READ_AT_HOST | {"inodes_source"}
"""A volume also says where its inode counts were read (``df -P -i``), beside ``source``."""

KEYS: tuple[Keyed, ...] = (
    Keyed(
        PlacementEvidence,
        _top("placements"),
        placement_key,
        lambda p, _, s: p.job == s.job,
        lambda p, _: f"The placement report of {p.job}",
    ),
    Keyed(
        PlacementEvidence,
        _verdicts,
        verdict_key,
        # every verdict on the job counts: "no worker is eligible" reads them all
        lambda v, placement, s: placement.job == s.job,
        lambda v, placement: f"The placement verdict of {placement.job} on worker {v.worker}",
    ),
    Keyed(
        RequirementsEvidence,
        _top("reports"),
        lambda r: (r.job, r.worker),
        lambda r, _, s: r.job == s.job,
        lambda r, _: f"The runtime-requirements report of {r.job} on {r.worker}",
    ),
    Keyed(
        RequirementsEvidence,
        _requirements,
        requirement_key,
        lambda q, report, s: report.job == s.job,
        lambda q, report: f"Requirement {q.id} of {report.job} on {report.worker}",
    ),
    Keyed(
        JobsEvidence,
        _top("jobs"),
        job_key,
        # the target's run, and the other runs of its job its outcome is weighed against
        lambda j, _, s: j.name == s.job,
        lambda j, _: f"Job {job_label(j)}",
    ),
    Keyed(
        DeploymentEvidence,
        _top("deployments"),
        deployment_key,
        lambda d, _, s: _deploys(d, s),
        lambda d, _: f"Deployment {d.deployment_id}",
    ),
    Keyed(
        DeploymentEvidence,
        _job_deployments,
        job_deployment_key,
        lambda jd, _, s: jd.job == s.job or jd.worker in s.workers,
        lambda jd, _: f"The deployment of {jd.job} on {jd.worker}",
    ),
    Keyed(
        LocalStateEvidence,
        _top("files"),
        local_key,
        lambda f, _, s: s.owns(f.worker, f.host_alias),
        lambda f, _: f"The local state file {f.path} of {f.worker or f.host_alias}",
        READ_AT_HOST,
    ),
    Keyed(
        LocalStateEvidence,
        _top("sockets"),
        local_key,
        lambda c, _, s: s.owns(c.worker, c.host_alias),
        lambda c, _: f"The control socket {c.path} of {c.worker or c.host_alias}",
        READ_AT_HOST,
    ),
    Keyed(
        LocalStateEvidence,
        _volumes,
        volume_key,
        lambda v, _, s: s.owns(v.worker, v.host_alias),
        lambda v, _: f"The volume under the state directory of {v.worker or v.host_alias}",
        READ_AT_VOLUME,
    ),
)
"""Every list of entries with an identity, outside the per-worker documents."""


def entry_disputes(ev: EvidenceSet, where: Scope) -> list[Dispute]:
    """Each entry the target's ladder reads that is listed more than once, its records
    disagreeing (in document, then list order: the same whichever record comes first)."""
    found: list[Dispute] = []
    for keyed, listed, records in _listed_twice(ev):
        read = [(i, item) for i, item in records if keyed.reads(item, listed.owner, where)]
        said = [item for _, item in read]
        differ = leaf_disagreement(said, keyed.read_at) if len(read) > 1 else {}
        if differ:
            subject = keyed.named(read[0][1], listed.owner)
            found.append(Dispute(keyed.document, read, differ, at=listed.at, subject=subject))
    return found


Twice = tuple[Keyed, Listed, list[tuple[int, Any]]]


def _listed_twice(ev: EvidenceSet) -> list[Twice]:
    """Every entry listed more than once (alike or not), found once per evidence set: each
    target then looks only at those, not at every entry of every document."""
    if "listed_twice" not in ev.memo:
        found: list[Twice] = []
        for keyed in KEYS:
            doc = ev.document(keyed.document)  # looked at for contradictions: not evidence read
            for listed in keyed.lists(doc) if doc is not None else []:
                groups: dict[Hashable, list[tuple[int, Any]]] = {}
                for index, item in enumerate(listed.items):
                    if (key := keyed.key(item)) is not None:
                        groups.setdefault(key, []).append((index, item))
                found += [(keyed, listed, same) for same in groups.values() if len(same) > 1]
        ev.memo["listed_twice"] = found
    listed_twice: list[Twice] = ev.memo["listed_twice"]
    return listed_twice


def leaf_disagreement(
    records: Sequence[BaseModel], read_at: frozenset[str] = frozenset()
) -> dict[str, list[Any]]:
    """Leaf path (``job_deployments/0/state``) -> each record's value, where they differ.

    Compared leaf by leaf, so a message can say *what* differs in a nested record, and
    ``source`` is left out at every depth (where a record was read is not what it says).
    An empty list that another record fills is named by the other's leaves, not as ``[]``.
    """
    ignored = IGNORED | read_at
    flat = [_leaves(record.model_dump(mode="json"), ignored=ignored) for record in records]
    paths = list(dict.fromkeys(path for leaves in flat for path in leaves))
    deeper = {p.rsplit("/", n)[0] for p in paths for n in range(1, p.count("/") + 1)}
    return {
        path: [leaves.get(path) for leaves in flat]
        for path in paths
        if path not in deeper
        and len({json.dumps(leaves.get(path), sort_keys=True) for leaves in flat}) > 1
    }


def _leaves(value: Any, path: str = "", ignored: frozenset[str] = IGNORED) -> dict[str, Any]:
    """Every leaf of a dumped record by its path; ``source`` (and ``ignored``) left out at
    every depth."""
    if isinstance(value, dict) and value:
        items = [(str(k), v) for k, v in value.items() if k not in ignored]
    elif isinstance(value, list) and value:
        items = [(str(i), v) for i, v in enumerate(value)]
    else:
        return {path: value}
    found: dict[str, Any] = {}
    for key, item in items:
        found.update(_leaves(item, f"{path}/{key}" if path else key, ignored))
    return found


def entry_conflict(
    ev: EvidenceSet, dispute: Dispute, layer: Layer, outcomes: Sequence[str] = ()
) -> Finding:
    """The ``EVIDENCE_RECORDS_CONFLICT`` finding of ``layer`` for one disputed entry: every
    record cited where the records first differ, and what each gives there and on the rung.

    ``outcomes`` are the rung's status in each reading; as many as the entry has records
    only when it is the one dispute, each reading then reading one record, in order.
    """
    member = dispute.document.member_path
    records = [pointer(*dispute.at, index) for index, _ in dispute.records]
    each = None
    if outcomes and len(outcomes) == len(records):
        each = " and ".join(f"{o} by {at}" for o, at in zip(outcomes, records, strict=True))
    verdict = readings_verdict(layer, outcomes, each, ENTRY_DOUBTED)
    details: dict[str, Any] = {
        "document": member,
        "records": records,
        "disagree": list(dispute.differ),
    }
    if outcomes:
        details["outcomes"] = list(outcomes)
    return make_finding(
        codes.EVIDENCE_RECORDS_CONFLICT,
        "info",
        f"{dispute.subject} is listed {len(records)} times in {member} and its records "
        f"disagree ({spell(dispute.differ)}): {verdict} Which record comes first proves "
        "nothing; collect the bundle again.",
        evidence=_cite_records(ev, dispute, records),
        **details,
    )


def _cite_records(ev: EvidenceSet, dispute: Dispute, records: Sequence[str]) -> list[Citation]:
    """Each record at the first field the records differ on (the record itself, when it has
    no such field), then the product's own answer it was read from, once."""
    field, values = next(iter(dispute.differ.items()))
    cited: list[Citation] = []
    for (_, record), at, value in zip(dispute.records, records, values, strict=True):
        has = field in _leaves(record.model_dump(mode="json"))
        cited.append(ev.cite(dispute.document, f"{at}/{field}" if has else at, _text(value)))
        raw = cite_source(getattr(record, "source", None))
        if raw is not None and raw not in cited:
            cited.append(raw)
    return cited


def _text(value: Any) -> str | None:
    return value if value is None or isinstance(value, str) else json.dumps(value, sort_keys=True)


def in_agreed_order(items: Sequence[T], key: Callable[[T], Hashable | None]) -> list[T]:
    """``items`` with the records of each entry (same ``key``) in one order, whatever the
    list's: for *choosing* what to look at (targets, their reasons), never to decide a rung.

    The records of an entry keep the places the entry holds in the list, filled in the
    order of their content, so a list and the one with those records swapped read alike.
    """
    slots: dict[Hashable, list[int]] = {}
    for index, item in enumerate(items):
        found = key(item)
        if found is not None:
            slots.setdefault(found, []).append(index)
    ordered = list(items)
    for places in slots.values():
        if len(places) > 1:
            content = sorted((items[i] for i in places), key=_content)
            for place, item in zip(places, content, strict=True):
                ordered[place] = item
    return ordered


def _content(item: Any) -> str:
    """What a record says, without where it was read (its sources go with it when swapped)."""
    dumped = item.model_dump(mode="json") if isinstance(item, BaseModel) else item
    return json.dumps(_leaves(dumped), sort_keys=True, default=str)


__all__ = [
    "KEYS",
    "Keyed",
    "Listed",
    "Scope",
    "deployment_key",
    "entry_conflict",
    "entry_disputes",
    "in_agreed_order",
    "job_deployment_key",
    "job_key",
    "leaf_disagreement",
    "local_key",
    "placement_key",
    "requirement_key",
    "scope",
    "verdict_key",
    "volume_key",
]
