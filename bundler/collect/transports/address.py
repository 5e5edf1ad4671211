"""``[user@]host[:port]``: the SSH address syntax of ``--ssh`` and inventories (no paramiko)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...errors import UsageError

_ADDRESS = re.compile(
    r"^(?:(?P<user>[^@\s]+)@)?(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<host>[^:@\s\[\]]+))"
    r"(?::(?P<port>\d{1,5}))?$"
)


@dataclass(frozen=True)
class Address:
    host: str
    user: str | None = None
    port: int | None = None


def parse_address(text: str) -> Address:
    """``[user@]host[:port]`` (``[v6]:port`` for IPv6, or ``ssh://user@host:port``)."""
    value = text.strip().removeprefix("ssh://")
    match = _ADDRESS.match(value)
    if not match or (match["port"] and not 0 < int(match["port"]) < 65536):
        raise UsageError(f"invalid SSH address {text!r}", hint="use [USER@]HOST[:PORT]")
    port = int(match["port"]) if match["port"] else None
    return Address(host=match["v6"] or match["host"], user=match["user"], port=port)
