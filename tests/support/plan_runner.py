"""A minimal stand-in for the collect engine: run a profile's Plan into a MemorySource.

INTEGRATION POINT: this exists only until ``bundler doctor`` (branch
``collect``) lands; the Flux scenario tests then run the real CLI instead.
It follows the plan contract (``bundler/collect/plan.py``) literally — HTTP
GETs with httpx, fan-outs, optional 404s, host steps run locally with their
templates, skipped when a variable is missing — and lays members out like a
bundle, with ``evidence/logs.json``. It does no redaction, no concurrency, no
size caps: it is a test double, not a collector.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from bundler.collect.inventory import HostSpec, Inventory
from bundler.collect.plan import CommandStep, FileStep, HttpStep, LogStep, Plan
from bundler.products.base import NormalizeContext, StepResult
from bundler.source import MemorySource
from schemas.evidence import LogIndex, LogSource
from schemas.manifest import CollectorStatus, HostSummary


@dataclass
class Collected:
    source: MemorySource
    results: list[StepResult] = field(default_factory=list)
    hosts: list[HostSummary] = field(default_factory=list)
    observed_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    server_url: str | None = None

    def context(self) -> NormalizeContext:
        return NormalizeContext(
            source=self.source,
            results=self.results,
            hosts=self.hosts,
            observed_at=self.observed_at,
            server_url=self.server_url,
        )


def _pointer(document: Any, pointer: str) -> Any:
    for part in [p for p in pointer.split("/") if p]:
        document = document[int(part)] if isinstance(document, list) else document[part]
    return document


def run_http(plan: Plan, base_url: str, collected: Collected, token: str | None) -> None:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    documents: dict[str, Any] = {}
    with httpx.Client(base_url=base_url, timeout=10.0, headers=headers) as client:
        for step in plan.http_steps():
            expansions: list[dict[str, str]] = [{}]
            if step.for_each is not None:
                parent = documents.get(step.for_each.step)
                items = _pointer(parent, step.for_each.items) if parent is not None else []
                expansions = [
                    {var: str(_pointer(item, ptr)) for var, ptr in step.for_each.bind.items()}
                    | {"index": f"{i:03d}"}
                    for i, item in enumerate(items[: step.for_each.limit])
                ]
            for bound in expansions:
                result = _get(client, step, bound, collected)
                collected.results.append(result)
                keep = result.status is CollectorStatus.OK and not step.for_each
                if keep and step.media_type == "application/json":
                    documents[step.id] = json.loads(
                        collected.source.read_bytes(result.member or "")
                    )


def _get(
    client: httpx.Client, step: HttpStep, bound: dict[str, str], collected: Collected
) -> StepResult:
    member = step.member.format(**bound)
    base = {"step": step.id, "collector": f"http.{step.id}", "bound": bound}
    try:
        response = client.get(step.path.format(**bound), params=step.params)
    except httpx.HTTPError as exc:
        return StepResult(
            **base,
            status=CollectorStatus.FAILED,
            error_class=type(exc).__name__,
            error_message=str(exc),
        )
    if response.status_code == 404 and step.optional:
        return StepResult(**base, status=CollectorStatus.SKIPPED, http_status=404)
    if response.status_code != 200:
        status = CollectorStatus.REFUSED if response.status_code in (401, 403) else None
        return StepResult(
            **base,
            status=status or CollectorStatus.FAILED,
            http_status=response.status_code,
            error_class="HTTPStatusError",
            error_message=f"HTTP {response.status_code}",
        )
    collected.source.add(member, response.content)
    return StepResult(**base, status=CollectorStatus.OK, member=member, http_status=200)


def host_vars(host: HostSpec, alias: str) -> dict[str, str]:
    variables = {"alias": alias, "role": host.role.value}
    if host.worker:
        variables["worker"] = host.worker
    if host.state_dir:
        variables["state_dir"] = host.state_dir
    return variables | host.vars


def run_hosts(plan: Plan, inventory: Inventory, collected: Collected) -> None:
    index = LogIndex()
    for number, host in enumerate(inventory.hosts, 1):
        alias = f"h{number:02d}"
        collected.hosts.append(
            HostSummary(
                alias=alias,
                address=host.address,
                role=host.role,
                worker=host.worker,
                transport="local",
            )
        )
        variables = host_vars(host, alias)
        for step in plan.host_steps():
            if host.role not in step.roles:
                continue
            base = {"step": step.id, "collector": f"local.{alias}.{step.id}", "host": alias}
            if isinstance(step, LogStep):
                for log_index, spec in enumerate(host.logs):
                    member = step.member.format(**variables, log_index=f"{log_index:02d}")
                    data = Path(spec.file or "").read_bytes()
                    collected.source.add(member, data)
                    collected.results.append(
                        StepResult(**base, status=CollectorStatus.OK, member=member)
                    )
                    index.logs.append(
                        LogSource(
                            member=member,
                            host_alias=alias,
                            role=host.role.value,
                            worker=host.worker,
                            origin="file",
                            lines=data.count(b"\n"),
                        )
                    )
                continue
            try:
                member = step.member.format(**variables)
                if isinstance(step, FileStep):
                    result = _file(step, step.path.format(**variables), member, collected)
                else:
                    argv = [a.format(**variables) for a in step.argv]
                    cwd = step.cwd.format(**variables) if step.cwd else None
                    result = _command(step, argv, cwd, member, collected)
            except KeyError as missing:
                result = StepResult(
                    step=step.id,
                    collector="",
                    status=CollectorStatus.SKIPPED,
                    error_message=f"no variable {missing}",
                )
            collected.results.append(
                StepResult(**base | {k: v for k, v in result.__dict__.items() if k not in base})
            )
    collected.source.add(LogIndex.member_path, index.model_dump(mode="json"))


def _file(step: FileStep, path: str, member: str, collected: Collected) -> StepResult:
    try:
        collected.source.add(member, Path(path).read_bytes())
    except FileNotFoundError:
        status = CollectorStatus.SKIPPED if step.missing_ok else CollectorStatus.FAILED
        return StepResult(step=step.id, collector="", status=status, error_class="FileNotFound")
    return StepResult(step=step.id, collector="", status=CollectorStatus.OK, member=member)


def _command(
    step: CommandStep, argv: list[str], cwd: str | None, member: str, collected: Collected
) -> StepResult:
    """Like the engine: a failed exit keeps stdout if any and records stderr's last line."""
    try:
        done = subprocess.run(
            argv, cwd=cwd, capture_output=True, timeout=step.timeout_s or 30,
            env=os.environ | {"LC_ALL": "C"}, check=False,
        )  # fmt: skip
    except FileNotFoundError:
        status = CollectorStatus.SKIPPED if step.missing_ok else CollectorStatus.FAILED
        return StepResult(step=step.id, collector="", status=status, error_class="NotInstalled")
    except subprocess.TimeoutExpired:
        return StepResult(
            step=step.id, collector="", status=CollectorStatus.TIMEOUT, error_class="Timeout"
        )
    ok = done.returncode in step.ok_exit_codes
    stderr = [ln.strip() for ln in done.stderr.decode(errors="replace").splitlines() if ln.strip()]
    error = None if ok else f"exit {done.returncode}: {stderr[-1] if stderr else ''}".rstrip(": ")
    kept = member if done.stdout or ok else None
    if kept:
        collected.source.add(member, done.stdout)
    return StepResult(
        step=step.id, collector="", status=CollectorStatus.OK if ok else CollectorStatus.FAILED,
        member=kept, exit_code=done.returncode, error_class=None if ok else "CommandFailed",
        error_message=error,
    )  # fmt: skip


def collect(
    plan: Plan, *, server_url: str, inventory: Inventory, token: str | None = None
) -> Collected:
    """Run ``plan`` against a live server and this machine's hosts, like ``doctor --local``."""
    collected = Collected(source=MemorySource(), server_url=server_url)
    run_http(plan, server_url, collected, token)
    run_hosts(plan, inventory, collected)
    collected.observed_at = datetime.now(UTC)
    return collected
