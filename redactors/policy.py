"""What to redact beyond the built-in catalog: the options of one redaction run."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .rules import Rule
from .stream import CHUNK, OVERLAP
from .walklimits import STRUCTURE_MAX

if TYPE_CHECKING:
    from .custom import CustomRules


@dataclass(frozen=True)
class Policy:
    """Options of a redaction run. Defaults are what ``bundler doctor`` uses."""

    obfuscate_network: bool = False
    """Pseudonymize IPs, MACs, hostnames and usernames consistently (kept by default)."""
    keep_binary: bool = False
    """Keep binary members unredacted instead of leaving them out (recorded in the report)."""
    keywords: tuple[str, ...] = ()
    """Extra literal words redacted everywhere, case-insensitively (``--keyword``)."""
    custom: CustomRules | None = None
    known_hosts: tuple[str, ...] = ()
    """Host names the caller knows (inventory); pseudonymized everywhere with the network."""
    max_decode_depth: int = 3
    chunk_size: int = CHUNK
    overlap: int = OVERLAP
    structure_max: int = STRUCTURE_MAX
    """The largest JSON/YAML/TOML member parsed for values under secret keys; each format has
    its own cap at or below it (:mod:`.walklimits`). Lower only in tests: a member over it is
    redacted by the line rules alone (the report says so) and ``bundler review`` rejects it."""
    extra_rules: tuple[Rule, ...] = field(default_factory=tuple)

    def keyword_rules(self, more: tuple[str, ...] = ()) -> list[Rule]:
        rules = list(self.extra_rules)
        words = (*self.keywords, *more)
        for index, word in enumerate(dict.fromkeys(k.strip() for k in words if k.strip())):
            rules.append(
                Rule(
                    f"keyword-{index + 1}",
                    "keyword",
                    "custom",
                    "A --keyword value (case-insensitive).",
                    re.escape(word.lower().encode()),
                    lower=True,
                    source="keyword",
                )
            )
        return rules
