"""A small product profile for engine tests: fan-out, an optional 404, raw models, host steps.

Defined here, not in the package: it is a test double for the real profiles
(``bundler.products.flux`` / ``lyftdata``), exercising every plan feature.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import ClassVar

from pydantic import BaseModel

from bundler.analyze.api import EvidenceSet, Rule, TimelineEvent
from bundler.collect.plan import CommandStep, FileStep, ForEach, HttpStep, LogStep, Plan
from bundler.collect.readonly import ProgramRule
from bundler.products.base import NormalizeContext
from bundler.products.raw import RawReader
from schemas.evidence import EvidenceDoc, ProductInfo


class Health(BaseModel):
    status: str
    version: str


class Worker(BaseModel):
    name: str
    status: str


class Config(BaseModel):
    port: int


PLAN = Plan(
    profile="testprod",
    steps=[
        HttpStep(id="health", path="/health", member="raw/http/health.json", schema_name="Health"),
        HttpStep(
            id="workers", path="/workers", member="raw/http/workers.json", schema_name="Worker[]"
        ),
        HttpStep(
            id="worker",
            path="/workers/{name}",
            for_each=ForEach(step="workers", bind={"name": "/name"}),
            member="raw/http/workers/{index}.json",
            schema_name="Worker",
        ),
        HttpStep(
            id="metrics",
            path="/metrics",
            media_type="text/plain",
            optional=True,
            absent_note="observability off",
            member="raw/http/metrics.txt",
        ),
        CommandStep(id="uname", argv=["uname", "-s"], member="hosts/{alias}/uname.txt"),
        CommandStep(
            id="state-ls", argv=["ls", "-1"], cwd="{state_dir}", member="hosts/{alias}/state-ls.txt"
        ),
        FileStep(
            id="config",
            path="{state_dir}/config.json",
            media_type="application/json",
            schema_name="Config",
            member="hosts/{alias}/config.json",
        ),
        LogStep(id="logs"),
    ],
)


class SampleProfile:
    name = "testprod"
    title = "Test product"
    token_env = "TESTPROD_TOKEN"
    default_server_url: str | None = None
    mutating_routes = ("/workers/{name}/connect", "/admin/secrets*")
    raw_models: ClassVar[dict[str, type[BaseModel]]] = {
        "Health": Health,
        "Worker": Worker,
        "Config": Config,
    }
    read_only_commands: ClassVar[dict[str, ProgramRule]] = {
        "testctl": ProgramRule(subcommands=(("status",),))
    }

    def __init__(self, plan: Plan = PLAN) -> None:
        self._plan = plan

    def plan(self) -> Plan:
        return self._plan

    def normalize(self, ctx: NormalizeContext) -> Sequence[EvidenceDoc]:
        reader = RawReader(ctx, self.raw_models)
        health = reader.first("health", Health)
        failed = [gap.collector for gap in reader.gaps("health") if gap.reason != "invalid"]
        return [
            ProductInfo(
                name=self.name,
                server_version=health.value.version if health is not None else None,
                observed_at=ctx.observed_at,
                complete=not failed,
                gaps=failed,
            )
        ]

    def parse_logs(self, evidence: EvidenceSet) -> Iterable[TimelineEvent]:
        return []

    def rules(self) -> Sequence[Rule]:
        return []


PROFILE = SampleProfile()
