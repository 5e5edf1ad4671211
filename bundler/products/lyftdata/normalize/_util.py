"""Helpers every LyftData normalizer shares: reading step results, sources, gaps, times."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from schemas.evidence import Source
from schemas.manifest import CollectorStatus

from ....source import MemberNotFound, read_json
from ...base import NormalizeContext, StepResult
from ..plan import build_plan
from ..raw import RAW_MODELS

M = TypeVar("M", bound=BaseModel)

_PATHS = {step.id: step.path for step in build_plan().http_steps()}


@dataclass(frozen=True)
class Fetched:
    """One successful, parsed API response and where it came from."""

    result: StepResult
    data: Any
    _models: dict[type[BaseModel], BaseModel | None] = field(
        default_factory=dict, compare=False, repr=False
    )

    def model(self, cls: type[M]) -> M | None:
        """The response as ``cls``; None when it does not fit (the raw member is kept).

        Memoized: several normalizers read the same response (placement feeds
        jobs and placement), and validating a large fleet twice is the main cost.
        """
        if cls not in self._models:
            try:
                self._models[cls] = cls.model_validate(self.data)
            except ValidationError:
                self._models[cls] = None
        return self._models[cls]  # type: ignore[return-value]

    def source(self, pointer: str = "") -> Source:
        return api_source(self.result, pointer)


def ref_for(result: StepResult) -> str:
    path = _PATHS.get(result.step, result.step)
    with contextlib.suppress(KeyError, IndexError):
        path = path.format(**result.bound)
    return f"GET {path}"


def api_source(result: StepResult, pointer: str = "") -> Source:
    return Source(
        method="api",
        collector=result.collector,
        ref=ref_for(result),
        member=result.member,
        pointer=pointer or None,
    )


_CACHE_ATTR = "_lyftdata_fetched"


def fetched(ctx: NormalizeContext, step: str) -> Iterator[Fetched]:
    """Every OK result of ``step`` (all fan-out expansions), parsed once per context."""
    cache: dict[str, list[Fetched]] = ctx.__dict__.setdefault(_CACHE_ATTR, {})
    if step not in cache:
        cache[step] = list(_fetch(ctx, step))
    return iter(cache[step])


def _fetch(ctx: NormalizeContext, step: str) -> Iterator[Fetched]:
    for result in ctx.results_for(step):
        if result.status is not CollectorStatus.OK or not result.member:
            continue
        try:
            yield Fetched(result, read_json(ctx.source, result.member))
        except (MemberNotFound, ValueError):
            continue


def first(ctx: NormalizeContext, step: str) -> Fetched | None:
    return next(fetched(ctx, step), None)


def model_list(fetch: Fetched | None, schema: str) -> list[tuple[int, Any]]:
    """``(index, model)`` of each valid item of a list response; invalid items are skipped."""
    if fetch is None or not isinstance(fetch.data, list):
        return []
    cls = RAW_MODELS[schema]
    out = []
    for index, item in enumerate(fetch.data):
        try:
            out.append((index, cls.model_validate(item)))
        except ValidationError:
            continue
    return out


def gaps(ctx: NormalizeContext, *steps: str) -> list[str]:
    """Collector ids of ``steps`` that failed (skipped ones are not gaps)."""
    bad = {
        CollectorStatus.FAILED,
        CollectorStatus.TIMEOUT,
        CollectorStatus.REFUSED,
        CollectorStatus.INTERRUPTED,
    }
    return sorted({r.collector for s in steps for r in ctx.results_for(s) if r.status in bad})


def absent(ctx: NormalizeContext, *steps: str) -> list[str]:
    """Collector ids of ``steps`` that were skipped (a 404, no server given): evidence the
    product has but the bundle lacks, so a gap for documents LyftData always has."""
    return sorted(
        {
            r.collector
            for s in steps
            for r in ctx.results_for(s)
            if r.status is CollectorStatus.SKIPPED
        }
    )


def skipped(ctx: NormalizeContext, step: str) -> bool:
    results = ctx.results_for(step)
    return bool(results) and all(r.status is CollectorStatus.SKIPPED for r in results)


def utc(value: datetime | None) -> datetime | None:
    """Raw times may lack an offset (a product bug); treat those as UTC rather than drop them."""
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def labels_dict(labels: list[str]) -> dict[str, str]:
    """LYFTDATA_WORKER_LABELS descriptors: 'key=value' pairs, or plain tags (value '')."""
    out: dict[str, str] = {}
    for label in labels:
        key, _, value = label.partition("=")
        if key.strip():
            out[key.strip()] = value.strip()
    return out


def worker_of_host(ctx: NormalizeContext, alias: str | None) -> str | None:
    return next((h.worker for h in ctx.hosts if h.alias == alias), None)


def host_of_worker(ctx: NormalizeContext, worker: str) -> str | None:
    return next((h.alias for h in ctx.hosts if h.worker == worker), None)
