"""LyftData's own recovery paths for product findings, with LyftData's commands.

The facts come from LyftData's *Worker Recovery and Serviceability* guide.
"""

from __future__ import annotations

from bundler.analyze.recovery import reworded
from schemas import Recovery

GUIDE = "LyftData's Worker Recovery and Serviceability guide"

CLOCK_SYNC = Recovery(
    summary="Synchronize the worker host's clock, then let the lease refresh on its own.",
    steps=[
        "Check time synchronization on the worker host and the server "
        "(`timedatectl`, `chronyc tracking`); fix NTP reachability or the time source.",
        "Wait for the next lease-refresh cycle: a worker whose clock is back within tolerance "
        "gets a fresh lease without a restart.",
        "Confirm with `lyftdata workers status <worker-id>` and the worker's runtime "
        "authorization (decision allow, no failed renewals).",
    ],
    cautions=[
        "Do not run `lyftdata-worker --reset-state auth` or re-enroll: the cached identity is "
        "sound, and a new lease is refused again while the clock is off.",
    ],
    reference=f"{GUIDE}: Connectivity or TLS (clock synchronization); License or runtime "
    "authorization",
)

_STOP = "Stop the worker service (e.g. `systemctl stop lyftdata-worker`)."
_RUN_NORMALLY = "Run the worker normally, without --reset-state, after the one-time repair."
_RESET_CAUTIONS = [
    "Each reset mode asks for confirmation; add --yes only in deliberately reviewed, "
    "non-interactive automation.",
    "Use `--reset-state full` only as a last resort, after recording the worker identity, its "
    "local state path (LYFTDATA_JOBS_DIR), its deployed jobs and your recovery plan: it "
    "recreates local runtime state and can require the worker API key or a fresh "
    "auto-enrollment.",
    "Never edit the auth-cache or settings databases by hand.",
]

RESET_STATE_REPAIR = Recovery(
    summary="Stop the worker and run LyftData's one-time state repair; restarting alone "
    "will not bring it back.",
    steps=[
        _STOP,
        "Run `lyftdata-worker --reset-state repair` once: it checks the worker's SQLite state "
        "and rebuilds unhealthy files from a logical dump (sqlite3 must be on the host).",
        "If only cached authorization is affected, use the narrower "
        "`lyftdata-worker --reset-state auth` instead.",
        _RUN_NORMALLY,
    ],
    cautions=list(_RESET_CAUTIONS),
    reference=f"{GUIDE}: Corrupt local state; License or runtime authorization (auth-cache)",
)
"""The guide's order: stop, repair once, run normally. Recording the worker's identity,
state path, jobs and plan is asked before ``full`` only, so it is that caution's."""

RESET_STATE_AUTH = Recovery(
    summary="Stop the worker and reset only its cached authorization.",
    steps=[
        _STOP,
        "Run `lyftdata-worker --reset-state auth` once: the narrower repair, when only cached "
        "authorization is affected.",
        _RUN_NORMALLY,
    ],
    cautions=list(_RESET_CAUTIONS),
    reference=RESET_STATE_REPAIR.reference,
)
"""The same path when every corrupt file is the auth cache."""

ENABLE_METRICS = Recovery(
    summary="Enable metrics collection for the worker, then measure again.",
    steps=[
        "Enable worker metrics (new workers collect none by default; the interval is "
        "LYFTDATA_WORKER_METRICS_INTERVAL, 60 s by default).",
        "Collect a new bundle after a few intervals so capacity can be judged.",
    ],
    cautions=[],
    reference="LyftData install/workers (metrics for new workers are disabled by default)",
)


CAPACITY = Recovery(
    summary="Give the job a worker with the measured room and the component capabilities it needs.",
    steps=[
        "If the worker lacks a component capability the job requires, add that component to "
        "the worker (install or enable it; a worker started with limited capabilities runs only "
        "basic connectors), or move the job to a worker that offers it.",
        "If a resource is short, move the job to a larger worker or lower the job's request.",
        "Reapply or reconcile the job's placement so it lands on that worker (Upgrade or "
        "replace a worker, step 7).",
        "Rerun runtime requirements and a bounded canary on it (step 8), and confirm the "
        "downstream receipt (step 9).",
    ],
    cautions=[
        "A restart adds neither a component capability nor resources the worker lacks; a job "
        "that reads running there still cannot use them.",
    ],
    reference=f"{GUIDE}: the Capacity layer; Upgrade or replace a worker, steps 7-9; Recovery "
    "acceptance (adequate measured capacity)",
)

HEARTBEAT = Recovery(
    summary="Find out why the worker stopped reporting before restarting it.",
    steps=[
        "On the worker host, check the worker service and its recent log "
        "(`lyftdata workers logs <worker-id> --limit 200`).",
        "Confirm LYFTDATA_URL, DNS, TCP reachability, certificate trust and proxy behaviour "
        "from the worker host, and that its clock is synchronized.",
        "If the log shows corrupt local state, stop the service and run "
        "`lyftdata-worker --reset-state repair` once.",
        "Confirm a recent heartbeat and system information "
        "(`lyftdata workers status <worker-id>`, `lyftdata workers sysinfo <worker-id>`).",
    ],
    cautions=[
        "A restart can hide the original evidence: capture it first (`lyftdata doctor --json`).",
    ],
    reference=f"{GUIDE}: Worker heartbeat; Connectivity or TLS; Capture evidence first",
)

CONNECTIVITY = Recovery(
    summary="Restore the path from the worker host to the control plane (network and TLS).",
    steps=[
        "From the worker host, confirm LYFTDATA_URL: the control-plane URL the worker uses.",
        "Confirm DNS: the host in LYFTDATA_URL resolves from the worker host.",
        "Confirm TCP reachability of that host and port.",
        "Confirm certificate trust: the worker host trusts the CA that signed the server's "
        "certificate, and the certificate names the host in LYFTDATA_URL.",
        "Confirm proxy behavior between the worker host and the server.",
        "Confirm clock synchronization on the worker host.",
    ],
    cautions=[
        "Use insecure TLS only for a bounded evaluation with a self-signed certificate, never "
        "as the fix.",
        "A restart can hide the original evidence: capture it first (`lyftdata doctor --json`).",
    ],
    reference=f"{GUIDE}: Connectivity or TLS",
)

REMOVE = reworded(
    "remove",
    f"{GUIDE}: Remove a worker safely",
    {
        4: "Confirm the worker service is stopped.",
        6: "Then remove the worker through the UI or the CLI: `lyftdata workers remove "
        "<worker-id>`.",
    },
)

RECOVERIES = {
    "clock-sync": CLOCK_SYNC,
    "reset-state-repair": RESET_STATE_REPAIR,
    "enable-metrics": ENABLE_METRICS,
}
"""Recovery id (as ``codes.py`` names it) -> LyftData's text for its own findings."""

RECOVERY_PATHS = {
    "capacity": CAPACITY,
    "connectivity": CONNECTIVITY,
    "heartbeat": HEARTBEAT,
    "remove": REMOVE,
}
"""LyftData's own text for the generic recovery paths whose generic wording is not its own."""
