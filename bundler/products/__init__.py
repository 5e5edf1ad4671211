"""Product profiles: all knowledge of one product lives in one subpackage.

``bundler.products.flux`` and ``bundler.products.lyftdata`` each expose a
``PROFILE`` object satisfying :class:`~bundler.products.base.Profile`: what to
collect (a :class:`~bundler.collect.plan.Plan`), how to normalize raw
responses into canonical evidence, how to read the product's logs into the
shared timeline, and the product's own analyzer rules. The engine knows
nothing about any product.
"""

from __future__ import annotations

import importlib

from ..errors import UsageError
from .base import Profile

PROFILES: dict[str, str] = {
    "flux": "bundler.products.flux",
    "lyftdata": "bundler.products.lyftdata",
}


def get_profile(name: str) -> Profile:
    """The profile called ``name``; a one-line UsageError if there is none."""
    module_name = PROFILES.get(name)
    if module_name is None:
        raise UsageError(
            f"unknown profile {name!r}", hint=f"choose one of: {', '.join(sorted(PROFILES))}"
        )
    module = importlib.import_module(module_name)
    profile: Profile = module.PROFILE
    return profile


__all__ = ["PROFILES", "Profile", "get_profile"]
