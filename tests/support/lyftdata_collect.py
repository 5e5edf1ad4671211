"""A minimal stand-in for the collection engine, to test the LyftData profile at component level.

It runs the profile's plan the way the plan contract describes
(``bundler/collect/plan.py``): HTTP GETs with fan-out against the running
simulator (httpx, real sockets), host commands as local subprocesses with the
prepared host's ``bin/`` first on PATH, logs read from the prepared files;
results are laid out like a bundle in a MemorySource. No SSH, redaction or
archive, so normalizer and rule tests stay fast and isolated. The real engine
is exercised through the CLI in ``test_doctor_live.py`` (real sshd) and
``test_end_to_end.py`` (doctor -> sealed bundle -> analyze).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from bundler.analyze.api import EvidenceSet
from bundler.collect.plan import CommandStep, FileStep, HttpStep, LogStep
from bundler.products.base import NormalizeContext, StepResult
from bundler.products.lyftdata import PROFILE
from bundler.source import MemorySource
from schemas.evidence import EvidenceDoc, LogIndex, LogSource
from schemas.manifest import CollectorStatus, HostRole, HostSummary

from .lyftdata_sim import RunningSim


@dataclass
class Collected:
    source: MemorySource
    results: list[StepResult]
    docs: list[EvidenceDoc]
    ctx: NormalizeContext

    def evidence(self) -> EvidenceSet:
        return EvidenceSet(self.source)

    def doc(self, cls: type[EvidenceDoc]) -> Any:
        return next(d for d in self.docs if isinstance(d, cls))


def pointer_get(document: Any, pointer: str) -> Any:
    if pointer in ("", "/"):
        return document
    for part in pointer.lstrip("/").split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        document = document[int(part)] if isinstance(document, list) else document.get(part)
    return document


def _http(
    client: httpx.Client,
    step: HttpStep,
    bound: dict[str, str],
    index: int | None,
    sink: MemorySource,
) -> StepResult:
    member = step.member.format(**bound, index=f"{index:03d}" if index is not None else "")
    collector = f"http.{step.id}" + (f"[{index}]" if index is not None else "")
    try:
        response = client.get(step.path.format(**bound), params=step.params)
    except httpx.HTTPError as exc:
        return StepResult(
            step.id,
            collector,
            CollectorStatus.FAILED,
            bound=bound,
            error_class=type(exc).__name__,
            error_message=str(exc),
        )
    code = response.status_code
    if code == 200:
        sink.add(member, response.content)
        return StepResult(
            step.id, collector, CollectorStatus.OK, member, bound=bound, http_status=code
        )
    status = (
        CollectorStatus.SKIPPED
        if code == 404 and step.optional
        else CollectorStatus.REFUSED
        if code in (401, 403)
        else CollectorStatus.FAILED
    )
    return StepResult(
        step.id,
        collector,
        status,
        bound=bound,
        http_status=code,
        error_class=f"HTTP{code}",
        error_message=f"HTTP {code}",
    )


def _expand(
    step: HttpStep, done: dict[str, list[StepResult]], sink: MemorySource
) -> list[dict[str, str]]:
    assert step.for_each is not None
    out: list[dict[str, str]] = []
    for parent in done.get(step.for_each.step, []):
        if parent.status is not CollectorStatus.OK or parent.member is None:
            continue
        items = pointer_get(json.loads(sink.read_bytes(parent.member)), step.for_each.items)
        for item in items or []:
            keep = all(str(pointer_get(item, k)) in v for k, v in step.for_each.where.items())
            if keep:
                out.append(
                    {var: str(pointer_get(item, p)) for var, p in step.for_each.bind.items()}
                )
    return out[: step.for_each.limit]


def _run_host_step(
    step: CommandStep, host: dict[str, str], alias: str, sink: MemorySource
) -> StepResult:
    variables = {
        "alias": alias,
        "role": "worker",
        "worker": host["worker"],
        "state_dir": host["state_dir"],
    }
    argv = [a.format(**variables) for a in step.argv]
    member = step.member.format(**variables)
    collector = f"ssh.{alias}.{step.id}"
    env = {**os.environ, "PATH": host["bin_dir"] + os.pathsep + os.environ.get("PATH", "")}
    if shutil.which(argv[0], path=env["PATH"]) is None:
        status = CollectorStatus.SKIPPED if step.missing_ok else CollectorStatus.FAILED
        return StepResult(
            step.id,
            collector,
            status,
            host=alias,
            error_class="CommandNotFound",
            error_message=f"{argv[0]}: not installed",
        )
    done = subprocess.run(argv, env=env, capture_output=True, timeout=60, check=False)
    if done.returncode not in step.ok_exit_codes:
        return StepResult(
            step.id,
            collector,
            CollectorStatus.FAILED,
            host=alias,
            exit_code=done.returncode,
            error_class="ExitStatus",
            error_message=done.stderr.decode(errors="replace")[-300:],
        )
    sink.add(member, done.stdout)
    return StepResult(
        step.id, collector, CollectorStatus.OK, member, host=alias, exit_code=done.returncode
    )


def collect(sim: RunningSim, *, token: str | None = None, trust_ca: bool = True) -> Collected:
    """Run the LyftData plan against ``sim`` and normalize, the way doctor will.

    ``trust_ca=False`` leaves the simulator's CA out of the trust store (as a
    client that was never given it).
    """
    sink = MemorySource()
    results: list[StepResult] = []
    done: dict[str, list[StepResult]] = {}
    plan = PROFILE.plan()
    trust = sim.verify if trust_ca else True
    with httpx.Client(
        base_url=sim.url, headers=sim.headers(token), verify=trust, timeout=10
    ) as client:
        for step in plan.http_steps():
            if step.for_each is None:
                step_results = [_http(client, step, {}, None, sink)]
            else:
                step_results = [
                    _http(client, step, bound, i, sink)
                    for i, bound in enumerate(_expand(step, done, sink))
                ]
            done[step.id] = step_results
            results += step_results
    hosts: list[HostSummary] = []
    logs = LogIndex(product="lyftdata")
    for number, host in enumerate(sim.hosts, start=1):
        alias = f"h{number:02d}"
        hosts.append(
            HostSummary(alias=alias, role=HostRole.WORKER, worker=host["worker"], transport="local")
        )
        for step in plan.host_steps():
            if isinstance(step, CommandStep):
                results.append(_run_host_step(step, host, alias, sink))
            elif isinstance(step, LogStep):
                member = f"hosts/{alias}/logs/0.log"
                sink.add(member, Path(host["log_file"]).read_bytes())
                logs.logs.append(
                    LogSource(
                        member=member,
                        host_alias=alias,
                        role="worker",
                        worker=host["worker"],
                        origin="file",
                    )
                )
                results.append(
                    StepResult(step.id, f"ssh.{alias}.logs", CollectorStatus.OK, member, host=alias)
                )
            elif isinstance(step, FileStep):  # pragma: no cover - the plan has none today
                raise NotImplementedError(step.id)
    ctx = NormalizeContext(
        source=sink,
        results=results,
        hosts=hosts,
        observed_at=datetime.now(UTC),
        server_url=sim.url,
        settings={"ca_cert": trust_ca and sim.ca_file is not None},
    )
    docs = list(PROFILE.normalize(ctx))
    for doc in [*docs, logs]:
        sink.add(doc.member_path, doc.model_dump(mode="json"))
    return Collected(sink, results, docs, ctx)
