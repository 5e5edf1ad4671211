"""Flux fixtures (a real Flux lab) for this test package."""

from tests.support.flux import flux_install, flux_lab, flux_lab_factory

__all__ = ["flux_install", "flux_lab", "flux_lab_factory"]
