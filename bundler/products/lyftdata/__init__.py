"""LyftData: everything bundler knows about it, behind one ``PROFILE``.

LyftData is commercial and its support surface is mostly unpublished, so the
API contract bundler expects is written down in ``openapi.yaml`` with the
provenance of every part ([S] sourced, [B] named by LyftData's serviceability
page, [I] inferred); see docs/lyftdata-contract.md. Tests run against the
simulator in ``samples/lyftdata_sim``.
"""

from __future__ import annotations

from .profile import PROFILE, LyftDataProfile

__all__ = ["PROFILE", "LyftDataProfile"]
