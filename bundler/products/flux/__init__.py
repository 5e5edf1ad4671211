"""The Flux profile: what to collect from a Flux fleet and how to read it.

Flux (PyPI ``flux-core``) is the product bundler can run for real; every
fact here was checked against a running Flux 0.87.5 (see
``samples/flux_lab``). Modules: :mod:`.plan` (what to collect), :mod:`.models`
(raw responses), :mod:`.normalize` (raw -> canonical evidence), :mod:`.logs`
(log lines -> timeline), :mod:`.rules` (Flux-specific ladder rules),
:mod:`.routes` (routes never to call).
"""

from __future__ import annotations

from .profile import FluxProfile

PROFILE = FluxProfile()

__all__ = ["PROFILE", "FluxProfile"]
