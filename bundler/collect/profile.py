"""What the collection engine reads of a product profile, and nothing more.

``collect`` may not import ``bundler.products`` (the engine knows no product), so
it states its side of the contract as a protocol that every
:class:`bundler.products.base.Profile` satisfies structurally. The optional
``read_only_commands`` attribute is read with ``getattr``
(:func:`bundler.collect.readonly.profile_rules`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from pydantic import BaseModel


class EngineProfile(Protocol):
    name: str
    mutating_routes: tuple[str, ...]
    """Path templates no request may match, even when they look safe."""
    raw_models: Mapping[str, type[BaseModel]]
    """Raw schema name -> the model every raw record is validated against when collected."""
