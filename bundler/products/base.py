"""What a product profile provides. One object per product, all data and small functions.

Optional attribute (read with ``getattr``, so profiles without it still
satisfy :class:`Profile`): ``read_only_commands: Mapping[str,
bundler.collect.readonly.ProgramRule]`` declares the product CLI's read-only
subcommands (e.g. ``{"flux": ProgramRule(subcommands=(("worker", "list"),))}``)
so plan steps may run it; without it, only the engine's built-in read-only
programs are allowed (see :mod:`bundler.collect.readonly`).

A second optional attribute, ``replay_commands(url, captured) -> list[str]``,
gives ``bundler serve`` the product CLI lines worth trying against a replayed
bundle (``captured``: the (path, query) of every route with a body); without
it, serve suggests ``curl`` lines.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from pydantic import BaseModel

from schemas.evidence import EvidenceDoc
from schemas.manifest import HostSummary

from ..analyze.api import EvidenceSet, Rule, TimelineEvent
from ..analyze.catalog import Catalog
from ..collect.plan import Plan
from ..collect.results import StepResult
from ..source import MemberSource, Refused

__all__ = ["NormalizeContext", "Profile", "RecordedMember", "StepResult"]


class RecordedMember(Protocol):
    """What a normalizer reads of a member's record: the manifest's
    :class:`~schemas.MemberEntry` when re-deriving, the run's compact row live."""

    @property
    def schema_name(self) -> str | None: ...

    @property
    def truncated(self) -> bool: ...

    @property
    def valid(self) -> bool | None: ...


@dataclass
class NormalizeContext:
    """Everything a profile's normalizer may read: raw members and step outcomes.

    Normalizers read members through one :class:`bundler.products.raw.RawReader`
    per run, which also answers why a document is missing.
    """

    source: MemberSource
    results: list[StepResult]
    hosts: list[HostSummary]
    observed_at: datetime
    server_url: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    members: Mapping[str, RecordedMember] = field(default_factory=dict)
    """What was recorded about each stored member (path -> entry): whether it validated
    against its raw model when collected, whether it was truncated. From the manifest
    when re-deriving, from the builder in a live run; empty when unknown."""
    refused: dict[str, Refused] = field(default_factory=dict)
    """Members the run's reader declined to parse, over the JSON cap (member -> why), filled
    as it reads: their documents list them as gaps, and whoever ran the normalizer (analyze's
    re-derivation, doctor's live run) names each one, its size and the limit."""

    _by_step: dict[str, list[StepResult]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _indexed: int = field(default=-1, init=False, repr=False, compare=False)

    def results_for(self, step: str) -> list[StepResult]:
        """The results of ``step``, in collection order.

        Indexed by step (again whenever ``results`` grew): normalizers ask per step and
        per fan-out, and scanning every result for each question took 15 s of a
        1,000-host analysis.
        """
        if self._indexed != len(self.results):
            self._by_step = {}
            for result in self.results:
                self._by_step.setdefault(result.step, []).append(result)
            self._indexed = len(self.results)
        return list(self._by_step.get(step, ()))


class Profile(Protocol):
    name: str
    title: str
    token_env: str
    """Environment variable the product's own CLI reads its API token from."""
    default_server_url: str | None
    mutating_routes: tuple[str, ...]
    """Path templates that change state even if they look safe (e.g. Flux's GET
    /workers/{name}/connect); a test proves no plan step ever matches one."""
    raw_models: Mapping[str, type[BaseModel]]
    """Raw schema name (``HttpStep.schema_name``) -> pydantic model of the product's
    response. Every raw record is validated against it when collected; an invalid
    record is kept and flagged (``MemberEntry.valid = False``), never dropped. A
    name ending in ``[]`` validates a JSON list of that model."""
    finding_codes: Catalog
    """The product's own finding codes (``products/<name>/codes.py``), each declared once;
    its rules report those and generic ones (:mod:`bundler.analyze.codes`)."""

    def plan(self) -> Plan: ...

    def normalize(self, ctx: NormalizeContext) -> Sequence[EvidenceDoc]: ...

    def parse_logs(self, evidence: EvidenceSet) -> Iterable[TimelineEvent]: ...

    def rules(self) -> Sequence[Rule]: ...
