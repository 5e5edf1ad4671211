"""Generic ladder rules: they read canonical evidence only, so every product gets them.

One module per rung (plus clock skew and worker-local state, which speak for
several rungs); each module lists its rules in ``RULES``. Product rules live
in the product's package and reach the engine through ``Profile.rules()``.
"""

from __future__ import annotations

from ..api import Rule
from . import (
    authorization,
    capacity,
    clock,
    deployment,
    heartbeat,
    local_state,
    outcome,
    placement,
    requirements,
    server,
)

_MODULES = (
    server,
    heartbeat,
    authorization,
    placement,
    deployment,
    requirements,
    capacity,
    outcome,
    clock,
    local_state,
)

GENERIC_RULES: tuple[Rule, ...] = tuple(r for module in _MODULES for r in module.RULES)
"""Every generic rule, in ladder order of its module."""

__all__ = ["GENERIC_RULES"]
