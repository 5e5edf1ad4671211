"""Write the ``bundler doctor --inventory`` file for a running lab.

Every host is ``address: local`` (the lab runs on this machine), with the
role, worker name, log file and state directory a real deployment would list,
plus the variables the Flux profile's host steps use:

* ``flux_home``: the process's working directory (Flux reads ``flux.toml`` and
  ``.flux/`` relative to it; ``flux worker status`` must run there);
* ``flux_bin_dir``: the directory holding the ``flux`` executable (the
  read-only guard wants a literal program name, so the plan runs
  ``{flux_bin_dir}/flux``);
* ``db_path``: the server's SQLite database (server only; none when it runs on
  PostgreSQL);
* ``flux_pid``: the process id, so its ``FLUX_*`` start-up environment can be
  read from ``/proc/<pid>/environ`` (secret-named variables skipped);
  a systemd deployment gives ``flux_unit`` instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

if TYPE_CHECKING:
    from .lab import FluxLab
    from .process import ManagedProcess


def inventory_data(lab: FluxLab) -> dict[str, Any]:
    """The inventory as plain data (the YAML file's content)."""
    bin_dir = str(lab.flux.bin_dir)
    hosts: list[dict[str, Any]] = [
        {
            "address": "local",
            "role": "server",
            "logs": [{"file": str(lab.logs_dir / "server.log")}],
            "state_dir": str(lab.server_dir / ".flux"),
            "vars": {
                "flux_home": str(lab.server_dir),
                "flux_bin_dir": bin_dir,
                **({"db_path": str(lab.db_path)} if lab.config.on_sqlite else {}),
                **_pid(lab.server),
            },
        }
    ]
    for spec in lab.config.workers:
        home = lab.worker_dir(spec.name)
        hosts.append(
            {
                "address": "local",
                "role": "worker",
                "worker": spec.name,
                "logs": [{"file": str(lab.worker_log(spec.name))}],
                "state_dir": str(home / ".flux"),
                "vars": {
                    "flux_home": str(home),
                    "flux_bin_dir": bin_dir,
                    **_pid(lab.workers.get(spec.name)),
                },
            }
        )
    return {"hosts": hosts}


def _pid(process: ManagedProcess | None) -> dict[str, str]:
    """``flux_pid`` of a running process; nothing for one that is not running."""
    if process is None or not process.alive():
        return {}
    return {"flux_pid": str(process.pid)}


def write_inventory(lab: FluxLab, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    header = "# Written by samples.flux_lab for `bundler doctor --local --inventory`.\n"
    path.write_text(header + yaml.safe_dump(inventory_data(lab), sort_keys=False))
    return path
