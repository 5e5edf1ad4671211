"""The one way a normalizer reads raw members: documents, fan-outs, list items, gaps.

Both products' normalizers read the same things of one run (the first
document of a step, every document of a fan-out, the records of a JSON list)
and need the same answers beside them: which member to cite, and why a
document is missing. One :class:`RawReader` per normalize run gives them,
parsed and validated once and cached on the reader itself (not on the
context), so every normalizer of the run shares the work.

The collector already validated each raw response against the profile's raw
model when it fetched it, and recorded the outcome on the member's entry
(``MemberEntry.valid``; the manifest carries it, and so does the live
builder). The reader believes that record: a member recorded as not fitting
the model asked for is a gap straight away, without validating it again as a
whole (a list's items are still read one by one, so one bad record does not
hide the rest). Members without a record (no raw schema, older bundles) are
validated here, and a misfit found then is a gap too.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from schemas.evidence import Source
from schemas.manifest import FAILED_STATUSES, CollectorStatus, HostSummary

from ..collect.plan import Plan
from ..source import JsonTooLarge, MemberNotFound, Refused, read_json
from .base import NormalizeContext, StepResult

M = TypeVar("M", bound=BaseModel)


GapReason = Literal["failed", "truncated", "skipped", "invalid", "missing", "refused"]

_UNREAD = object()
_VALIDATED = object()
"""Cached in place of a document once it was read as its model: the JSON itself is not held
(a 1,000-worker bundle's worker documents were ~14 MB of dicts nobody read again)."""


@dataclass(frozen=True)
class Gap:
    """Why one expansion of a step gave no usable document."""

    step: str
    collector: str
    reason: GapReason
    """``failed`` (failed, timed out, refused, interrupted), ``truncated`` (failed because
    its size cap cut it), ``skipped`` (not collected on purpose: a 404 of an optional
    route, nothing to ask), ``invalid`` (stored, but not the JSON its model describes),
    ``refused`` (stored whole, but over the JSON cap a reader parses: unread, so it says
    nothing about the product either way)."""
    detail: str | None = None


@dataclass(frozen=True)
class Read(Generic[M]):
    """One validated record, the step result it came from and where in its member."""

    value: M
    result: StepResult
    pointer: str = ""
    """JSON pointer of the record in its member ("" for the whole document)."""
    ref: str = ""
    """What was asked, e.g. ``GET /api/workers/w1`` (from the plan); the default citation."""

    def source(
        self,
        pointer: str | None = None,
        *,
        ref: str | None = None,
        method: Literal["api", "db"] = "api",
    ) -> Source:
        """A citation of this record; ``pointer`` defaults to the record's own (None if whole)."""
        return Source(
            method=method,
            collector=self.result.collector,
            ref=self.ref if ref is None else ref,
            member=self.result.member,
            pointer=(self.pointer or None) if pointer is None else pointer,
        )


class RawReader:
    """Cached, validated access to one normalize run's raw members (see the module doc)."""

    def __init__(
        self,
        ctx: NormalizeContext,
        raw_models: Mapping[str, type[BaseModel]] | None = None,
        plan: Plan | None = None,
    ) -> None:
        self.ctx = ctx
        self._raw_models = dict(raw_models or {})
        self._paths = {step.id: step.path for step in plan.http_steps()} if plan else {}
        self._documents: dict[str, Any] = {}
        self._models: dict[tuple[str, type[BaseModel]], BaseModel | None] = {}
        self._invalid: dict[str, str] = {}
        """Member -> why it did not read as the model asked for (found by this reader)."""

    # -- step results ------------------------------------------------------------------------

    def results(self, step: str) -> list[StepResult]:
        return self.ctx.results_for(step)

    def result(self, step: str) -> StepResult | None:
        """The step's first result, whatever its outcome (a status says things too)."""
        return next(iter(self.results(step)), None)

    @staticmethod
    def ok(result: StepResult) -> bool:
        return result.status is CollectorStatus.OK and result.member is not None

    # -- members -----------------------------------------------------------------------------

    def text(self, result: StepResult) -> str | None:
        """A successful result's member as text (invalid UTF-8 replaced), else None."""
        if not self.ok(result):
            return None
        try:
            return self.ctx.source.read_bytes(result.member or "").decode("utf-8", "replace")
        except MemberNotFound:
            return None

    def document(self, result: StepResult) -> Any | None:
        """A successful result's member as parsed JSON (once per run), else None."""
        if not self.ok(result):
            return None
        member = result.member or ""
        found = self._documents.get(member, _UNREAD)
        if found is _UNREAD or found is _VALIDATED:
            try:
                found = read_json(self.ctx.source, member)
            except MemberNotFound:
                found = None
            except JsonTooLarge as exc:  # whole, but not read: a gap with a remedy, not bad JSON
                found = None
                labels = (result.collector, result.step)
                self.ctx.refused[member] = Refused(member, exc.size, exc.limit, labels)
            except ValueError as exc:
                found = None
                self._invalid[member] = f"not JSON: {exc}"
            self._documents[member] = found
        return found

    def model(self, result: StepResult, model: type[M]) -> M | None:
        """A result's document as ``model``; None (and a gap) when it does not fit."""
        member = result.member or ""
        key = (member, model)
        if key not in self._models:
            value: BaseModel | None = None
            if self._recorded_invalid(member, model):
                self._invalid.setdefault(member, "did not match its raw model when collected")
            elif (data := self.document(result)) is not None:
                try:
                    value = model.model_validate(data)
                except ValidationError as exc:
                    self._invalid[member] = f"does not match {model.__name__}: {_first(exc)}"
                self._documents[member] = _VALIDATED
            self._models[key] = value
        return self._models[key]  # type: ignore[return-value]

    def _is_document(self, result: StepResult) -> bool:
        """Whether ``result`` stored a JSON document (without reading one validated before)."""
        if self._documents.get(result.member or "") is _VALIDATED:
            return self.ok(result)
        return self.document(result) is not None

    # -- what normalizers ask for ------------------------------------------------------------

    def first(self, step: str, model: type[M]) -> Read[M] | None:
        """The first document of ``step`` as ``model``; None if there is none or it misfits."""
        for result in self.results(step):
            if self._is_document(result):
                value = self.model(result, model)
                return Read(value, result, "", self.ref(result)) if value is not None else None
        return None

    def answered(self, step: str, model: type[M]) -> Read[M] | None:
        """The document a step's *error* answer carried, as ``model``; None if none fits.

        Some products answer a failing probe with their own document: Flux's ``GET
        /health`` says 503 ``{"status": "unhealthy", "database": false}`` when its database
        is down. The collector records that answer as failed (it is not 2xx), yet the body
        it stored whole (and redacted) is the product's own word on why. A body cut by its
        size cap, or over the JSON cap a reader parses, is not read.
        """
        for result in self.results(step):
            member = result.member
            entry = self.ctx.members.get(member or "")
            if result.http_status is None or member is None:
                continue
            if result.status not in FAILED_STATUSES or (entry is not None and entry.truncated):
                continue
            try:
                value = model.model_validate(read_json(self.ctx.source, member))
            except (MemberNotFound, JsonTooLarge, ValueError):  # ValidationError is a ValueError
                continue
            return Read(value, result, "", self.ref(result))
        return None

    def has_document(self, step: str) -> bool:
        """Whether ``step`` stored a JSON document at all (fitting its model or not)."""
        return any(self._is_document(result) for result in self.results(step))

    def items(self, step: str, model: type[M]) -> list[Read[M]]:
        """Every document of a fan-out (one per expansion) that reads as ``model``, in order."""
        found = []
        for result in self.results(step):
            value = self.model(result, model) if self._is_document(result) else None
            if value is not None:
                found.append(Read(value, result, "", self.ref(result)))
        return found

    def listed(self, step: str, model: type[M]) -> list[Read[M]]:
        """The records of ``step``'s JSON list documents, each as ``model`` (misfits skipped)."""
        found: list[Read[M]] = []
        for result in self.results(step):
            data = self.document(result)
            if data is None:
                continue
            member = result.member or ""
            if not isinstance(data, list):
                self._invalid[member] = "not a JSON list"
                continue
            ref = self.ref(result)
            for index, item in enumerate(data):
                try:
                    found.append(Read(model.model_validate(item), result, f"/{index}", ref))
                except ValidationError as exc:  # the first misfit is told: only its message made
                    if member not in self._invalid:
                        self._invalid[member] = f"item {index}: {_first(exc)}"
            self._documents[member] = _VALIDATED
        return found

    def source(self, result: StepResult, pointer: str | None = None) -> Source:
        """The citation of ``result``'s member (``pointer`` into it, if given)."""
        return Source(
            method="api",
            collector=result.collector,
            ref=self.ref(result),
            member=result.member,
            pointer=pointer,
        )

    def ref(self, result: StepResult) -> str:
        """What the step asked, from the plan (``GET /api/workers/w1``); the step id otherwise."""
        path = self._paths.get(result.step, result.step)
        with contextlib.suppress(KeyError, IndexError):
            path = path.format(**result.bound)
        return f"GET {path}"

    def refusal(self, result: StepResult) -> Refused | None:
        """Why ``result``'s member was not read although it is whole, once it was asked for.

        A normalizer that reads "answered, but not the document" as a fact about the
        product (a health probe that said nothing healthy) asks this first: a refused
        member says nothing about the product."""
        return self.ctx.refused.get(result.member or "") if self.ok(result) else None

    def gaps(self, *steps: str) -> list[Gap]:
        """Why each expansion of ``steps`` gave no usable document, in result order.

        Failed, truncated and skipped come from the collectors' outcomes; invalid
        from the collector's validation record, or from this reader once it read it;
        missing when a collector succeeded but its member is not in the bundle (deleted
        from an extracted folder, or a bundle ``verify`` calls partial): that is no
        evidence of absence either; refused from this reader, once it declined to parse
        it (over the JSON cap).
        """
        found = []
        for step in steps:
            for result in self.results(step):
                gap = self._gap(result)
                if gap is not None:
                    found.append(gap)
        return found

    def _gap(self, result: StepResult) -> Gap | None:
        entry = self.ctx.members.get(result.member or "")
        if result.status in FAILED_STATUSES:
            reason: GapReason = "truncated" if entry is not None and entry.truncated else "failed"
            return Gap(result.step, result.collector, reason, result.error_message)
        if result.status is CollectorStatus.SKIPPED:
            return Gap(result.step, result.collector, "skipped", result.error_message)
        member = result.member or ""
        if self.ok(result) and not self.ctx.source.has(member):  # lost after it was written
            return Gap(result.step, result.collector, "missing", "its member is not in the bundle")
        if entry is not None and entry.valid is False:
            return Gap(result.step, result.collector, "invalid", "did not match its raw model")
        refused = self.refusal(result)
        if refused is not None:
            return Gap(result.step, result.collector, "refused", str(refused))
        if member in self._invalid:
            return Gap(result.step, result.collector, "invalid", self._invalid[member])
        return None

    def _recorded_invalid(self, member: str, model: type[BaseModel]) -> bool:
        """The collector validated ``member`` against ``model`` and it did not fit."""
        entry = self.ctx.members.get(member)
        if entry is None or entry.valid is not False or entry.schema_name is None:
            return False
        name = entry.schema_name
        return (self._raw_models.get(name) or self._raw_models.get(name.removesuffix("[]"))) is (
            model
        ) and not name.endswith("[]")

    # -- hosts -------------------------------------------------------------------------------

    def host(self, alias: str | None) -> HostSummary | None:
        return next((h for h in self.ctx.hosts if h.alias == alias), None)

    def worker_of(self, alias: str | None) -> str | None:
        """The worker a host alias runs, if the inventory said."""
        host = self.host(alias)
        return host.worker if host is not None else None

    def alias_of(self, worker: str) -> str | None:
        """The host alias of ``worker``, if the inventory said."""
        return next((h.alias for h in self.ctx.hosts if h.worker == worker), None)


def _first(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = "/".join(str(p) for p in error["loc"])
    return f"/{where}: {error['msg']}"


__all__ = ["Gap", "RawReader", "Read"]
