"""A real Flux server and workers on 127.0.0.1, in a fresh directory, always cleaned up.

::

    with FluxLab(LabConfig()) as lab:
        lab.api.run_to_end("hello_world", "lab")
        lab.write_inventory()          # for `bundler doctor --inventory`

Layout under ``root``::

    server/            the server's working directory (flux.toml, .flux/flux.db, bootstrap-token)
    workers/<name>/    one working directory per worker (flux.toml, .flux/worker-<name>.sock);
                       a tmpfs of its own when its spec gives ``disk_bytes``, unmounted on stop
    logs/<name>.log    stdout+stderr of each process (Flux logs to stdout only)
    inventory.yaml     hosts for `bundler doctor --local`

The server gets port 0 and the lab reads the real port back from /proc, so
parallel labs never collide and no port is guessed.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from ..listening import listening_ports
from .api import FluxApi
from .config import LabConfig, WorkerSpec
from .disk import SmallDisk
from .inventory import write_inventory
from .network import LabNetwork
from .process import ManagedProcess, StartStop, wait_until
from .venv import FluxInstall, find_flux

T = TypeVar("T")

SERVER_START_TIMEOUT_S = 90.0
WORKER_START_TIMEOUT_S = 60.0


class LabError(RuntimeError):
    """The lab could not reach the state it was asked for (the message has the log tail)."""


class FluxLab(StartStop):
    def __init__(
        self,
        config: LabConfig | None = None,
        *,
        root: Path | None = None,
        flux: FluxInstall | None = None,
        keep: bool = False,
    ) -> None:
        self.config = config or LabConfig()
        self.flux = flux or find_flux(create=True)
        self._own_root = root is None
        self.keep = keep
        self.root = (root or Path(tempfile.mkdtemp(prefix="flux-lab-"))).resolve()
        self.server_dir = self.root / "server"
        self.logs_dir = self.root / "logs"
        self.port: int | None = None
        self.server: ManagedProcess | None = None
        self.workers: dict[str, ManagedProcess] = {}
        self.network: LabNetwork | None = None
        self.disks: dict[str, SmallDisk] = {}
        self._api: FluxApi | None = None

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        """Start the server, register the lab workflows, start every worker."""
        self.start_server()
        if self.config.allow_anonymous:
            # With anonymous writes refused (and auth off) nobody can register anything.
            self.api.register_workflows()
        for spec in self.config.workers:
            self.start_worker(spec.name, wait=False)
        if self.config.wait_for_workers:
            names = [spec.name for spec in self.config.workers]
            self.wait_for_status(dict.fromkeys(names, "online"), timeout_s=WORKER_START_TIMEOUT_S)

    def stop(self) -> None:
        """Stop every process the lab started (workers first), then close the client."""
        for process in self.workers.values():
            process.stop()
        if self.server is not None:
            self.server.stop()
        if self._api is not None:
            self._api.close()
            self._api = None
        if self.network is not None:
            self.network.close()
        for disk in self.disks.values():  # after its worker stopped: nothing holds it open
            disk.close()
        if self._own_root and not self.keep:
            shutil.rmtree(self.root, ignore_errors=True)

    # -- server ------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        if self.port is None:
            raise LabError("the server has not started")
        host = self.network.server_ip if self.network is not None else "127.0.0.1"
        return f"http://{host}:{self.port}"

    def server_url_for(self, worker: str) -> str:
        """The URL ``worker`` reaches the server at: its own cuttable link, if it has one."""
        if self.network is None:
            return self.url
        return f"http://{self.network.server_ip_for(worker)}:{self.port}"

    @property
    def api(self) -> FluxApi:
        if self._api is None:
            self._api = FluxApi(self.url)
        return self._api

    @property
    def db_path(self) -> Path:
        return self.server_dir / ".flux" / "flux.db"

    @property
    def bootstrap_token_path(self) -> Path:
        return self.server_dir / ".flux" / "bootstrap-token"

    def start_server(self) -> None:
        (self.server_dir / ".flux").mkdir(parents=True, exist_ok=True)  # Flux dies without it
        prefix: list[str] = []
        host = "127.0.0.1"
        if self.config.partitionable:
            # Every address of the namespace is one of the lab's own /30 links.
            self.network = self.network or LabNetwork(self.config.partitionable)
            prefix, host = self.network.exec_prefix, "0.0.0.0"
        auth = "\n[flux.security.auth]\nallow_anonymous = true\n"
        # A restart keeps the port its workers were given, as a service's fixed port would.
        port = self.port or 0
        toml = f'[flux]\nserver_host = "{host}"\nserver_port = {port}\nlog_level = "INFO"\n'
        (self.server_dir / "flux.toml").write_text(
            toml + (auth if self.config.allow_anonymous else "")
        )
        env = self._base_env() | self.config.server_settings_env()
        self.server = ManagedProcess(
            "server",
            [*prefix, str(self.flux.flux), "start", "server"],
            cwd=self.server_dir,
            env=env,
            log_path=self.logs_dir / "server.log",
        )
        self.server.start()
        server = self.server
        self.port = self._poll(
            lambda: next(iter(listening_ports(server.pid)), None),
            server,
            what="the Flux server to listen",
            timeout_s=SERVER_START_TIMEOUT_S,
        )
        self._poll(self.api.healthy, server, what="GET /health = 200", timeout_s=30)
        self._poll(self.bootstrap_token_path.exists, server, what="bootstrap token", timeout_s=30)

    def stop_server(self) -> None:
        """Stop the server; :meth:`start_server` starts it again on the same port."""
        if self.server is not None:
            self.server.stop()

    # -- workers -----------------------------------------------------------------------------

    def worker_dir(self, name: str) -> Path:
        return self.root / "workers" / name

    def worker_log(self, name: str) -> Path:
        return self.logs_dir / f"{name}.log"

    def start_worker(self, name: str, *, wait: bool = True) -> ManagedProcess:
        """Start (or restart) worker ``name`` from the config; optionally wait until online."""
        spec = self.config.worker(name)
        process = self.workers.get(name) or self._worker_process(spec)
        self.workers[name] = process
        process.start()
        if wait:
            self.wait_for_status({name: "online"}, timeout_s=WORKER_START_TIMEOUT_S)
        return process

    def _worker_process(self, spec: WorkerSpec) -> ManagedProcess:
        home = self.worker_dir(spec.name)
        if spec.disk_bytes is not None and spec.name not in self.disks:
            self.disks[spec.name] = SmallDisk(home, spec.disk_bytes, spec.disk_inodes)
        (home / ".flux").mkdir(parents=True, exist_ok=True)
        (home / "flux.toml").write_text(
            f'[flux]\nlog_level = "INFO"\n\n[flux.workers]\n'
            f'server_url = "{self.server_url_for(spec.name)}"\n'
        )
        env = self._base_env() | self.config.timings.env()
        env["FLUX_WORKERS__BOOTSTRAP_TOKEN"] = self.bootstrap_token_path.read_text().strip()
        env |= spec.env()  # last: a worker misconfigured on purpose (URL, token) wins
        argv = [str(self.flux.flux), "start", "worker", spec.name]
        for key, value in spec.labels.items():
            argv += ["--label", f"{key}={value}"]
        return ManagedProcess(
            spec.name, argv, cwd=home, env=env, log_path=self.worker_log(spec.name)
        )

    def wait_for_status(self, wanted: dict[str, str], *, timeout_s: float) -> None:
        """Poll ``GET /workers`` until each named worker shows the wanted status."""

        def reached() -> bool:
            statuses = self.api.worker_statuses()
            return all(statuses.get(name) == status for name, status in wanted.items())

        assert self.server is not None
        self._poll(reached, self.server, what=f"workers {wanted}", timeout_s=timeout_s)

    def wait_for_log(self, name: str, text: str, *, count: int = 1, timeout_s: float) -> None:
        """Poll the log of ``name`` (server or a worker) until ``text`` shows ``count`` times."""
        path = self.logs_dir / f"{name}.log"

        def seen() -> bool:
            try:
                return path.read_text(errors="replace").count(text) >= count
            except OSError:
                return False

        wait_until(seen, timeout_s=timeout_s, what=f"{count}x {text!r} in {name}.log")

    def log_count(self, name: str, text: str) -> int:
        try:
            return (self.logs_dir / f"{name}.log").read_text(errors="replace").count(text)
        except OSError:
            return 0

    # -- inventory ---------------------------------------------------------------------------

    def write_inventory(self, path: Path | None = None) -> Path:
        """Write the doctor's inventory for this lab (every host ``address: local``)."""
        return write_inventory(self, path or self.root / "inventory.yaml")

    # -- helpers -----------------------------------------------------------------------------

    def _base_env(self) -> dict[str, str]:
        # A clean environment: nothing FLUX_* leaks in from the caller, HOME is the lab
        # (the Flux CLI reads ~/.flux/credentials.json), logs carry UTC times.
        return {
            "PATH": f"{self.flux.bin_dir}:/usr/local/bin:/usr/bin:/bin",
            "HOME": str(self.root),
            "TZ": "UTC",
            "LANG": "C.UTF-8",
            "PYTHONUNBUFFERED": "1",
        }

    @staticmethod
    def _poll(
        condition: Callable[[], T | None], process: ManagedProcess, *, what: str, timeout_s: float
    ) -> T:
        def check() -> T | None:
            if not process.alive():
                raise LabError(
                    f"{process.name} exited (code {process.returncode()}) while waiting for "
                    f"{what}:\n{process.log_tail()}"
                )
            return condition()

        try:
            return wait_until(check, timeout_s=timeout_s, what=what)  # type: ignore[return-value]
        except TimeoutError as exc:
            raise LabError(f"{exc}:\n{process.log_tail()}") from exc
