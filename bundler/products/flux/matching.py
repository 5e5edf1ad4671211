"""Which workers may take an execution, by Flux's own dispatch rules.

Mirrors ``flux.domain.resource_request.ResourceRequest`` (0.87): a worker is
eligible when it carries every affinity label with the same value, has at
least the requested CPU, memory and disk *available*, enough GPUs with
memory left (unreadable GPU memory counts as available), every requested
package (``name``, ``name>=v``, ``name==v``), and — when the execution is
pinned — is the required worker. It must also be connected, healthy and not
paused to be dispatched to. Each reason names the unmet requirement and what
the worker has instead, which is what an operator needs to act.

The reasons are the analyzer's shared :class:`~bundler.analyze.matching.Mismatch`
records, and availability is the shared one in Flux's words: only the dispatch
rules themselves are Flux knowledge.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from bundler.analyze.codes import (
    CPU_INSUFFICIENT,
    DISK_INSUFFICIENT,
    GPU_INSUFFICIENT,
    MEMORY_INSUFFICIENT,
    WORKER_UNHEALTHY,
)
from bundler.analyze.contradictions import Settled, settled
from bundler.analyze.matching import Mismatch
from bundler.analyze.matching import availability as shared_availability
from bundler.analyze.wording import counted
from schemas.evidence import Job, JobRequirements, ResourceRequest, WorkerStatus

UNITS = {"K": 1, "M": 2, "G": 3, "T": 4, "P": 5}
STARVED = "worker reports event-loop starvation"
"""What an unhealthy Flux worker means: its event loop is starved (lag over the threshold)."""


def memory_bytes(value: object) -> float | None:
    """Flux's memory notation ('4Gi', '512M', 1073741824) in bytes."""
    if value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    text = str(value).strip()
    number = ""
    for char in text:
        if not (char.isdigit() or char == "."):
            break
        number += char
    if not number:
        return None
    unit = text[len(number) :].strip()
    power = UNITS.get(unit[:1], 0) if unit[1:] in ("", "i") else 0
    return float(number) * 1024**power


def label_mismatches(wanted: dict[str, str], labels: dict[str, str]) -> list[Mismatch]:
    found = []
    for key, value in wanted.items():
        if labels.get(key) != value:
            has = f"{key}={labels[key]}" if key in labels else f"no {key} label"
            found.append(
                Mismatch("LABEL_MISMATCH", f"labels/{key}", f"{key}={value}", f"worker has {has}")
            )
    return found


def _version_tuple(version: str) -> tuple[int, ...]:
    parts = []
    for piece in version.split("."):
        digits = "".join(c for c in piece if c.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


def package_mismatches(packages: list[str], worker: WorkerStatus) -> list[Mismatch]:
    have = {p.name.lower(): p.version or "" for p in worker.packages or []}
    found = []
    for spec in packages:
        for operator in (">=", "=="):
            if operator in spec:
                name, version = (s.strip() for s in spec.split(operator, 1))
                break
        else:
            name, operator, version = spec.strip(), "", ""
        got = have.get(name.lower())
        ok = got is not None and (
            not operator
            or (operator == "==" and got == version)
            or (operator == ">=" and _version_tuple(got) >= _version_tuple(version))
        )
        if not ok:
            detail = "not installed" if got is None else f"has {name} {got}"
            found.append(
                Mismatch(
                    "PACKAGE_MISSING", f"packages/{name}", f"package {spec}", f"worker {detail}"
                )
            )
    return found


def resource_mismatches(request: ResourceRequest, worker: WorkerStatus) -> list[Mismatch]:
    res = worker.resources
    found = []
    checks = (
        (CPU_INSUFFICIENT, "cpu", request.cpu, res.cpu_available if res else None, ""),
        (
            MEMORY_INSUFFICIENT,
            "memory",
            request.memory_bytes,
            res.memory_available_bytes if res else None,
            " bytes",
        ),
        (
            DISK_INSUFFICIENT,
            "disk",
            request.disk_bytes,
            res.disk_free_bytes if res else None,
            " bytes",
        ),
    )
    for code, name, wanted, available, unit in checks:
        if wanted is not None and (available is None or available < wanted):
            shown = "unknown" if available is None else f"{available:g}{unit}"
            found.append(
                Mismatch(
                    code,
                    f"resources/{name}",
                    f"{name}={wanted:g}",
                    f"worker has {shown} available",
                    certain=available is not None,
                )
            )
    if request.gpu:
        gpus = [g for g in (res.gpus if res else None) or [] if g.memory_available != 0]
        if len(gpus) < request.gpu:
            found.append(
                Mismatch(
                    GPU_INSUFFICIENT,
                    "resources/gpu",
                    f"gpu={request.gpu}",
                    f"worker has {counted(len(gpus), 'GPU')}",
                )
            )
    packages = request.other.get("packages") or []
    if isinstance(packages, list):
        found += package_mismatches([str(p) for p in packages], worker)
    return found


def availability(worker: WorkerStatus) -> list[Mismatch]:
    """The shared availability reasons, in Flux's words: unhealthy means a starved event loop."""
    return [
        replace(m, detail=STARVED, message="") if m.code == WORKER_UNHEALTHY else m
        for m in shared_availability(worker)
    ]


def mismatches(requirements: JobRequirements | None, worker: WorkerStatus) -> list[Mismatch]:
    """Every static reason ``worker`` cannot run a job with these requirements."""
    if requirements is None:
        return []
    found = label_mismatches(requirements.labels, worker.labels)
    if requirements.resources is not None:
        found += resource_mismatches(requirements.resources, worker)
    pinned = requirements.required_worker
    if pinned and pinned != worker.name:
        found.append(
            Mismatch("NOT_PINNED_WORKER", "required_worker", f"worker={pinned}", "pinned elsewhere")
        )
    return found


def ready_for(job: Job, workers: Sequence[WorkerStatus]) -> Settled:
    """The workers that may run ``job`` and can take work now, asked of every record of each:
    a worker listed twice counts only when all of its records agree (:func:`settled`)."""
    return settled(
        list(enumerate(workers)),
        lambda w: not mismatches(job.requirements, w) and not availability(w),
    )
