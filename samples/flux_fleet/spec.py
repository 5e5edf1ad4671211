"""Which workers a fleet has and which fault each one carries (stdlib only: both venvs read it).

The fleet driver (bundler's Python) writes the spec as JSON; the emulator
(Flux's Python, 3.12) reads it. Roles are spread deterministically through
the fleet, so the same spec always gives the same worker the same fault.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from pathlib import Path


class Role(StrEnum):
    HEALTHY = "healthy"
    """Answers every ping, claims and completes the work it is sent."""
    EVICTED = "evicted"
    """Answers the first pings, then goes silent (a hung host): STALE, then evicted."""
    UNHEALTHY = "unhealthy"
    """Keeps answering, but reports event-loop starvation: excluded from dispatch."""
    SATURATED = "saturated"
    """One slot (zone=c), claims what it is sent and holds it: slots_free 0, more work waits."""


SATURATED_LABELS = {"zone": "c"}
"""The label group of the saturated workers (the lab's ``zone_c_sleeper`` asks for it)."""


@dataclass(frozen=True)
class WorkerPlan:
    name: str
    role: Role
    labels: dict[str, str]
    max_concurrent_executions: int | None


@dataclass(frozen=True)
class FleetSpec:
    workers: int = 200
    evicted: int = 0
    unhealthy: int = 0
    saturated: int = 0
    prefix: str = "fw"
    zones: tuple[str, ...] = ("a", "b")
    """Label groups of the other workers (``zone=a``, ``zone=b``...); none is ``zone=mars``."""
    packages: int | None = 12
    """How many installed packages each worker registers (None: all of the Flux venv's, ~110,
    as a real worker there does). A small image by default: on SQLite, Flux's registration
    route loads every registered worker with its packages (its single-node check), so the
    cost of the n-th registration grows with n times this."""
    silent_after_pongs: int = 1
    """How many pings an evicted worker answers before it goes silent."""
    seed_labels: dict[str, str] = field(default_factory=lambda: {"fleet": "emulated"})

    def __post_init__(self) -> None:
        if self.evicted + self.unhealthy + self.saturated > self.workers:
            raise ValueError("more faulty workers than workers")

    def name(self, index: int) -> str:
        return f"{self.prefix}{index:04d}"

    def role(self, index: int) -> Role:
        """Faults spread through the fleet (every k-th worker), not bunched at one end."""
        faulty = (
            [Role.EVICTED] * self.evicted
            + [Role.UNHEALTHY] * self.unhealthy
            + [Role.SATURATED] * self.saturated
        )
        if not faulty:
            return Role.HEALTHY
        stride = self.workers / len(faulty)
        for position, role in enumerate(faulty):
            if index == int(position * stride):
                return role
        return Role.HEALTHY

    def plans(self) -> list[WorkerPlan]:
        plans = []
        for index in range(self.workers):
            role = self.role(index)
            if role is Role.SATURATED:
                labels = {**self.seed_labels, **SATURATED_LABELS}
                slots: int | None = 1
            else:
                labels = {**self.seed_labels, "zone": self.zones[index % len(self.zones)]}
                slots = None
            plans.append(WorkerPlan(self.name(index), role, labels, slots))
        return plans

    def names(self, role: Role) -> list[str]:
        return [plan.name for plan in self.plans() if plan.role is role]

    def write(self, path: Path) -> None:
        path.write_text(json.dumps(asdict(self), indent=2))

    @classmethod
    def read(cls, path: Path) -> FleetSpec:
        data = json.loads(path.read_text())
        data["zones"] = tuple(data["zones"])
        return cls(**data)
