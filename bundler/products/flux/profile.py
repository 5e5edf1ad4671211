"""The Flux profile object: everything ``doctor`` and ``analyze`` need to know about Flux."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import cache

from pydantic import BaseModel

from bundler.analyze.api import EvidenceSet, Rule, TimelineEvent
from bundler.analyze.catalog import Catalog
from bundler.analyze.checklist import Checklist
from bundler.analyze.codes import (
    AUTHORIZATION_DENIED,
    CANARY_FAILED,
    CANARY_PASSED,
    CLOCK_SKEW,
    JOB_RUN_FAILED,
    NO_FINISHED_RUN,
    NO_MATCHING_WORKER,
    REGISTRATION_REJECTED,
    SERVER_UNREACHABLE,
    SLOTS_SATURATED,
    WORKER_HEARTBEAT_LOST,
    WORKER_HEARTBEAT_STALE,
    WORKER_HEARTBEAT_UNDATED,
    WORKER_NOT_IN_EVIDENCE,
    WORKER_OFFLINE,
    WORKER_UNHEALTHY,
)
from bundler.collect.plan import Plan
from bundler.collect.readonly import ProgramRule
from bundler.products.base import NormalizeContext
from schemas import Recovery
from schemas.evidence import EvidenceDoc, OutcomeEvidence

from . import codes
from .acceptance import FLUX_CHECKLIST
from .logs import parse_logs
from .models import RAW_MODELS
from .normalize import normalize
from .plan import build_plan
from .routes import MUTATING_ROUTES
from .rules import RULES


class FluxProfile:
    """Flux (flux-core 0.87): open-source workflow engine with outbound-only workers."""

    name = "flux"
    title = "Flux"
    token_env = "FLUX_AUTH_TOKEN"  # noqa: S105 (the variable's name, not a secret)
    default_server_url = "http://localhost:8000"
    mutating_routes: tuple[str, ...] = MUTATING_ROUTES
    raw_models: Mapping[str, type[BaseModel]] = RAW_MODELS

    @property
    def read_only_commands(self) -> Mapping[str, ProgramRule]:
        """Product CLI calls the engine's read-only guard may allow: ``flux worker status``.

        It only asks the worker's control socket for its state (``pause``,
        ``resume`` and ``cancel-all`` are the writes, and are not listed).
        """
        return {"flux": ProgramRule(subcommands=(("worker", "status"),))}

    def plan(self) -> Plan:
        return _plan()

    def replay_commands(self, url: str, captured: Sequence[tuple[str, str]]) -> list[str]:
        """Flux CLI lines to try against ``bundler serve`` (optional profile attribute)."""
        from .replay import replay_commands

        return replay_commands(url, captured)

    def normalize(self, ctx: NormalizeContext) -> Sequence[EvidenceDoc]:
        return normalize(ctx)

    def parse_logs(self, evidence: EvidenceSet) -> Iterable[TimelineEvent]:
        return parse_logs(evidence)

    def rules(self) -> Sequence[Rule]:
        return RULES

    finding_codes: Catalog = codes.FLUX_CODES
    """Flux's own finding codes (rungs, titles, recovery ids)."""

    acceptance_checklist: Checklist = FLUX_CHECKLIST
    """Recovery acceptance in Flux's terms: no check of a concept Flux does not have."""

    supersedes: Mapping[str, str | tuple[str, ...]] = {
        codes.FLUX_SERVER_UNREACHABLE: SERVER_UNREACHABLE,
        codes.FLUX_HEARTBEAT_NOT_READ: WORKER_HEARTBEAT_UNDATED,
        # The server's "Worker connected" line within heartbeat_timeout dates the worker's
        # last sign of life when Flux has not persisted a heartbeat for it yet.
        codes.FLUX_WORKER_FRESHLY_CONNECTED: WORKER_HEARTBEAT_UNDATED,
        # A worker back after a hang, heard from (connected, claiming work) within
        # heartbeat_timeout, whose persisted heartbeat is still the one before the hang.
        codes.FLUX_WORKER_HEARD_SINCE_HEARTBEAT: (WORKER_HEARTBEAT_STALE, WORKER_HEARTBEAT_LOST),
        # At DEBUG the server logs each heartbeat it hears ("Pong received from worker"):
        # the latest line dates the last one where no persisted heartbeat was read.
        codes.FLUX_HEARTBEAT_LOGGED: WORKER_HEARTBEAT_UNDATED,
        # A worker STALE and already listed offline (the server closed its stream), or
        # offline and said how: the generic "offline, find out why before restarting it"
        # beside Flux's "cut off by the network: do not restart it" gave two answers.
        codes.FLUX_HEARTBEAT_STALE: (WORKER_HEARTBEAT_UNDATED, WORKER_OFFLINE),
        codes.FLUX_WORKER_OFFLINE: WORKER_OFFLINE,
        # The generic authorization texts speak of leases and enrollment keys, which Flux has
        # not: its own finding names the token and its repair.
        codes.FLUX_BOOTSTRAP_TOKEN_INVALID: (AUTHORIZATION_DENIED, REGISTRATION_REJECTED),
        # The same for a 401 (anonymous writes refused): Flux's finding names the policy.
        codes.FLUX_REGISTRATION_REJECTED: (AUTHORIZATION_DENIED, REGISTRATION_REJECTED),
        # "Not in the worker list; collect it with an API token" is wrong for a worker whose
        # log shows it never registered: the list was read, the worker is not in it.
        codes.FLUX_WORKER_CANNOT_REACH_SERVER: WORKER_NOT_IN_EVIDENCE,
        codes.FLUX_WORKER_NEVER_REGISTERED: WORKER_NOT_IN_EVIDENCE,
        # "Read the failed run's error and fix its cause": the cause is known, a full disk.
        codes.FLUX_WORKER_DISK_FULL: (JOB_RUN_FAILED, CANARY_FAILED),
        # A failed execution, said once, in Flux's words: the generic rule said it twice more
        # beside Flux's finding, once under a canary's code, with a canary's recovery.
        codes.FLUX_EXECUTION_FAILED: (JOB_RUN_FAILED, CANARY_FAILED),
        codes.FLUX_LAST_RUN_FAILED: CANARY_FAILED,
        # "The last run of ... succeeded" beside "the last run of ... completed": one run, said
        # once. Both pass, so the rung and its acceptance check read as before (a pass
        # replaced by a pass; the checklist judges the run by the rung and its failure codes).
        codes.FLUX_LAST_RUN_SUCCEEDED: CANARY_PASSED,
        # "No canary or finished run of ...": Flux's says "no finished run" without a canary.
        codes.FLUX_NO_FINISHED_RUN: NO_FINISHED_RUN,
        # The host's clock reading and the runs' stamps say one thing: keep Flux's words.
        codes.FLUX_WORKER_CLOCK_SKEW: CLOCK_SKEW,
        # "Unassigned although w1 could take it and has free slots": the slots cannot run it,
        # every eligible worker's state volume is full. And the candidate's own full volume
        # (a host warning, shown on the rung where its ladder stopped) is one of those it
        # names, each df line cited: said once (another worker's volume is not replaced).
        codes.FLUX_ELIGIBLE_VOLUMES_FULL: (
            codes.FLUX_DISPATCH_PENDING,
            codes.FLUX_WORKER_DISK_NEARLY_FULL,
        ),
        # The same fact twice, the generic one in fewer words (found reading the samples as a
        # first-time reader): each Flux finding here fails, so the rung's status cannot drop.
        codes.FLUX_WORKER_EVICTED: WORKER_OFFLINE,
        codes.FLUX_WORKER_UNHEALTHY: WORKER_UNHEALTHY,
        codes.FLUX_SLOTS_SATURATED: SLOTS_SATURATED,
        codes.FLUX_NO_ELIGIBLE_WORKER: NO_MATCHING_WORKER,
    }
    """Flux's finding that replaces the generic one(s) on the same rung (one cause, one
    finding)."""

    collection_hints: Mapping[str, str] = {
        # the normalizer's gap for a worker the inventory runs and the list (read) lacks
        "registration:": "let the worker register with the server first (the runtime-"
        "authorization rung says why it has not, or its log why it never reached the "
        "server), then run `bundler doctor` again: a worker the server never listed has no "
        "heartbeat to read",
        # The generic hint asks for "canary runs and their receipts": Flux's runs are its
        # finished executions (the API), and each workflow's exact last run (SQLite).
        OutcomeEvidence.member_path: "run `bundler doctor --profile flux --server URL` "
        "(FLUX_AUTH_TOKEN set where the server asks for one) to read the finished executions "
        "(`GET /executions?state=COMPLETED` and `?state=FAILED`), with the server host's "
        "`db_path` in the `--inventory` file for each workflow's last run (`db-last-runs`)",
    }
    """What decides an unknown that lacks one of Flux's own gaps or documents (the engine's
    hints name the evidence documents in no product's words)."""

    missing_documents: Mapping[str, str] = {
        # "(canaries, receipts, last runs)": Flux has neither of the first two.
        OutcomeEvidence.member_path: "The bundle has no outcome document (each workflow's "
        "last finished run): whether the last run completed is unknown.",
    }
    """Flux's words for an absent document (the code stays the generic one)."""

    @property
    def recovery_paths(self) -> Mapping[str, Recovery]:
        """Flux's own wording of generic recovery paths (Worker observability, as observed)."""
        from .recovery_paths import RECOVERY_PATHS

        return RECOVERY_PATHS


@cache
def _plan() -> Plan:
    return build_plan()
