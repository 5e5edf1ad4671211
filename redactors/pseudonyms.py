"""The pseudonyms of ``--obfuscate network``: keyed, consistent, structure-keeping.

Every mapping is derived from the bundle's HMAC key (so two bundles do not
share pseudonyms) and remembered (so the same address or name maps the same
way in every member). IPv4 prefixes are mapped by keyed permutations (small
Feistel networks, cycle-walked into their range), so distinct subnets stay
distinct and hosts of one subnet stay together, and the mapping does not depend
on the order addresses are met: the processes of one ``bundler redact`` run,
each meeting addresses in its own order, give every address the same pseudonym.
See :mod:`redactors.network` for what is kept as-is.
"""

from __future__ import annotations

import ipaddress
from collections import defaultdict
from collections.abc import Callable, Iterable

from .tokens import Tokenizer


class PseudonymMap:
    """original -> pseudonym for each kind (ipv4, ipv6, mac, hostname, username)."""

    def __init__(self, tokens: Tokenizer) -> None:
        self._tokens = tokens
        self._octets: dict[tuple[int, ...], dict[int, int]] = defaultdict(dict)
        self._prefixes: dict[int, int] = {}
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

    def _feistel(self, tweak: object, value: int, half_bits: int) -> int:
        """A keyed permutation of ``0 .. 2**(2*half_bits) - 1`` (four Feistel rounds)."""
        mask = (1 << half_bits) - 1
        left, right = value >> half_bits, value & mask
        for round_ in range(4):
            left, right = right, left ^ (self._digest("v4", tweak, round_, right) & mask)
        return (left << half_bits) | right

    def _walk(
        self, tweak: object, value: int, half_bits: int, inside: Callable[[int], bool]
    ) -> int:
        """The permutation restricted to ``inside`` (cycle walking): a bijection of that set.

        ``value`` must be inside; following the permutation's cycle from it must come back
        into the set, at the latest at ``value`` itself.
        """
        image = self._feistel(tweak, value, half_bits)
        while not inside(image):
            image = self._feistel(tweak, image, half_bits)
        return image

    def _octet(self, parent: tuple[int, ...], value: int, lo: int, hi: int) -> int:
        table = self._octets[parent]
        if value not in table:
            table[value] = self._walk(parent, value, 4, lambda octet: lo <= octet <= hi)
        return table[value]

    def _prefix(self, a: int, b: int) -> tuple[int, int]:
        """A public /16 to a public /16 of the same class (ordinary or special-purpose)."""
        pair = a << 8 | b
        if pair not in self._prefixes:
            inside = _ordinary if _ordinary(pair) else _special_public
            self._prefixes[pair] = self._walk("public", pair, 8, inside)
        mapped = self._prefixes[pair]
        return mapped >> 8, mapped & 0xFF

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
            na, nb = self._prefix(a, b)
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


def _private_branch(pair: int) -> bool:
    """A /16 that ``_map_ipv4`` maps within its private range (10/8, 172.16/12, ...)."""
    a, b = pair >> 8, pair & 0xFF
    return (
        a == 10
        or (a == 172 and 16 <= b <= 31)
        or (a == 192 and b == 168)
        or (a == 100 and 64 <= b <= 127)
    )


def _ordinary(pair: int) -> bool:
    """An ordinary public /16: unicast, and no special-purpose block inside it.

    Public addresses map onto these only, so a public address never looks private,
    reserved or like documentation space (``ipaddress``'s ``is_private`` ranges).
    """
    a, b = pair >> 8, pair & 0xFF
    if not 1 <= a <= 223 or a in (10, 127) or _private_branch(pair):
        return False
    special = {(169, 254), (192, 0), (198, 18), (198, 19), (198, 51), (203, 0)}
    return (a, b) not in special


def _special_public(pair: int) -> bool:
    """The rest of what reaches the public branch (0/8, 192.0.2/24's /16, 240/4, ...):
    mapped among themselves, so an ordinary address never takes one's pseudonym."""
    a, b = pair >> 8, pair & 0xFF
    if _ordinary(pair) or _private_branch(pair) or a == 127 or 224 <= a <= 239:
        return False
    return (a, b) != (169, 254)


def kept(address: ipaddress.IPv4Address) -> bool:
    return (
        address.is_loopback
        or address.is_unspecified
        or address.is_link_local
        or address.is_multicast
        or address == ipaddress.IPv4Address("255.255.255.255")
    )
