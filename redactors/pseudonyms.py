"""The pseudonyms of ``--obfuscate network``: keyed, consistent, structure-keeping.

Every mapping is derived from the bundle's HMAC key (so two bundles do not
share pseudonyms) and remembered (so the same address or name maps the same
way in every member). IPv4 prefix octets are mapped per parent prefix with
collision probing, so distinct subnets stay distinct and hosts of one subnet
stay together; see :mod:`redactors.network` for what is kept as-is.
"""

from __future__ import annotations

import ipaddress
from collections import defaultdict
from collections.abc import Iterable

from .tokens import Tokenizer


class PseudonymMap:
    """original -> pseudonym for each kind (ipv4, ipv6, mac, hostname, username)."""

    def __init__(self, tokens: Tokenizer) -> None:
        self._tokens = tokens
        self._octets: dict[tuple[int, ...], dict[int, int]] = defaultdict(dict)
        self._used: dict[tuple[int, ...], set[int]] = defaultdict(set)
        self.mapped: dict[str, dict[bytes, bytes]] = defaultdict(dict)
        self.made: list[tuple[str, bytes]] = []
        """(kind, keyed identity of the original) of each pseudonym made here, in order:
        what :mod:`redactors.sharing` exports, a slice at a time, to the coordinator."""
        self._known: dict[str, set[bytes]] = defaultdict(set)
        """Per kind, the identities of every original pseudonymized here or in another
        process of the run: the report's counts (one value mapped in two workers is one)."""

    def replace(self, kind: str, value: bytes) -> bytes:
        table = self.mapped[kind]
        key = value.lower() if kind in ("hostname", "username", "mac", "ipv6") else value
        if key not in table:
            table[key] = self._pseudonym(kind, value)
            identity = self._tokens.identity(b"pseudonym|" + kind.encode() + b"|" + key)
            self.made.append((kind, identity))
            self._known[kind].add(identity)
        return table[key]

    def import_made(self, made: Iterable[tuple[str, bytes]]) -> None:
        """Count the pseudonyms another process made (identities only, never values)."""
        for kind, identity in made:
            self._known[kind].add(identity)

    def counts(self) -> dict[str, int]:
        """Distinct originals pseudonymized per kind, in this process and those imported."""
        return {kind: len(known) for kind, known in self._known.items() if known}

    def _digest(self, *parts: object) -> int:
        return int(self._tokens.digest("|".join(map(str, parts)).encode()), 16)

    def _pseudonym(self, kind: str, value: bytes) -> bytes:
        if kind == "ipv4":
            return self._map_ipv4(ipaddress.IPv4Address(value.decode())).encode()
        if kind == "ipv4-dashed":
            return (
                self._map_ipv4(ipaddress.IPv4Address(value.replace(b"-", b".").decode()))
                .replace(".", "-")
                .encode()
            )
        if kind == "ipv6":
            return self._map_ipv6(ipaddress.IPv6Address(value.decode())).encode()
        if kind == "mac":
            return self._map_mac(value)
        if kind == "username":
            return f"user-{self._digest('user', value):08x}"[:13].encode()
        labels = value.split(b".")
        first = f"host-{self._digest('host', labels[0].lower()):08x}"[:11]
        if len(labels) == 1:
            return first.encode()
        middle = b".".join(labels[1:-1]).lower()
        parts = [first]
        if middle:
            parts.append(f"domain-{self._digest('domain', middle):08x}"[:11])
        parts.append(labels[-1].decode("latin-1").lower())
        return ".".join(parts).encode()

    def _map_mac(self, value: bytes) -> bytes:
        """Same length and separators; the first bytes mark it locally administered (02:53:4f)."""
        text = value.decode().lower()
        digits = sum(c in "0123456789abcdef" for c in text)
        stream = "02534f" + self._tokens.digest(b"mac|" + text.encode()) * 8
        fake = iter(stream[:digits])
        return "".join(next(fake) if c in "0123456789abcdef" else c for c in text).encode()

    def _octet(self, parent: tuple[int, ...], value: int, lo: int, hi: int) -> int:
        table = self._octets[parent]
        if value in table:
            return table[value]
        span = hi - lo + 1
        candidate = lo + self._digest("v4", parent, value) % span
        used = self._used[parent]
        for _ in range(span):
            if candidate not in used:
                break
            candidate = lo + (candidate - lo + 1) % span
        used.add(candidate)
        table[value] = candidate
        return candidate

    def _map_ipv4(self, address: ipaddress.IPv4Address) -> str:
        if kept(address):
            return str(address)
        a, b, c, d = address.packed
        if a == 10:
            na, nb = 10, self._octet((10,), b, 0, 255)
        elif a == 172 and 16 <= b <= 31:
            na, nb = 172, self._octet((172,), b, 16, 31)
        elif a == 192 and b == 168:
            na, nb = 192, 168
        elif a == 100 and 64 <= b <= 127:
            na, nb = 100, self._octet((100,), b, 64, 127)
        else:
            na = self._octet((), a, 1, 223)
            while na in (10, 127, 169, 172, 192, 100):
                na = self._octet((), a + 1000 * na, 1, 223)
            nb = self._octet((na,), b, 0, 255)
        nc = self._octet((na, nb), c, 0, 255)
        return f"{na}.{nb}.{nc}.{d}"

    def _map_ipv6(self, address: ipaddress.IPv6Address) -> str:
        if address.ipv4_mapped is not None:
            return "::ffff:" + self._map_ipv4(address.ipv4_mapped)
        packed = address.packed
        prefix = self._digest("v6net", packed[:8].hex())
        iface = self._digest("v6if", packed.hex())
        if address.is_link_local:
            head = [0xFE80, 0, 0, 0]
        elif address.is_private:
            head = [0xFD00 | (prefix >> 24 & 0xFF), prefix >> 8 & 0xFFFF, prefix & 0xFF, 0]
        else:
            head = [0x2001, 0x0DB8, prefix >> 16 & 0xFFFF, prefix & 0xFFFF]
        tail = [0, 0, iface >> 16 & 0xFFFF, iface & 0xFFFF]
        return str(ipaddress.IPv6Address(":".join(f"{g:x}" for g in head + tail)))


def kept(address: ipaddress.IPv4Address) -> bool:
    return (
        address.is_loopback
        or address.is_unspecified
        or address.is_link_local
        or address.is_multicast
        or address == ipaddress.IPv4Address("255.255.255.255")
    )
