"""A throw-away PostgreSQL for the fleet's Flux server (loopback only, always stopped).

Flux on SQLite is "single-node only" (its own warning on every extra worker),
and it means it: the registration route loads every registered worker, with
its packages, on the event loop, so registering the n-th worker costs n
times more (200 workers took four minutes here; 1,000 would take hours).
Flux's answer for fleets is PostgreSQL (``flux-core[postgresql]``), so the
fleet runs on one.

The server listens on 127.0.0.1 only (Flux wants a host name in its database
URL, and its migration tool cannot take a socket path there), runs as
``nobody`` when we are root (PostgreSQL refuses root), with ``fsync=off``:
its data is thrown away with the directory.

The driver (psycopg) is not part of the shared Flux venv: ``scripts/setup.sh``
installs it beside it in ``.cache/flux-postgres`` (``pip install --target``),
which goes on the Flux server's ``PYTHONPATH`` only.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

from samples.flux_lab.process import ManagedProcess, StartStop, wait_until

REPO_ROOT = Path(__file__).resolve().parents[2]
DRIVER_DIR = REPO_ROOT / ".cache" / "flux-postgres"
START_TIMEOUT_S = 60.0


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL binaries or no psycopg beside the Flux venv."""


def _binary(name: str) -> str:
    found = shutil.which(name)
    if found:
        return found
    for candidate in sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), reverse=True):
        return str(candidate)
    raise PostgresUnavailable(f"PostgreSQL's {name} is not installed")


def _free_port() -> int:
    """A port the kernel just handed out on 127.0.0.1 (PostgreSQL cannot be given port 0)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def driver_path() -> Path:
    if not (DRIVER_DIR / "psycopg").is_dir() or not (DRIVER_DIR / "psycopg_pool").is_dir():
        raise PostgresUnavailable(
            f"psycopg is not installed in {DRIVER_DIR} (run scripts/setup.sh)"
        )
    return DRIVER_DIR


class Postgres(StartStop):
    """``with Postgres() as pg: pg.url`` is a SQLAlchemy URL for Flux."""

    def __init__(self) -> None:
        self.initdb = _binary("initdb")
        self.postgres = _binary("postgres")
        self.root = Path(tempfile.mkdtemp(prefix="flux-fleet-pg-"))
        self.process: ManagedProcess | None = None
        self.port = 0
        self.user = "nobody" if os.geteuid() == 0 else pwd.getpwuid(os.geteuid()).pw_name

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://flux@127.0.0.1:{self.port}/postgres"

    def _as_user(self, argv: list[str]) -> list[str]:
        if os.geteuid() != 0:
            return argv
        runuser = shutil.which("runuser") or "/usr/sbin/runuser"
        return [runuser, "-u", self.user, "--", *argv]

    def start(self) -> None:
        if os.geteuid() == 0:
            entry = pwd.getpwnam(self.user)
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
        self.root.chmod(0o700)
        data = self.root / "data"
        done = subprocess.run(
            self._as_user([self.initdb, "-D", str(data), "-A", "trust", "-U", "flux", "--no-sync"]),
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
            raise PostgresUnavailable(f"initdb failed: {tail[0]}")
        self.port = _free_port()
        settings = {
            "listen_addresses": "127.0.0.1",
            "unix_socket_directories": str(self.root),
            "port": str(self.port),
            "fsync": "off",
            "synchronous_commit": "off",
            "max_connections": "300",
        }
        argv = [self.postgres, "-D", str(data)]
        for key, value in settings.items():
            argv += ["-c", f"{key}={value}"]
        self.process = ManagedProcess(
            "postgres",
            self._as_user(argv),
            cwd=self.root,
            env={"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"},
            log_path=self.root / "postgres.log",
        )
        self.process.start()
        wait_until(
            lambda: "ready to accept connections" in self.process_log(),
            timeout_s=START_TIMEOUT_S,
            what="PostgreSQL to accept connections",
        )

    def stop_server(self) -> None:
        """Stop PostgreSQL and keep its data: the database is gone from under its clients."""
        if self.process is not None:
            self.process.stop()

    def start_server(self) -> None:
        """Start the stopped PostgreSQL again, same data and port; wait until it accepts."""
        if self.process is None:
            raise PostgresUnavailable("PostgreSQL was never started")
        ready = self.process_log().count("ready to accept connections")
        self.process.start()
        wait_until(
            lambda: self.process_log().count("ready to accept connections") > ready,
            timeout_s=START_TIMEOUT_S,
            what="PostgreSQL to accept connections again",
        )

    def process_log(self) -> str:
        try:
            return (self.root / "postgres.log").read_text(errors="replace")
        except OSError:
            return ""

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()
            self.process = None
        shutil.rmtree(self.root, ignore_errors=True)
