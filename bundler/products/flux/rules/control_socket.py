"""A Flux worker running without its control socket because its volume has no inode left.

Observed (flux-core 0.87.5, samples/flux_lab): a worker creates its control socket,
``.flux/worker-NAME.sock``, when it starts, best-effort. On a volume with no inode left the
bind fails with ENOSPC, the worker logs ``Worker control socket unavailable ([Errno 28] No
space left on device); pause/resume via signals only`` and carries on: it registers, stays
online and claims work. Nothing else says so, yet ``flux worker pause|resume|status|
cancel-all`` cannot reach it (nor doctor's live ``in_flight``), and its runs that write a
file there fail with the same ENOSPC; and freeing inodes does not bring the socket back:
the worker makes it only at start-up.

Two pieces of evidence tie the two together, and the finding needs both: the worker's
latest word on its socket is that line, with ENOSPC as its reason (a socket that came up
at a later start, or failed for another reason, proves nothing of the inodes), and ``df -P
-i`` of its state directory read no inode left (every record of it: one with inodes free
leaves the link unproven). Either alone is no finding here (the full volume is the capacity
rung's warning).
"""

from __future__ import annotations

from bundler.analyze.api import RuleContext, RuleResult, TimelineEvent, rule
from bundler.analyze.facts import citations, cite_source, memoized
from schemas import Layer
from schemas.evidence import LocalStateEvidence, StateVolume

from .. import codes
from ..recovery_host import socket_without_inodes
from .disk import inodes_exhausted, says_no_space
from .facts import FLUX, subject_worker, worker_side

SOCKET_KINDS = ("control_socket", "control_socket_unavailable")
"""What a worker logs of its control socket once per start: listening, or unavailable."""


def _latest_refusal(ctx: RuleContext, worker: str) -> TimelineEvent | None:
    """The worker's latest word on its control socket, when that is "unavailable: ENOSPC"."""
    said = worker_side(ctx.timeline.of_kind(*SOCKET_KINDS, worker=worker))
    if not said or said[-1].kind != "control_socket_unavailable":
        return None
    error = said[-1].detail.get("error")
    return said[-1] if isinstance(error, str) and says_no_space(error) else None


def _volumes(
    ctx: RuleContext, local: LocalStateEvidence
) -> dict[str, list[tuple[int, StateVolume]]]:
    """Every volume record by its worker, built once per evidence set (a host rule is asked
    of every worker of the fleet)."""

    def build() -> dict[str, list[tuple[int, StateVolume]]]:
        found: dict[str, list[tuple[int, StateVolume]]] = {}
        for index, volume in enumerate(local.volumes or []):
            if volume.worker is not None:
                found.setdefault(volume.worker, []).append((index, volume))
        return found

    return memoized(ctx.evidence, "volumes-by-worker", (local, local.volumes), build)


@rule(Layer.HEARTBEAT, products=FLUX, host=True)
def flux_socket_without_inodes(ctx: RuleContext) -> RuleResult | None:
    """WARN ``FLUX_CONTROL_SOCKET_NO_INODES`` when the bundle proves both halves; else silent."""
    worker = subject_worker(ctx)
    local = ctx.evidence.get(LocalStateEvidence)
    if worker is None or local is None:
        return None
    refused = _latest_refusal(ctx, worker)
    if refused is None:
        return None
    read = _volumes(ctx, local).get(worker, [])
    if not read or not all(inodes_exhausted(volume) for _, volume in read):
        return None
    index, volume = read[0]
    return RuleResult.warn(
        codes.FLUX_CONTROL_SOCKET_NO_INODES,
        f"{worker} runs without its control socket: at its latest start it logged `Worker "
        f"control socket unavailable ({refused.detail.get('error')})`, and the volume under its "
        f"Flux home, mounted at {volume.mount}, had "
        f"0 of {volume.inodes_total:,} inodes free when collected. The socket is a file, and no "
        "file can be created there. Flux carries on without it: "
        f"{worker} stays online and takes work, but `flux worker pause`, `resume`, `status` and "
        "`cancel-all` cannot reach it, and a freed inode does not bring the socket back (it is "
        "made only at start-up).",
        evidence=[
            refused.citation(),
            ctx.evidence.cite(LocalStateEvidence, f"/volumes/{index}/inodes_free", 0),
            *citations(cite_source(volume.inodes_source)),
        ],
        recovery=socket_without_inodes(worker, volume.mount),
        acceptance=[
            f"`df -P -i` of {worker}'s .flux/ shows inodes free",
            f"{worker}'s log says `Worker control socket listening at` after its restart, and "
            f"`flux worker status {worker}` answers",
        ],
        worker=worker,
        mount=volume.mount,
        error=refused.detail.get("error"),
    )
