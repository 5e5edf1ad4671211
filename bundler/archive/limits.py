"""Safety limits for reading bundles, which are hostile input.

Defaults suit real bundles (a large fleet yields thousands of members and a
few GiB of logs) while refusing zip bombs and resource exhaustion. Every limit
can be raised per process with an environment variable, so all reading
commands (``inspect``, ``verify``, ``extract``, ``analyze``, ``review``) honour
the same knobs without each growing four flags::

    BUNDLER_MAX_MEMBERS=100000
    BUNDLER_MAX_TOTAL_BYTES=20GiB
    BUNDLER_MAX_MEMBER_BYTES=8GiB
    BUNDLER_MAX_RATIO=200

The cap on one JSON document a reader parses, ``BUNDLER_MAX_JSON_BYTES``, is not
here: it holds for every source (an extracted directory too), so it lives beside
:func:`bundler.source.read_json`, which applies it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields

from ..errors import UsageError
from ..sizes import parse_size
from ..source import max_json_bytes

GiB = 1 << 30
MiB = 1 << 20

ENV_PREFIX = "BUNDLER_"


@dataclass(frozen=True)
class ReaderLimits:
    """What a bundle may contain before the reader refuses it.

    ``ratio_floor`` exempts members up to 16 MiB from the ratio check: short
    stretches of repeated log lines legitimately compress past 200:1, and a
    small member cannot be a bomb because the reader never inflates past a
    member's declared size (the total stays capped by ``max_total_bytes``).
    """

    max_members: int = 100_000
    max_total_bytes: int = 20 * GiB
    max_member_bytes: int = 8 * GiB
    max_ratio: float = 200.0
    ratio_floor: int = 16 * MiB
    max_manifest_bytes: int = 64 * MiB

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ReaderLimits:
        """Defaults, overridden by ``BUNDLER_MAX_*`` variables (sizes accept KiB/MiB/GiB).

        ``BUNDLER_MAX_JSON_BYTES`` is checked here too, though :func:`~bundler.source.read_json`
        applies it: a malformed one is refused as the bundle is opened, with the others,
        not halfway through an analysis."""
        env = os.environ if environ is None else environ
        max_json_bytes(env)
        values: dict[str, float | int] = {}
        for spec in fields(cls):
            var = ENV_PREFIX + spec.name.upper()
            raw = env.get(var)
            if raw is None or raw.strip() == "":
                continue
            values[spec.name] = _parse_limit(var, raw, is_ratio=spec.name == "max_ratio")
        return cls(**values)  # type: ignore[arg-type]


def _parse_limit(var: str, raw: str, *, is_ratio: bool) -> float | int:
    if is_ratio:
        try:
            value = float(raw)
        except ValueError:
            value = -1.0
        if value <= 0:
            raise UsageError(f"{var} must be a positive number (got {raw.strip()[:40]!r})")
        return value
    return parse_size(var, raw)
