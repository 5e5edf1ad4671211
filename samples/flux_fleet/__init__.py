"""A Flux fleet of hundreds of workers: a real Flux server and one emulator process.

The emulator (:mod:`.emulator`, run by the Flux venv's Python) speaks Flux's
own worker protocol to a real Flux server for every worker it plays, so
``GET /workers`` and every per-worker route answer what that many real
workers would produce. :mod:`.spec` says which workers exist and which faults
they carry; :mod:`.fleet` starts the server (through the Flux lab), the
emulator, optionally a few real workers, and the executions that wait.
"""

from .spec import FleetSpec, Role

__all__ = ["FleetSpec", "Role"]
"""``FluxFleet`` lives in :mod:`.fleet` (bundler's side); the emulator's Python never imports it."""
