"""Recovery texts and where each finding code's recovery comes from.

The texts here are product-neutral: they name no product, no product's command or
variable and no product's document, because they reach every product's findings (a
Flux operator must never be sent to LyftData's guide). The facts come from LyftData's
*Worker Recovery and Serviceability* guide ("Common recovery paths", "Upgrade or
replace a worker", "Remove a worker safely", "Recovery acceptance"); the wording is
ours, one :class:`Recovery` per path id (:data:`PATHS`), each citing only
:data:`NEUTRAL`. Rules do not carry generic advice themselves: the engine
attaches :func:`recovery_for` and :func:`acceptance_for` (in the product's checklist,
:mod:`.checklist`) to every finding whose
code names a path in the finding-code catalog (:mod:`bundler.analyze.codes`), so
the same failure always reads the same way whichever rule (generic or product)
found it. A product replaces a path with its
own text (``Profile.recovery_paths``, from ``products/<name>/recovery.py``: its commands,
its variables, its document's title and sections), so a finding never cites another
product's pages, and may still set
``Finding.recovery`` explicitly when it knows better.
"""

from __future__ import annotations

from collections.abc import Mapping

from schemas import Recovery

from .checklist import LADDER_CHECKLIST, Checklist
from .codes import GENERIC

NEUTRAL = "bundler's product-neutral recovery path"
"""What a generic text cites: its own topic, never a product's document (a product that
 has one cites it in its ``recovery_paths``)."""

CAPTURE_FIRST = (
    "Capture evidence before restarting anything: a restart can hide the original failure "
    "and does not repair a missing binding, credential scope, database ACL or destination."
)

SERVER_TLS_SUMMARY = (
    "Doctor's own connection to the control plane did not verify the server's TLS "
    "certificate (refused, or verification switched off): make the machine that ran doctor "
    "trust it, then check the worker hosts."
)
SERVER_TLS_COLLECTOR_STEPS = [
    "On the machine that ran `bundler doctor`: if a private CA signed the server's "
    "certificate, give doctor that CA with `--ca-cert FILE` (or add it to that machine's CA "
    "bundle), then collect again, without `--insecure`.",
    "Check on that machine that the certificate names the host in the URL doctor was given "
    "and has not expired (a refused certificate's finding says which check failed).",
]
"""Where the connection was made: doctor's machine, whatever the product. The same steps
serve a certificate doctor refused (``TLS_NOT_TRUSTED``) and one it never checked
(``TLS_INSECURE_IN_USE``, ``--insecure``): either way that machine must come to trust it."""
SERVER_TLS_WORKER_STEPS = [
    "On each worker host, check that it trusts the same CA and that the certificate names "
    "the host the worker dials: a certificate doctor refused may be refused by the workers too.",
]
INSECURE_CAUTION = (
    "Use `--insecure` (or any TLS-verification switch) only to evaluate briefly against a "
    "self-signed certificate, never as the fix."
)

SERVER_REACHABILITY_SUMMARY = (
    "Doctor's own connection to the control plane got no answer: check the path from the "
    "machine that ran doctor to the server, then collect again."
)
SERVER_REACHABILITY_STEPS = [
    "On the machine that ran `bundler doctor`, check the server URL it was given (`--server`: "
    "scheme, host and port) against the address the control plane serves.",
    "Check that the host in that URL resolves there (DNS).",
    "Check that its port accepts TCP connections from there (the server listening on that "
    "address, no firewall in between; the finding's error says refused, timed out or "
    "unresolved).",
    "Check certificate trust for an HTTPS URL: the machine trusts the CA that signed the "
    "server's certificate (`--ca-cert FILE`), and the certificate names the host in the URL.",
    "Check proxy behaviour: the proxy settings doctor ran with (`HTTPS_PROXY`, `NO_PROXY`) "
    "and any proxy or load balancer in front of the server.",
]
"""The collector's own path to the server, product-neutral: a product restates it in its
words (LyftData: ``guide_paths.SERVER_REACHABILITY``)."""
SERVER_REACHABILITY_CLOSE = (
    "Once doctor reaches the server, collect again: no layer above the server was evaluated."
)
SERVER_REACHABILITY_CAUTION = (
    "This is the collecting machine's path, not a worker's: workers may still reach the "
    "server (and the reverse), so judge no worker from this bundle."
)

PATHS: dict[str, Recovery] = {
    "connectivity": Recovery(
        summary="Restore the path from the worker host to the control plane (network and TLS).",
        steps=[
            "From the worker host, check the server URL the worker is configured with.",
            "Check that the name resolves (DNS) and the port accepts TCP connections.",
            "Check certificate trust: the CA that signed the server certificate, and that the "
            "certificate names the host the worker dials.",
            "Check any proxy or load balancer between worker and server.",
            "Check the worker host's clock is synchronized (TLS and leases depend on it).",
        ],
        cautions=[
            "Disable TLS verification only to evaluate briefly against a self-signed "
            "certificate, never as the fix.",
            CAPTURE_FIRST,
        ],
        reference=f"{NEUTRAL}: connectivity or TLS",
    ),
    # TLS_NOT_TRUSTED and TLS_INSECURE_IN_USE are the collector's own connection: the first
    # place to look is the machine that ran doctor, then the worker hosts, which dial the
    # same certificate.
    "server-tls": Recovery(
        summary=SERVER_TLS_SUMMARY,
        steps=[*SERVER_TLS_COLLECTOR_STEPS, *SERVER_TLS_WORKER_STEPS],
        cautions=[INSECURE_CAUTION],
        reference=f"{NEUTRAL}: connectivity or TLS (the collector's own connection)",
    ),
    # SERVER_UNREACHABLE is the collector's own connection, as TLS_NOT_TRUSTED is: checked
    # from the machine that ran doctor, not from a worker host ("connectivity").
    "server-reachability": Recovery(
        summary=SERVER_REACHABILITY_SUMMARY,
        steps=[*SERVER_REACHABILITY_STEPS, SERVER_REACHABILITY_CLOSE],
        cautions=[SERVER_REACHABILITY_CAUTION],
        reference=f"{NEUTRAL}: server reachability (the collector's own connection)",
    ),
    "server-health": Recovery(
        summary="Bring the control plane back to healthy and ready before judging any worker.",
        steps=[
            "Read the server log around the collection time for the failing dependency "
            "(database, storage, startup error).",
            "Restore the failing dependency, then confirm the health and readiness endpoints.",
            "Collect a new bundle: every layer above the server was not evaluated.",
        ],
        cautions=[CAPTURE_FIRST],
        reference=f"{NEUTRAL}: server health, the ladder's first rung",
    ),
    "api-access": Recovery(
        summary="Give the collector an API token the control plane accepts.",
        steps=[
            "Create or renew a read-only API token for support collection.",
            "Pass it through the environment variable the profile names, then collect again.",
        ],
        cautions=["Never paste tokens into tickets; bundles carry only redacted values."],
        reference="bundler: collection needs read access to the control plane",
    ),
    "heartbeat": Recovery(
        summary="Find out why the worker stopped reporting before restarting it.",
        steps=[
            "On the worker host, check the worker service is running and read its recent log.",
            "Check idle-connection timeouts on any load balancer or proxy in the path: they "
            "should be at least five heartbeat intervals.",
            "Check for host pauses longer than the heartbeat timeout (sleeping laptops, "
            "throttled containers, VM live migration).",
            "Check for a network partition: repeated connection-lost lines in the worker log.",
            "Once the cause is fixed, confirm a fresh heartbeat and system information.",
        ],
        cautions=[CAPTURE_FIRST],
        reference=f"{NEUTRAL}: worker heartbeat",
    ),
    "license": Recovery(
        summary="An external worker needs a licensed deployment: restore a valid license; the "
        "worker picks it up at its next lease refresh.",
        steps=[
            "Restore (install or renew) a valid license on the server.",
            "Wait for the next lease-refresh cycle.",
        ],
        cautions=["A normal license recovery does not need a worker restart."],
        reference=f"{NEUTRAL}: license or runtime authorization",
    ),
    "lease": Recovery(
        summary="Get the worker a valid, verifiable auth lease again.",
        steps=[
            "Compare the worker host's clock with the server's: a lease outside its validity "
            "window is rejected even when it was issued correctly.",
            "Check the worker can reach the server to renew: from the worker host, the server "
            "URL it is configured with resolves, accepts connections and presents a "
            "certificate the host trusts.",
            "If the runtime-requirements report names a worker-auth trust-root problem, use "
            "the product's trust-health and trust-reset operations.",
        ],
        cautions=["Do not edit auth-cache or settings databases by hand."],
        reference=f"{NEUTRAL}: runtime authorization (reachability, clock synchronization)",
    ),
    "registration": Recovery(
        summary="Make the worker's bootstrap credential acceptable to the server.",
        steps=[
            "Check which bootstrap method the worker uses (API key, enrollment key, bootstrap "
            "token) and that the value it holds is current.",
            "Check the server's registration policy accepts that method.",
            "Once registered, remove one-time enrollment keys from the worker's configuration.",
        ],
        cautions=["Do not edit auth-cache or settings databases by hand."],
        reference=f"{NEUTRAL}: worker authentication",
    ),
    "placement": Recovery(
        summary="Make the job's placement and the worker agree.",
        steps=[
            "Compare the job's worker group, labels, pinning and OS with the worker's "
            "(the finding names each unmatched one).",
            "Either change the job's placement, or start or relabel a worker that matches it.",
            "Reapply or reconcile the job's placement and confirm it lands on the intended worker.",
        ],
        cautions=["Do not run two active copies of a job that cannot tolerate duplicates."],
        reference=f"{NEUTRAL}: placement",
    ),
    "deployment": Recovery(
        summary="Get the exact rendered job to a runnable state on the worker.",
        steps=[
            "Stage the job if it is not staged, then deploy it to the intended worker or group.",
            "Resolve every missing context key named in the finding.",
            "If the worker refused the job bundle's signature, find out who changed it.",
            "Reconcile drift, then confirm the deployment identity matches the intended one.",
        ],
        cautions=["Hand-edited generated jobs read as drift and may be overwritten."],
        reference=f"{NEUTRAL}: deployment; missing runtime prerequisites",
    ),
    "prerequisites": Recovery(
        summary="Repair the blocker the runtime-requirements report names.",
        steps=[
            "Inspect the exact runtime-requirements report for the worker and job.",
            "Repair the blocker it names, with the one repair that fits: bind the required "
            "credential to the job; add the worker to the credential's allowed workers; update "
            "the worker's database settings or the job's exact ACL; stage and deploy the "
            "required job; or repair the source's setup on the worker.",
            "Rerun readiness and read the report again.",
        ],
        cautions=[
            "A successful settings write is not proof: wait until the report and the target "
            "job both converge."
        ],
        reference=f"{NEUTRAL}: missing runtime prerequisites",
    ),
    "trust-root": Recovery(
        summary="Repair the worker's trust root with the product's own trust operations.",
        steps=["Run the product's trust-health check.", "Then run its trust-reset operation."],
        cautions=["Do not edit auth-cache or settings databases by hand."],
        reference=f"{NEUTRAL}: worker trust root",
    ),
    "capacity": Recovery(
        summary="Give the job a worker with room for it.",
        steps=[
            "If every slot is busy, the job starts when one frees: wait, raise the worker's "
            "concurrency limit, or add a worker that matches the job.",
            "If a resource is short, move the job to a bigger worker or lower its request.",
            "If a component capability is missing, add it to the worker or move the job to a "
            "worker that offers it.",
        ],
        cautions=[],
        reference=f"{NEUTRAL}: capacity",
    ),
    "outcome": Recovery(
        summary="Prove the job works end to end with a bounded canary and its receipt.",
        steps=[
            # Not every finding on this path is a failed run: a canary older than the
            # deployment, or one without its receipt, succeeded and proves too little.
            "If the run failed, read its error and fix its cause.",
            "Run a bounded canary on the target worker.",
            "Confirm the downstream receipt (durably stored or indexed, not merely accepted) "
            "before restoring normal schedules.",
        ],
        cautions=[],
        reference=f"{NEUTRAL}: outcome; recovery acceptance",
    ),
    # Product-neutral: the commands are the product's own (``Profile.recovery_paths``), so a
    # finding of one product never tells its operator to run another product's worker binary.
    "local-state": Recovery(
        summary="Repair the worker's local state once, with the service stopped.",
        steps=[
            "Stop the worker service.",
            "Run the product's one-time state repair: it checks the worker's state databases "
            "and rebuilds the unhealthy ones.",
            "If only cached authorization is affected, use its narrower repair of cached "
            "authorization instead.",
            "Start the worker normally, without a repair mode, and confirm heartbeat and "
            "authorization.",
        ],
        cautions=[
            "Confirm each repair deliberately; skip its confirmation only in reviewed automation.",
            "Never edit auth-cache or settings databases by hand.",
            "A full reset of the worker's state is the last resort: record the worker identity, "
            "state path, deployed jobs and plan first; it can require a fresh enrollment.",
        ],
        reference=f"{NEUTRAL}: corrupt local state",
    ),
    "replace": Recovery(
        summary="Upgrade or replace the worker without two owners of one identity.",
        steps=[
            "Record the worker identity, labels, settings, assigned jobs and current evidence.",
            "Pause upstream schedules or remove the affected job deployments when the workload "
            "cannot tolerate two active copies.",
            "Stop the service and back up only the state your recovery policy requires.",
            "Install a worker version the server supports.",
            "Restore or re-enroll the intended identity through product-supported paths.",
            "Confirm heartbeat and runtime authorization.",
            "Reapply or reconcile job placement.",
            "Rerun runtime requirements and a bounded canary.",
            "Confirm downstream receipts before restoring normal schedules.",
        ],
        cautions=[
            "Never start a replacement with the same active identity and local state while the "
            "original worker can still run: ownership becomes ambiguous and effects may repeat.",
            "The network, credential, upgrade and recovery design of an external worker belongs "
            "to the deployment operator.",
        ],
        reference=f"{NEUTRAL}: upgrade or replace a worker",
    ),
    "recollect": Recovery(
        summary="Collect the missing evidence again before concluding anything from it.",
        steps=[
            "Check why the collector could not read it (permissions, path, a tool missing on "
            "the host) in the manifest's collector list.",
            "Fix that, run `bundler doctor` again, and analyze the new bundle.",
        ],
        cautions=[],
        reference="bundler: missing evidence reads as unknown, never as pass",
    ),
    "reader-limit": Recovery(
        summary="Read the evidence the reader declined: raise its limit for one run, then "
        "analyze again.",
        steps=[
            "The finding names each member, its size and the limit it is over.",
            "Run the same command again with the setting it names, e.g. "
            "`BUNDLER_MAX_JSON_BYTES=512MiB bundler analyze support.zip`; parsing takes a few "
            "times the member's size in memory.",
            "The member stays in the bundle as collected: nothing needs collecting again.",
        ],
        cautions=[
            "Raise a limit only for a bundle you expect to be that large: the limits keep a "
            "hostile bundle from exhausting memory.",
        ],
        reference="bundler: docs/bundles.md, the readers' limits",
    ),
    "remove": Recovery(
        summary="Remove a worker record only once nothing depends on it.",
        steps=[
            "Stop new work at the source or scheduler.",
            "Identify in-flight and checkpointed work.",
            "Remove or relocate its job deployments.",
            "Preserve the logs, traces, runtime artifacts and receipts you need.",
            "Confirm the service is stopped.",
            "Confirm the intended replacement is serviceable.",
            "Then remove the worker record through the product's UI or CLI.",
        ],
        cautions=[
            "Removal does not replay lost work, nor prove that a replacement has assumed it."
        ],
        reference=f"{NEUTRAL}: remove a worker safely",
    ),
}


CODE_PATHS: dict[str, str] = {
    code: entry.recovery for code, entry in GENERIC.items() if entry.recovery is not None
}
"""Finding code -> recovery path id."""


def reworded(path: str, reference: str, steps: Mapping[int, str] | None = None) -> Recovery:
    """The generic ``path`` in a product's words: its document as ``reference``, and the
    steps at the given positions in the product's own terms (a command, a variable).

    One text, so a step the generic path gains or loses reaches every product's version."""
    generic = PATHS[path]
    worded = [(steps or {}).get(index, step) for index, step in enumerate(generic.steps)]
    return generic.model_copy(deep=True, update={"steps": worded, "reference": reference})


def recovery_for(code: str, product: Mapping[str, Recovery] | None = None) -> Recovery | None:
    """The recovery path for a finding code (the product's own text first), or None."""
    path = CODE_PATHS.get(code)
    if path is None:
        return None
    chosen = (product or {}).get(path) or PATHS[path]
    return chosen.model_copy(deep=True)


def acceptance_for(code: str, checklist: Checklist = LADDER_CHECKLIST) -> list[str]:
    """Acceptance checks that prove the recovery for ``code`` worked, in ``checklist``'s words
    (the product's: a check it does not have is not named)."""
    path = CODE_PATHS.get(code)
    return checklist.for_path(path) if path else []
