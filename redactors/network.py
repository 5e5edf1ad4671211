"""``--obfuscate network``: consistent pseudonyms for IPs, MACs, host names and user names.

Support needs network identifiers (which worker talks to which server), so
they are kept by default. When the customer asks, each is replaced by a
pseudonym that is stable within the bundle and keeps the structure an
analyst reasons with (the sos clean model):

* IPv4: private stays private (10/8 in 10/8, 192.168/16 in 192.168/16...),
  every prefix octet is mapped per parent prefix and the host octet kept, so
  two hosts of one /24 stay in one (pseudonymous) /24; loopback, unspecified,
  link-local, multicast and broadcast are kept. Candidates are validated
  (``ipaddress``) and version-like strings (``1.3.4.0``, ``v2.1.1.108``,
  OIDs) are left alone. Dashed forms in host names (``ip-10-1-2-3``) too.
* IPv6: ``::1`` and the link-local prefix kept, every /64 mapped into the
  documentation prefix (global) or ``fd00::/8`` (ULA), interface id hashed;
  an IPv4-mapped address maps its IPv4 part.
* MAC: locally administered ``02:53:4f:xx:xx:xx``.
* Host names (syslog host field, URL hosts, names the caller knows) ->
  ``host-<hex>`` (domain labels -> ``domain-<hex>``, TLD kept), and user
  names (``/home/alice``, ``C:\\Users\\alice``, ``uid=1000(alice)``, sshd
  ``for alice from``) -> ``user-<hex>``. Names learned anywhere are replaced
  everywhere at finalization.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable, Iterator
from typing import Any

from .keys import is_placeholder, key_words
from .literals import _Matcher
from .pseudonyms import PseudonymMap, kept
from .rules import ALNUM, Hit, Rule, View
from .tokens import Tokenizer
from .values import NeedMore, value_spans

KEEP_HOSTS = frozenset(
    {
        "localhost",
        "github.com",
        "gitlab.com",
        "hooks.slack.com",
        "pypi.org",
        "files.pythonhosted.org",
        "registry.npmjs.org",
        "docker.io",
        "registry-1.docker.io",
        "example.com",
        "example.org",
        "example.net",
        "googleapis.com",
        "amazonaws.com",
        "azure.com",
        "quay.io",
        "ghcr.io",
    }
)
KEEP_USERS = frozenset(
    {
        "root",
        "nobody",
        "daemon",
        "www-data",
        "sshd",
        "systemd-network",
        "syslog",
        "messagebus",
        "_apt",
    }
)
_NOT_USERS = frozenset(
    {b"true", b"false", b"null", b"none", b"anonymous", b"unknown", b"default", b"admin",
     b"system", b"guest", b"user", b"users", b"any", b"all", b"n/a", b"success", b"succeeded",
     b"failed", b"failure", b"error", b"denied", b"ok", b"enabled", b"disabled", b"required",
     b"optional", b"local", b"remote", b"self", b"current"}
)  # fmt: skip
_VERSION_RE = re.compile(rb"v?[0-9]+(?:\.[0-9]+)+(?:[-+][A-Za-z0-9.]+)?")
_KEY_CHARS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_HOST_CHARS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-")
HOST_WORDS = frozenset({"host", "hostname", "fqdn", "node", "nodename", "machine", "server",
                        "servername", "hosts"})  # fmt: skip
USER_WORDS = frozenset({"user", "username", "login", "owner", "account", "uid_name", "usr"})
_NOT_NAME_SUFFIXES = frozenset(
    {"id", "ids", "port", "ports", "count", "agent", "type", "kind", "group", "groups", "path",
     "dir", "url", "uri", "key", "keys", "cert", "ip", "ips", "address", "addr", "status",
     "state", "role", "roles", "version", "time", "timeout", "limit", "max", "min", "data",
     "info", "name_format", "network", "networks", "pool", "set", "list", "mode", "enabled"}
)  # fmt: skip


def network_key_kind(key: str) -> str | None:
    """``hostname`` -> "hostname", ``DB_USER`` -> "username"; ``user_id``, ``host_port`` -> None."""
    words = key_words(key)
    if not words or words[-1] in _NOT_NAME_SUFFIXES:
        return None
    last = words[-1]
    if last in HOST_WORDS or "".join(words[-2:]) in HOST_WORDS:
        return "hostname"
    if last in USER_WORDS or "".join(words[-2:]) in USER_WORDS:
        return "username"
    return None


PSEUDONYM_RE = re.compile(rb"(?:host|user|domain)-[0-9a-f]{6,8}")
_HOST_RE = re.compile(rb"[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9-]{1,63})*")
_USER_RE = re.compile(rb"[A-Za-z_][A-Za-z0-9_.-]{0,31}")


class NetworkPseudonymizer:
    def __init__(self, tokens: Tokenizer) -> None:
        self.pseudonyms = PseudonymMap(tokens)
        self._names: dict[bytes, tuple[str, bytes]] = {}
        self._matcher: _Matcher | None = None

    # -- rules -----------------------------------------------------------------------------
    def rules(self, known_hosts: Iterable[str] = ()) -> list[Rule]:
        for host in known_hosts:
            self.learn_name("hostname", host.encode())

        def mk(rule_id: str, kind: str, pattern: bytes, handler: Any, low: bool = False) -> Rule:
            return Rule(
                rule_id,
                kind,
                "network",
                f"--obfuscate network: {kind}",
                pattern,
                lower=low,
                handler=handler,
            )

        return [
            mk(
                "net-ipv4",
                "ipv4",
                rb"[0-9]\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}(?![0-9])",
                self._ipv4,
            ),
            mk(
                "net-ipv4-dashed",
                "ipv4",
                rb"-[0-9]{1,3}-[0-9]{1,3}-[0-9]{1,3}-[0-9]{1,3}(?![0-9])",
                self._dashed,
            ),
            mk("net-ipv6", "ipv6", rb"::|[0-9a-f]{1,4}(?::[0-9a-f]{1,4}){7}", self._ipv6, True),
            mk(
                "net-mac",
                "mac",
                rb"[0-9a-f]{2}([:-])[0-9a-f]{2}(?:\1[0-9a-f]{2}){4,18}(?![0-9a-f:])"
                rb"|[0-9a-f]{4}\.[0-9a-f]{4}\.[0-9a-f]{4}(?![0-9a-f.])",
                self._mac,
                True,
            ),
            mk("net-url-host", "hostname", rb"://", self._url_host),
            mk(
                "net-syslog-host",
                "hostname",
                rb"(?m)^[A-Z][a-z]{2} [ 0-3][0-9] [0-9]{2}:[0-9]{2}:[0-9]{2} ([A-Za-z0-9._-]+) ",
                self._group_host,
            ),
            mk("net-home-user", "username", rb"/home/|/users/|\\users\\", self._home_user, True),
            mk("net-uid-user", "username", rb"uid=[0-9]+\(", self._uid_user),
            mk("net-sshd-user", "username", rb" for (?:invalid user )?", self._sshd_user),
            mk(
                "net-key-name",
                "hostname",
                rb"(?:host|user|node|login|owner|machine|fqdn|server|account)"
                rb"(?P<rest>[a-z0-9_.-]{0,24})(?:\\*[\"']|&quot;)?[ \t]{0,4}(?P<sep>=>|:=|[:=])",
                self._key_name,
                True,
            ),
            mk(
                "net-host-port",
                "hostname",
                rb"\.[a-z]{2,24}:[0-9]{2,5}(?![0-9])",
                self._host_port,
                True,
            ),
            Rule(
                "net-learned-names",
                "hostname",
                "network",
                "--obfuscate network: learned names",
                scanner=self.name_hits,
            ),
        ]

    def _hit(self, start: int, end: int, kind: str, rule: str) -> Hit:
        return Hit(start, end, kind, rule, via="pseudonym")

    def _ipv4(self, view: View, match: re.Match[bytes], rule: Rule) -> Iterator[Hit]:
        data = view.data
        start = match.start()
        # the match starts at the first octet's last digit (a pattern led by its first dot
        # would start at the dot of ``worker.10.20.30.40`` and miss the address)
        while start > 0 and data[start - 1] in b"0123456789" and match.start() - start < 2:
            start -= 1
        if (
            (start > 0 and data[start - 1] in b"0123456789vV")
            or (start > 0 and data[start - 1] == 0x2E and _numeric_before_dot(data, start - 1))
            or (data[start : start + 1] == b"0" and match.start() > start)
        ):
            return
        end = match.end()
        if data[end : end + 1] == b"." and data[end + 1 : end + 2].isdigit():
            return
        text = data[start:end]
        try:
            address = ipaddress.IPv4Address(text.decode())
        except ValueError:
            return
        if all(len(o) == 1 for o in text.split(b".")) or kept(address):
            return
        yield self._hit(start, end, "ipv4", rule.id)

    def _dashed(self, view: View, match: re.Match[bytes], rule: Rule) -> Iterator[Hit]:
        start = match.start() + 1
        if match.start() == 0 or view.data[match.start() - 1] not in ALNUM:
            return
        try:
            address = ipaddress.IPv4Address(
                view.data[start : match.end()].replace(b"-", b".").decode()
            )
        except ValueError:
            return
        if address.is_private and not kept(address):
            yield self._hit(start, match.end(), "ipv4-dashed", rule.id)

    def _ipv6(self, view: View, match: re.Match[bytes], rule: Rule) -> Iterator[Hit]:
        data = view.data
        chars = frozenset(b"0123456789abcdefABCDEF:.")
        start, end = match.start(), match.end()
        while start > 0 and data[start - 1] in chars:
            start -= 1
        while end < len(data) and data[end] in chars:
            end += 1
        text = data[start:end].rstrip(b".:")
        if text.startswith(b":") and not text.startswith(b"::"):
            text, start = text[1:], start + 1
        zone = b""
        if data[start + len(text) : start + len(text) + 1] == b"%":
            zone_match = re.compile(rb"%[A-Za-z0-9_.-]+").match(data, start + len(text))
            zone = zone_match.group() if zone_match else b""
        try:
            address = ipaddress.IPv6Address(text.decode())
        except ValueError:
            return
        if address.is_loopback or address.is_unspecified or text.count(b":") < 2:
            return
        yield self._hit(start, start + len(text), "ipv6", rule.id)
        del zone

    def _mac(self, view: View, match: re.Match[bytes], rule: Rule) -> Iterator[Hit]:
        if (
            match.group()
            .lower()
            .replace(b"-", b":")
            .replace(b".", b"")
            .startswith((b"02:53:4f", b"02534f"))
        ):
            return  # one of ours
        if (
            view.left_ok(match.start(), ALNUM | frozenset(b":"))
            and match.group().lower() != b"00:00:00:00:00:00"
        ):
            yield self._hit(match.start(), match.end(), "mac", rule.id)

    def _url_host(self, view: View, match: re.Match[bytes], rule: Rule) -> Iterator[Hit]:
        data = view.data
        pos = match.end()
        end = pos
        while end < len(data) and data[end] not in b"/?#:\"' \t\r\n<>@[]":
            end += 1
        if data[end : end + 1] == b"@":  # userinfo: the host comes after it
            pos = end + 1
            end = pos
            while end < len(data) and data[end] not in b"/?#:\"' \t\r\n<>[]":
                end += 1
        host = data[pos:end]
        if self._hostlike(host):
            self.learn_name("hostname", host)
            yield self._hit(pos, end, "hostname", rule.id)

    def _group_host(self, view: View, match: re.Match[bytes], rule: Rule) -> Iterator[Hit]:
        host = match.group(1)
        if self._hostlike(host):
            self.learn_name("hostname", host)
            yield self._hit(match.start(1), match.end(1), "hostname", rule.id)

    def _hostlike(self, host: bytes) -> bool:
        if PSEUDONYM_RE.fullmatch(host.split(b".")[0]):
            return False  # already a pseudonym: redacting twice changes nothing
        if not host or not _HOST_RE.fullmatch(host) or host.lower().decode() in KEEP_HOSTS:
            return False
        if any(host.lower().endswith(b"." + k.encode()) for k in KEEP_HOSTS if k != "localhost"):
            return False
        try:
            ipaddress.ip_address(host.decode())
            return False  # the IP rules handle it
        except ValueError:
            return not host.replace(b".", b"").isdigit()

    def _user_at(self, view: View, pos: int, rule: Rule) -> Iterator[Hit]:
        found = _USER_RE.match(view.data, pos)
        if found and PSEUDONYM_RE.fullmatch(found.group()):
            return
        name = found.group().decode("ascii") if found else ""  # _USER_RE is ASCII only
        if found and name not in KEEP_USERS and name.lower() not in KEEP_USERS:
            self.learn_name("username", found.group())
            yield self._hit(found.start(), found.end(), "username", rule.id)

    def _home_user(self, view: View, match: re.Match[bytes], rule: Rule) -> Iterator[Hit]:
        yield from self._user_at(view, match.end(), rule)

    def _uid_user(self, view: View, match: re.Match[bytes], rule: Rule) -> Iterator[Hit]:
        yield from self._user_at(view, match.end(), rule)

    def _sshd_user(self, view: View, match: re.Match[bytes], rule: Rule) -> Iterator[Hit]:
        line_start = view.data.rfind(b"\n", 0, match.start()) + 1
        head = view.low[line_start : match.start()]
        if b"accepted " in head or b"failed " in head or b"session opened" in head:
            yield from self._user_at(view, match.end(), rule)

    def _key_name(self, view: View, match: re.Match[bytes], rule: Rule) -> Iterator[Hit]:
        """``hostname: w1.corp``, ``"user": "alice"``, ``HOST=db01``, ``--host db01``: a value
        under a key that names a host or a user, in any syntax (JSON, YAML, env, logfmt)."""
        data = view.data
        start = match.start()
        while start > 0 and data[start - 1] in _KEY_CHARS:
            start -= 1
        key = data[start : match.end("rest")].decode("latin-1")
        kind = network_key_kind(key)
        if kind is None:
            return
        strong = "".join(key_words(key)[-2:]).endswith(("hostname", "fqdn", "nodename"))
        try:
            spans = value_spans(data, match.end(), final=view.final, allow_next_line=False)
        except NeedMore:
            view.need_more_from(start)
            return
        for span in spans:
            value = data[span.start : span.end]
            if kind == "hostname" and (
                self._named_host(value) or (strong and self._hostlike(value))
            ):
                self.learn_name("hostname", value)
                yield self._hit(span.start, span.end, "hostname", rule.id)
            elif kind == "username" and self._userlike(value):
                self.learn_name("username", value)
                yield self._hit(span.start, span.end, "username", rule.id)

    def _host_port(self, view: View, match: re.Match[bytes], rule: Rule) -> Iterator[Hit]:
        """``db01.corp.example.io:5432`` in prose: a name with a port is a host."""
        data = view.data
        end = match.end() - len(match.group().rsplit(b":", 1)[1]) - 1
        start = match.start()
        while start > 0 and data[start - 1] in _HOST_CHARS:
            start -= 1
        if start > 0 and data[start - 1] in b"@/":
            return  # a URL or user@host: other rules
        host = data[start:end]
        if host.count(b".") >= 1 and self._hostlike(host) and not host[:1].isdigit():
            self.learn_name("hostname", host)
            yield self._hit(start, end, "hostname", rule.id)

    def _named_host(self, value: bytes) -> bool:
        """A host name given as a key's value: with a dot, digit or dash (``db01``,
        ``worker-07``, ``db.corp``), not a product word (``Server: nginx``) or a version."""
        return (
            self._hostlike(value)
            and any(c in b".-0123456789" for c in value)
            and not _VERSION_RE.fullmatch(value)
        )

    def _userlike(self, value: bytes) -> bool:
        if not _USER_RE.fullmatch(value) or PSEUDONYM_RE.fullmatch(value):
            return False
        low = value.lower()
        return (
            low.decode("ascii") not in KEEP_USERS  # _USER_RE matched: ASCII
            and low not in _NOT_USERS
            and not is_placeholder(value)
            and not value.isdigit()
        )

    # -- learned names ---------------------------------------------------------------------
    def learn_name(self, kind: str, name: bytes) -> None:
        """Remember a name to pseudonymize everywhere; an FQDN teaches its short name too
        (``worker-07.corp.example`` -> ``worker-07``, which maps to the same ``host-`` label)
        when that looks like a host name (a digit or a dash), not a word (``api``)."""
        key = name.lower()
        if len(key) < 3 or key in self._names:
            return
        self._names[key] = (kind, name)
        self._matcher = None
        if kind == "hostname" and b"." in key:
            short = name.split(b".", 1)[0]
            if len(short) >= 4 and any(c in b"0123456789-" for c in short):
                self.learn_name(kind, short)

    def export_names(self) -> list[tuple[str, bytes]]:
        return list(self._names.values())

    def import_names(self, names: Iterable[tuple[str, bytes]]) -> None:
        for kind, name in names:
            self.learn_name(kind, name)

    def name_hits(self, view: View) -> Iterator[Hit]:
        if not self._names:
            return
        if self._matcher is None:
            self._matcher = _Matcher({k: v for k, v in self._names.items()})
        for start, end, kind, _ in self._matcher.find(view.low):
            # A short name must stand alone (db01 is not db01-old); an FQDN may be glued
            # into a longer token (sosreport-db01.corp.example.com-2026).
            edge = ALNUM if b"." in view.low[start:end] else ALNUM | frozenset(b"-_")
            if (start == 0 or view.low[start - 1] not in edge) and (
                end == len(view.low) or view.low[end] not in edge
            ):
                yield self._hit(start, end, kind, "net-learned-names")

    # -- pseudonyms ------------------------------------------------------------------------
    def replace(self, kind: str, value: bytes) -> bytes:
        return self.pseudonyms.replace(kind, value)

    def counts(self) -> dict[str, int]:
        return self.pseudonyms.counts()

    def export_made(self, since: int = 0) -> list[tuple[str, bytes]]:
        """The pseudonyms made here after the first ``since``, as (kind, keyed identity)."""
        return self.pseudonyms.made[since:]

    def import_made(self, made: Iterable[tuple[str, bytes]]) -> None:
        self.pseudonyms.import_made(made)


def _numeric_before_dot(data: bytes, dot: int) -> bool:
    """Whether the ``.`` at ``dot`` continues a run of numbers (an OID ``1.3.6.1.4.1``, a
    version ``2.10.20.30.40``), or starts the text: four numbers after it are then part
    of that run, not an address. After a word (``worker.10.20.30.40.heartbeat``, a
    metric's name) they are one."""
    return dot == 0 or data[dot - 1] in b"0123456789."
