"""The Flux lab: a real Flux server and workers on 127.0.0.1, with real faults injected.

Used by the test suite (``tests/support/flux.py``), the demo and the sample
regeneration (``python -m samples.flux_lab``). See :mod:`.lab` for the layout,
:mod:`.faults` for the injectors (:mod:`.host_faults`: a full disk, a clock off)
and :mod:`.scenarios` for the nine scenarios.
"""

from .config import LabConfig, Timings, WorkerSpec
from .lab import FluxLab, LabError
from .venv import FluxInstall, FluxUnavailable, find_flux

__all__ = [
    "FluxInstall",
    "FluxLab",
    "FluxUnavailable",
    "LabConfig",
    "LabError",
    "Timings",
    "WorkerSpec",
    "find_flux",
]
