"""The hosts of a run: inventory entries, ``--ssh`` addresses and ``--local``, aliased h01, h02...

Aliases are what member names use (names are visible without the bundle
password), so they are positional, never derived from a hostname. The
inventory comes first (in file order), then ``--ssh`` addresses not already
in it, then this machine for ``--local`` when the inventory has no
``address: local`` entry. An inventory may list ``local`` several times (a
lab where server and workers share one machine): each is its own host.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from schemas import HostRole, HostSummary

from ..errors import UsageError
from .inventory import Inventory, LogSpec
from .transports.address import parse_address

RESERVED_VARIABLES = frozenset(
    {"alias", "role", "worker", "state_dir", "log_file", "log_index", "index"}
)


@dataclass(frozen=True)
class HostTarget:
    alias: str
    address: str
    role: HostRole = HostRole.WORKER
    worker: str | None = None
    logs: tuple[LogSpec, ...] = ()
    state_dir: str | None = None
    vars: Mapping[str, str] = field(default_factory=dict)
    order: int = 1

    @property
    def is_local(self) -> bool:
        return self.address == "local"

    @property
    def transport(self) -> Literal["ssh", "local"]:
        return "local" if self.is_local else "ssh"

    def variables(self) -> dict[str, str]:
        """Template variables of host steps (plan.py): alias, role, worker, state_dir, vars."""
        values = dict(self.vars)
        values.update(alias=self.alias, role=self.role.value)
        if self.worker is not None:
            values["worker"] = self.worker
        if self.state_dir is not None:
            values["state_dir"] = self.state_dir
        return values

    def summary(self, fingerprint: str | None = None, tofu: bool = False) -> HostSummary:
        return HostSummary(
            alias=self.alias,
            address=self.address,
            role=self.role,
            worker=self.worker,
            transport="local" if self.is_local else "ssh",
            host_key_fingerprint=fingerprint,
            host_key_trusted_on_first_use=tofu,
        )


def alias_for(position: int) -> str:
    return f"h{position:02d}"


def build_targets(
    inventory: Inventory | None, ssh: Sequence[str] = (), local: bool = False
) -> list[HostTarget]:
    """Every host of the run, in a stable order, with its alias."""
    targets: list[HostTarget] = []
    seen: set[str] = set()

    def add(target_kwargs: dict[str, object]) -> None:
        position = len(targets) + 1
        targets.append(HostTarget(alias=alias_for(position), order=position, **target_kwargs))  # type: ignore[arg-type]

    for spec in inventory.hosts if inventory else []:
        clash = sorted(RESERVED_VARIABLES & set(spec.vars))
        if clash:
            raise UsageError(
                f"inventory host {spec.address!r}: vars may not redefine {', '.join(clash)}"
            )
        if not spec.is_local:
            parse_address(spec.address)
        seen.add(spec.address)
        add(
            {
                "address": spec.address,
                "role": spec.role,
                "worker": spec.worker,
                "logs": tuple(spec.logs),
                "state_dir": spec.state_dir,
                "vars": dict(spec.vars),
            }
        )
    for address in ssh:
        if address == "local":
            raise UsageError("use --local (not --ssh local) to collect this machine")
        parse_address(address)
        if address in seen:
            continue
        seen.add(address)
        add({"address": address})
    if local and "local" not in seen:
        add({"address": "local", "role": HostRole.OTHER})
    return targets
