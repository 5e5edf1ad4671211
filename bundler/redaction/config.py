"""What one ``bundler redact`` run is given and gives back: its configuration (which every pool
worker rebuilds the same redactor from), its outcome, and the media type a file is redacted as.

Kept apart from the run itself (:mod:`.tree`) so the workers (:mod:`.workers`), the request
layer (:mod:`.request`) and the outputs (:mod:`.outputs`) share these without importing the
passes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from redactors import BundleRedactor, Policy, load_rules
from redactors.errors import RulesError
from schemas import RedactionReport

from ..errors import UsageError

Progress = Callable[[str], None] | None
"""Told what the run is doing, a phase at a time (the CLI shows it on a terminal)."""


@dataclass(frozen=True)
class RedactConfig:
    """Everything a worker needs to rebuild the same redactor (picklable)."""

    key: bytes
    handoff_key: bytes
    obfuscate_network: bool = False
    keep_binary: bool = False
    keywords: tuple[str, ...] = ()
    rules_path: str | None = None
    keep_map: bool = False
    seal_password: bytes = field(default=b"", repr=False)
    """A bundle's password, for workers to encrypt members as the zip stores them (empty:
    the coordinator does). It reaches the pool pickled over its pipe, never a file or the
    environment, as the keys above do."""

    def redactor(self) -> BundleRedactor:
        custom = None
        if self.rules_path is not None:
            try:
                custom = load_rules(Path(self.rules_path))
            except RulesError as exc:
                raise UsageError(str(exc)) from None
        policy = Policy(
            obfuscate_network=self.obfuscate_network,
            keep_binary=self.keep_binary,
            keywords=self.keywords,
            custom=custom,
        )
        return BundleRedactor(policy, key=self.key, keep_map=self.keep_map)


@dataclass
class RedactOutcome:
    output: Path
    report: RedactionReport
    files: int
    bytes_in: int
    token_map: dict[str, tuple[str, bytes]] = field(default_factory=dict)
    uncompressed: tuple[str, ...] = ()
    """Bundle members stored uncompressed: they compress past the readers' ratio limit."""


def media_type_for(name: str) -> str:
    return "application/json" if name.lower().endswith(".json") else "text/plain"
