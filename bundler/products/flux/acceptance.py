"""Flux's recovery acceptance checklist: what a recovered Flux worker shows, in Flux's terms.

The ladder's checklist follows LyftData's guide: runtime authorization of external
workers, runtime-requirements blockers, a bounded canary, an external receipt. Flux has
none of these (no deployment step, no requirements report, no receipts: its *Worker
observability* page and flux-core 0.87.5 as observed running), so its list names what
Flux does show: a worker online in ``GET /workers`` whose heartbeat the server heard
recently and which reports its runtime and resources; a registration the server
accepted; a worker whose labels and resources meet the workflow's affinity and requests;
a free slot; and the latest run COMPLETED. Checks Flux has no concept for are not
listed at all, not shown as "n/a". The evaluation is the engine's
(:mod:`bundler.analyze.acceptance`); only the words and the rungs are Flux's.
"""

from __future__ import annotations

from bundler.analyze.checklist import Check, Checklist, Proof
from schemas import Layer

FLUX_CHECKLIST = Checklist(
    checks=(
        Check(
            Proof.HEARTBEAT,
            "online, heartbeat within heartbeat_timeout, runtime/resources in GET /workers",
            (Layer.HEARTBEAT,),
        ),
        Check(
            Proof.AUTHORIZATION,
            "registration accepted by the server (POST /workers/register)",
            (Layer.AUTHORIZATION,),
        ),
        Check(
            Proof.PLACEMENT,
            "a worker whose labels and resources meet the workflow's affinity and requests",
            (Layer.PLACEMENT,),
        ),
        Check(
            Proof.CAPACITY,
            "a free slot on an eligible worker (below max_concurrent_executions)",
            (Layer.CAPACITY,),
        ),
        Check(
            Proof.CANARY,
            "the latest execution COMPLETED (of the target workflow, on the target worker)",
            (Layer.OUTCOME,),
        ),
    ),
    canary_newer="a COMPLETED execution newer than BEFORE",
)
"""Flux's checks, each with the rung that proves it; ``bundler diff`` adds a run newer than
BEFORE (any run of the job on the repaired worker: Flux has no canary of its own)."""
