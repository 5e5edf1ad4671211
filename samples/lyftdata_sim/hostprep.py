"""Prepare worker hosts' files: the state directory, logs, and stand-ins for product tools.

LyftData's worker cannot run here, so each scenario host gets what a real one
leaves on disk: a ``LYFTDATA_JOBS_DIR`` with real SQLite state files (one
really corrupted where the scenario says so), a cached API key file (whose
*content* bundler must never collect), a worker log, and small stand-in
programs on a ``bin/`` directory meant to be first on ``PATH``:

* ``lyftdata-worker`` answers ``--version`` and refuses anything else (so a
  ``--reset-state`` by mistake would be visible as a failure);
* ``systemctl`` answers ``show ... lyftdata-worker.service`` from the scenario
  (containers have no systemd);
* ``lyftdata`` (only when ``cli: true``) answers ``doctor --json`` and
  ``workers status|sysinfo|logs`` by asking the simulator.

These are stand-ins, not the product; docs/lyftdata-contract.md says so.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from .api import iso
from .scenario import HostSpec, Scenario, StateFileSpec, resolve_time

PAGE_SIZE = 4096


@dataclass(frozen=True)
class PreparedHost:
    worker: str
    root: str
    state_dir: str
    bin_dir: str
    log_file: str


def _write_sqlite(path: Path, spec: StateFileSpec) -> None:
    """A real SQLite file with enough rows to span several pages."""
    con = sqlite3.connect(path)
    try:
        con.execute("PRAGMA page_size = 4096")
        con.execute("CREATE TABLE state (id INTEGER PRIMARY KEY, name TEXT, payload BLOB)")
        con.execute("CREATE INDEX state_name ON state(name)")
        con.executemany(
            "INSERT INTO state(name, payload) VALUES (?, ?)",
            [(f"{path.stem}-{i}", bytes([i % 251]) * 300) for i in range(max(spec.rows, 1))],
        )
        con.commit()
    finally:
        con.close()
    if spec.corrupt:
        _corrupt(path)


def _corrupt(path: Path) -> None:
    """Overwrite a b-tree page header past the schema page: integrity_check then fails."""
    pages = path.stat().st_size // PAGE_SIZE
    if pages < 3:
        raise ValueError(f"{path.name}: too small to corrupt convincingly (give it more rows)")
    with path.open("r+b") as handle:
        handle.seek(PAGE_SIZE * 2)
        handle.write(b"\xff" * 64)


def _log_line(at: datetime | None, level: str, target: str, message: str) -> str:
    stamp = (at or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    return f"{stamp} {level:<5} {target} > {message}\n"


def _script(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(0o755)


def _standins(host: HostSpec, scenario: Scenario, bin_dir: Path, sim: dict[str, str]) -> None:
    worker = scenario.worker(host.worker)
    version = worker.version if worker else "unknown"
    _script(
        bin_dir / "lyftdata-worker",
        "#!/bin/sh\n# Stand-in for the LyftData worker binary (the product cannot run here).\n"
        f'if [ "$1" = "--version" ]; then echo "lyftdata-worker {version}"; exit 0; fi\n'
        'echo "lyftdata-worker stand-in: refusing $*" >&2; exit 64\n',
    )
    svc = host.service
    _script(
        bin_dir / "systemctl",
        "#!/bin/sh\n# Stand-in for systemctl (no systemd in this container).\n"
        'case "$*" in *lyftdata-worker*) ;; *) echo "unit not simulated" >&2; exit 4;; esac\n'
        "cat <<'EOF'\nId=lyftdata-worker.service\nLoadState=loaded\n"
        f"ActiveState={svc.active}\nSubState={svc.sub}\n"
        f"MainPID={4242 if svc.active == 'active' else 0}\n"
        f"NRestarts={svc.restarts}\nActiveEnterTimestamp=Mon 2026-01-05 09:00:00 UTC\nEOF\n",
    )
    if host.cli:
        cli = Path(__file__).with_name("cli_standin.py").read_text()
        header = (
            f"#!{sys.executable}\n# Stand-in for the lyftdata CLI, answering from the simulator.\n"
        )
        body = cli.replace("SIM: dict[str, str] = {}", f"SIM: dict[str, str] = {json.dumps(sim)}")
        _script(bin_dir / "lyftdata", header + body)


def prepare_hosts(
    scenario: Scenario,
    root: Path,
    *,
    server_url: str,
    token: str | None,
    ca_file: Path | None,
    now: datetime | None = None,
) -> list[PreparedHost]:
    """Lay out every scenario host under ``root/<worker>/``; writes ``root/hosts.json``."""
    now = now or datetime.now(UTC)
    sim = {"url": server_url, "token": token or "", "ca_file": str(ca_file or "")}
    prepared = []
    for host in scenario.hosts:
        base = root / host.worker
        state, bin_dir, logs = base / "state", base / "bin", base / "logs"
        for directory in (state, bin_dir, logs):
            directory.mkdir(parents=True, exist_ok=True)
        for spec in host.state_files:
            path = state / spec.path
            path.parent.mkdir(parents=True, exist_ok=True)
            if spec.kind == "sqlite":
                _write_sqlite(path, spec)
            else:
                path.write_text(spec.content or "")
                path.chmod(0o600)
        lines = sorted(
            (resolve_time(line.at, now), line.level, line.target, line.message)
            for line in host.log_lines
        )
        log_file = logs / "worker.log"
        log_file.write_text("".join(_log_line(*line) for line in lines))
        _standins(host, scenario, bin_dir, sim)
        prepared.append(
            PreparedHost(host.worker, str(base), str(state), str(bin_dir), str(log_file))
        )
    (root / "hosts.json").write_text(
        json.dumps({"prepared_at": iso(now), "hosts": [asdict(h) for h in prepared]}, indent=2)
    )
    return prepared
