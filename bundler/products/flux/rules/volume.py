"""Layer 6 for Flux: is there room on the volume under the worker's Flux home?

A worker whose state volume is full stays online, claims work and fails each run that
writes there (a memoized result under ``.flux/.cache``, local output under ``.flux/.data``)
with ENOSPC; nothing in Flux's own status gives it away (its advertised ``disk_free`` is
``/``'s). So ``df`` of the state directory (blocks, ``state-volume``; inodes,
``state-inodes``) is judged on the capacity rung, before the first run fails.

When it warns (:func:`pressure`):

* **full**: nothing free, in blocks or in inodes (either one is ENOSPC);
* **nearly full**: at least :data:`NEARLY_FULL_PERCENT` % used (as ``df`` counts it:
  used over used plus available, so blocks reserved for root count as neither) *and*
  less than :data:`ROOM_BYTES` (blocks) or :data:`ROOM_INODES` (inodes) left. The
  percentage alone would cry wolf on a large volume (95 % of 10 TiB leaves 500 GiB), an
  absolute floor alone on a small one (a 4 MiB tmpfs never has 10 GiB free): both must
  say so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bundler.analyze.api import RuleContext, RuleResult, rule
from bundler.analyze.facts import citations, cite_source, memoized
from bundler.analyze.matching import human_bytes
from schemas import Citation, Layer
from schemas.evidence import LocalStateEvidence, StateVolume

from .. import codes
from ..recovery_host import disk_nearly_full, room_before_restart
from .facts import FLUX, subject_worker

NEARLY_FULL_PERCENT = 95
"""Used share (blocks or inodes, as ``df`` computes it) from which a volume may be nearly full."""
ROOM_BYTES = 10 * 1024**3
"""Free space at which a volume past :data:`NEARLY_FULL_PERCENT` still has room (10 GiB)."""
ROOM_INODES = 100_000
"""Free inodes at which a volume past :data:`NEARLY_FULL_PERCENT` still has room: Flux
writes one file per memoized result or stored output."""


@dataclass(frozen=True)
class Pressure:
    """What is running out on a volume: blocks or inodes, and how far."""

    of: Literal["blocks", "inodes"]
    full: bool
    percent: int
    free: int
    total: int

    def words(self) -> str:
        """``0 B of 4.0 MiB free (100 % used)`` or ``3 of 64 inodes free (96 % used)``."""
        if self.of == "inodes":
            return f"{self.free:,} of {self.total:,} inodes free ({self.percent} % used)"
        return f"{human_bytes(self.free)} of {human_bytes(self.total)} free ({self.percent} % used)"


def used_percent(used: int, free: int) -> int:
    """``df``'s capacity: used over used plus available, rounded up (0 when both are 0)."""
    if used + free <= 0:
        return 0
    return -(-100 * used // (used + free))


def _judged(
    of: Literal["blocks", "inodes"], used: int, free: int, total: int, room: int
) -> Pressure | None:
    percent = used_percent(used, free)
    if free <= 0:
        return Pressure(of, True, 100, 0, total)
    if percent >= NEARLY_FULL_PERCENT and free < room:
        return Pressure(of, False, percent, free, total)
    return None


def pressure(volume: StateVolume) -> Pressure | None:
    """What runs out first on ``volume`` (full before nearly full, inodes before blocks when
    both are alike), or None when it has room or its counts were not read."""
    found: list[Pressure] = []
    if volume.inodes_total and volume.inodes_free is not None:
        used = volume.inodes_total - volume.inodes_free
        judged = _judged("inodes", used, volume.inodes_free, volume.inodes_total, ROOM_INODES)
        found += [judged] if judged else []
    if volume.total_bytes and volume.free_bytes is not None:
        # without used_bytes (evidence stored before it was recorded) df's own sum is lost
        taken = volume.total_bytes - volume.free_bytes
        used_bytes = volume.used_bytes if volume.used_bytes is not None else taken
        judged = _judged("blocks", used_bytes, volume.free_bytes, volume.total_bytes, ROOM_BYTES)
        found += [judged] if judged else []
    return min(found, key=lambda p: (not p.full, -p.percent)) if found else None


def cite_pressure(
    ctx: RuleContext, index: int, volume: StateVolume, said: Pressure
) -> list[Citation]:
    """The document's count that ran out, and the ``df`` line it was read from."""
    field = "inodes_free" if said.of == "inodes" else "free_bytes"
    source = volume.inodes_source if said.of == "inodes" else volume.source
    found = ctx.evidence.cite(LocalStateEvidence, f"/volumes/{index}/{field}", said.free)
    return [found, *citations(cite_source(source))]


def _message(worker: str, volume: StateVolume, said: Pressure, down: bool) -> str:
    """What runs out, and what it does: to a worker that takes work, or, ``down``, to one
    whose ladder stopped at the heartbeat (the volume may be why it is down)."""
    state = "full" if said.full else "nearly full"
    text = (
        f"The volume under {worker}'s Flux home, mounted at {volume.mount}, is {state}: "
        f"{said.words()} when collected."
    )
    if said.of == "inodes" and volume.free_bytes:
        text += (
            f" Its blocks are not ({human_bytes(volume.free_bytes)} free): with no inode "
            "left, creating a file fails all the same."
        )
    if not said.full:
        text += (
            f" (Warned from {NEARLY_FULL_PERCENT} % used with less than "
            + (f"{ROOM_INODES:,} inodes" if said.of == "inodes" else human_bytes(ROOM_BYTES))
            + " free.)"
        )
    if down:
        return text + (
            f" {worker} is not answering heartbeats, and a worker that cannot write its state "
            "can crash, fail to start or fail every run it takes (ENOSPC): "
            + ("the full volume may be why" if said.full else "a volume this full may be why")
            + f". Restarted on it, {worker} meets the same volume: make room first. Its "
            "advertised disk_free measures `/`, not this volume."
        )
    return text + (
        f" A run that writes there (a memoized result under .flux/.cache, local output under "
        f".flux/.data) fails with ENOSPC, while {worker} stays online and keeps claiming work; "
        "its advertised disk_free measures `/`, not this volume."
    )


Pressed = list[tuple[int, StateVolume, Pressure]]


def pressed_volumes(ctx: RuleContext, local: LocalStateEvidence) -> Pressed:
    """Every volume running out, with what runs out, judged once per evidence set: the rule
    is asked of every worker of the fleet (a host rule), and few volumes are nearly full."""

    def judge() -> Pressed:
        volumes = enumerate(local.volumes or [])
        return [(i, v, said) for i, v in volumes if (said := pressure(v)) is not None]

    return memoized(ctx.evidence, "pressed-volumes", (local, local.volumes), judge)


@rule(Layer.CAPACITY, products=FLUX, host=True)
def flux_state_volume(ctx: RuleContext) -> RuleResult | None:
    """WARN ``FLUX_WORKER_DISK_NEARLY_FULL`` when the volume under the worker's Flux home is
    full or nearly (blocks or inodes); silent otherwise (the slot rule passes the rung)."""
    worker = subject_worker(ctx)
    local = ctx.evidence.get(LocalStateEvidence)
    if worker is None or local is None:
        return None
    pressed = [(i, v, said) for i, v, said in pressed_volumes(ctx, local) if v.worker == worker]
    if not pressed:
        return None
    _, volume, said = pressed[0]
    evidence = [c for i, v, p in pressed for c in cite_pressure(ctx, i, v, p)]
    down = ctx.stopped_at is Layer.HEARTBEAT
    return RuleResult.warn(
        codes.FLUX_WORKER_DISK_NEARLY_FULL,
        _message(worker, volume, said, down),
        evidence=evidence,
        recovery=room_before_restart(worker, volume.mount, said.of, said.full)
        if down
        else disk_nearly_full(worker, volume.mount, said.of),
        acceptance=[
            f"`df -P -k` and `df -P -i` of {worker}'s .flux/ show room in blocks and inodes",
        ],
        worker=worker,
        mount=volume.mount,
        exhausted=said.of,
        full=said.full,
        used_percent=said.percent,
        free=said.free,
        total=said.total,
    )
