"""What a lab run looks like: the server's settings and the workers it starts.

Everything Flux is told goes through ``FLUX_*`` environment variables (the
highest-precedence config source) plus a small ``flux.toml`` per directory,
exactly as an operator would configure it, so the doctor reads the same
settings a customer's deployment would show.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Timings:
    """Heartbeat timings (seconds). Short by default so faults show within seconds."""

    heartbeat_interval: int = 2
    heartbeat_timeout: int = 6
    eviction_grace_period: int = 6

    def env(self) -> dict[str, str]:
        return {
            "FLUX_WORKERS__HEARTBEAT_INTERVAL": str(self.heartbeat_interval),
            "FLUX_WORKERS__HEARTBEAT_TIMEOUT": str(self.heartbeat_timeout),
            "FLUX_WORKERS__EVICTION_GRACE_PERIOD": str(self.eviction_grace_period),
        }

    @property
    def eviction_after_s(self) -> int:
        """Worst case from the last pong to eviction: timeout, one reaper tick, then grace."""
        return self.heartbeat_timeout + self.eviction_grace_period + 2 * self.heartbeat_interval


@dataclass(frozen=True)
class WorkerSpec:
    """One worker: its name, labels, slot limit (``None`` keeps Flux's default of 16), and
    what is wrong with it on purpose: environment, a disk of its own."""

    name: str
    labels: dict[str, str] = field(default_factory=dict)
    max_concurrent_executions: int | None = None
    extra_env: dict[str, str] = field(default_factory=dict)
    disk_bytes: int | None = None
    """Give its working directory a volume of its own this small (a tmpfs: ``SmallDisk``)."""
    disk_inodes: int | None = None
    """With ``disk_bytes``: the most files that volume holds (the tmpfs's ``nr_inodes``)."""

    def env(self) -> dict[str, str]:
        env = dict(self.extra_env)
        if self.max_concurrent_executions is not None:
            env["FLUX_WORKERS__MAX_CONCURRENT_EXECUTIONS"] = str(self.max_concurrent_executions)
        return env


DEFAULT_WORKERS = (
    WorkerSpec("w1", {"zone": "a", "tier": "gold"}),
    WorkerSpec("w2", {"zone": "b"}),
)


@dataclass(frozen=True)
class LabConfig:
    """A whole lab: server settings and workers."""

    workers: tuple[WorkerSpec, ...] = DEFAULT_WORKERS
    timings: Timings = field(default_factory=Timings)
    allow_anonymous: bool = True
    """Off with auth disabled: every worker registration is refused with 401."""
    observability: bool = True
    """Serve Prometheus ``/metrics`` (needs flux-core's observability extra)."""
    server_env: dict[str, str] = field(default_factory=dict)
    wait_for_workers: bool = True
    """Wait until every worker is online before returning from ``start``."""
    partitionable: tuple[str, ...] = ()
    """Workers whose network path to the server the lab can cut (``LabNetwork``): the
    server then runs in a network namespace of its own (needs root)."""

    @property
    def on_sqlite(self) -> bool:
        """Whether the server keeps its state in its own SQLite file (Flux's default).

        ``server_env`` may point it elsewhere (``FLUX_DATABASE_URL``: PostgreSQL); the
        inventory then names no ``db_path``, as an operator's would not.
        """
        return self.server_env.get("FLUX_DATABASE_URL", "sqlite").startswith("sqlite")

    def server_settings_env(self) -> dict[str, str]:
        env = self.timings.env()
        env["FLUX_OBSERVABILITY__ENABLED"] = "true" if self.observability else "false"
        env.update(self.server_env)
        return env

    def worker(self, name: str) -> WorkerSpec:
        for spec in self.workers:
            if spec.name == name:
                return spec
        raise KeyError(name)
