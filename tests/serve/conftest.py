"""Real Flux labs for the serve tests (the same fixtures tests/flux uses)."""

from tests.support.flux import flux_install, flux_lab_factory

__all__ = ["flux_install", "flux_lab_factory"]
