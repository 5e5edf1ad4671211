"""Flux-specific ladder rules, one module per concern; ``RULES`` lists them all.

They add what only Flux knowledge can say (eviction history in the server
log, starvation on the in-process runner, slots that live only in SQLite,
401 loops only the worker log shows). Generic rules of the analyzer run
next to them over the same canonical evidence.
"""

from __future__ import annotations

from bundler.analyze.api import Rule

from .authorization import flux_registration
from .capacity import flux_slots
from .claims import flux_release_storm, flux_stale_claims
from .clock import flux_worker_clock
from .control_socket import flux_socket_without_inodes
from .eligible_volumes import flux_eligible_volumes_full, flux_unavailable_volumes_full
from .gauges import flux_untrusted_gauges
from .health import flux_starvation_history
from .heartbeat import flux_worker_heartbeat
from .inapplicable import flux_no_deployment_step, flux_no_requirements_report
from .outcome import flux_last_run, flux_terminal_checkpoint_lost
from .placement import flux_execution_placement
from .server import flux_server_up
from .volume import flux_state_volume

RULES: tuple[Rule, ...] = (
    flux_server_up,
    flux_worker_heartbeat,
    flux_worker_clock,
    flux_socket_without_inodes,
    flux_stale_claims,
    flux_registration,
    flux_execution_placement,
    flux_unavailable_volumes_full,
    flux_no_deployment_step,
    flux_no_requirements_report,
    flux_slots,
    flux_state_volume,
    flux_eligible_volumes_full,
    flux_starvation_history,
    flux_release_storm,
    flux_untrusted_gauges,
    flux_last_run,
    flux_terminal_checkpoint_lost,
)
