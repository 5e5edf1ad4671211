"""The LyftData profile object: plan, raw models, normalizer, log parser and rules."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from pydantic import BaseModel

from schemas import Recovery
from schemas.evidence import EvidenceDoc

from ...analyze.api import EvidenceSet, Rule, TimelineEvent
from ...analyze.catalog import Catalog
from ...analyze.checklist import LADDER_CHECKLIST, Checklist
from ...collect.plan import Plan
from ...collect.readonly import ProgramRule
from ..base import NormalizeContext
from .codes import LYFTDATA_CODES
from .plan import MUTATING_ROUTES, PROFILE_NAME, build_plan
from .raw import RAW_MODELS

TOKEN_ENV = "LYFTDATA_API_TOKEN"  # noqa: S105 (a variable name, not a secret)
"""Our choice [I]: LyftData documents LYFTDATA_URL and JWT bearer auth, not a token variable."""

DEFAULT_SERVER_URL = "https://127.0.0.1:3000"
"""Default bind address 127.0.0.1:3000, HTTPS by default [S]."""


class LyftDataProfile:
    name = PROFILE_NAME
    title = "LyftData"
    token_env = TOKEN_ENV
    default_server_url: str | None = DEFAULT_SERVER_URL
    mutating_routes: tuple[str, ...] = MUTATING_ROUTES
    raw_models: Mapping[str, type[BaseModel]] = RAW_MODELS
    finding_codes: Catalog = LYFTDATA_CODES
    """LyftData's own finding codes; its rules report generic ones too."""
    acceptance_checklist: Checklist = LADDER_CHECKLIST
    """The guide's "Recovery acceptance", its seven checks (the ladder's own checklist)."""

    @property
    def read_only_commands(self) -> Mapping[str, ProgramRule]:
        """The product's own read-only commands, for the collection engine's guard."""
        from .read_only import read_only_commands

        return read_only_commands()

    @property
    def recovery_paths(self) -> Mapping[str, Recovery]:
        """LyftData's wording of every generic recovery path, each citing its guide.

        The generic texts name no product (its commands, variables or guide), so every path
        a LyftData finding reaches is supplied here, in the guide's words where it has them.
        """
        from .guide_paths import guide_paths

        return guide_paths()

    @property
    def requirement_repairs(self) -> Mapping[str, str]:
        """The guide's own words for each runtime-requirements blocker's repair."""
        from .guide_paths import REQUIREMENT_REPAIRS

        return REQUIREMENT_REPAIRS

    @property
    def collection_hints(self) -> Mapping[str, str]:
        """How to collect each evidence member, for an unknown that lacks it."""
        from .hints import COLLECTION_HINTS

        return COLLECTION_HINTS

    def plan(self) -> Plan:
        return build_plan()

    def replay_commands(self, url: str, captured: Sequence[tuple[str, str]]) -> list[str]:
        """``curl`` lines to try against ``bundler serve`` (optional profile attribute)."""
        from .replay import replay_commands

        return replay_commands(url, captured)

    def normalize(self, ctx: NormalizeContext) -> Sequence[EvidenceDoc]:
        from .normalize import normalize

        return normalize(ctx)

    def parse_logs(self, evidence: EvidenceSet) -> Iterable[TimelineEvent]:
        from .logs import parse_logs

        return parse_logs(evidence)

    def rules(self) -> Sequence[Rule]:
        from .rules import RULES

        return RULES


PROFILE = LyftDataProfile()
