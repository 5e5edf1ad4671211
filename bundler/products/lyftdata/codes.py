"""LyftData's own finding codes, declared once and registered by the profile.

LyftData's rules mostly report generic codes (:mod:`bundler.analyze.codes`) with
LyftData's own recovery text; this is what only LyftData says.
"""

from __future__ import annotations

from schemas import Layer

from ...analyze.catalog import Catalog

LYFTDATA_CODES = Catalog("lyftdata")

METRICS_NOT_ENABLED = LYFTDATA_CODES.declare(
    "METRICS_NOT_ENABLED",
    Layer.CAPACITY,
    "worker metrics off: capacity unmeasured",
    "enable-metrics",
)
