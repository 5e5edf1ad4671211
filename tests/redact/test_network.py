"""--obfuscate network: consistent pseudonyms that keep the structure support reasons with."""

from __future__ import annotations

import ipaddress
import re

from redactors import BundleRedactor, Policy
from tests.support.redaction import run

NET = Policy(obfuscate_network=True)


def _ips(data: bytes) -> list[str]:
    return [m.decode() for m in re.findall(rb"\b\d+\.\d+\.\d+\.\d+\b", data)]


def test_network_identifiers_are_kept_by_default() -> None:
    text = "10.1.2.3 host db01 fe80::1 aa:bb:cc:dd:ee:ff /home/alice\n"
    outputs, _, _ = run({"a.log": text})
    assert outputs["a.log"] == text.encode()


def test_ipv4_keeps_subnets_private_ranges_and_host_octets() -> None:
    outputs, _, _ = run(
        {"a.log": "10.1.2.3 10.1.2.4 10.1.9.5 192.168.7.8 8.8.4.4 172.20.1.1\n"}, NET
    )
    a, b, c, d, e, f = (ipaddress.IPv4Address(x) for x in _ips(outputs["a.log"]))
    assert str(a) != "10.1.2.3"
    assert ipaddress.ip_network(f"{a}/24", strict=False) == ipaddress.ip_network(
        f"{b}/24", strict=False
    )
    assert ipaddress.ip_network(f"{a}/16", strict=False) == ipaddress.ip_network(
        f"{c}/16", strict=False
    )
    assert ipaddress.ip_network(f"{a}/24", strict=False) != ipaddress.ip_network(
        f"{c}/24", strict=False
    )
    assert str(a).endswith(".3")
    assert str(b).endswith(".4")
    assert a in ipaddress.ip_network("10.0.0.0/8")
    assert d in ipaddress.ip_network("192.168.0.0/16")
    assert f in ipaddress.ip_network("172.16.0.0/12")
    assert not e.is_private


def test_the_same_host_gets_the_same_pseudonym_in_every_file_and_member_name() -> None:
    files = {
        "syslog": "Nov 29 12:00:01 db01 postgres[9]: ready on 10.0.0.5\n",
        "app.log": "talking to db01 at 10.0.0.5\n",
        "hosts/db01/notes.txt": "x\n",
    }
    outputs, redactor, _ = run(files, Policy(obfuscate_network=True, known_hosts=("db01",)))
    pseudonym = re.search(rb"host-[0-9a-f]{6}", outputs["syslog"]).group()  # type: ignore[union-attr]
    assert pseudonym in outputs["app.log"]
    assert any(pseudonym.decode() in name for name in outputs)
    assert _ips(outputs["syslog"]) == _ips(outputs["app.log"])
    assert redactor.report().pseudonyms["hostname"] >= 1


def test_special_addresses_are_kept() -> None:
    text = "127.0.0.1 0.0.0.0 169.254.1.1 224.0.0.1 255.255.255.255 ::1\n"
    outputs, _, _ = run({"a.log": text}, NET)
    assert outputs["a.log"] == text.encode()


def test_ip_pseudonyms_are_not_idempotent_but_the_other_identifiers_are() -> None:
    """A pseudonymous IP is indistinguishable from a real one, so a second pass maps it again
    (documented); host, user and MAC pseudonyms are recognised and left alone."""
    once, _, _ = run({"a.log": "for alice from 10.1.2.3 on db01 mac aa:bb:cc:dd:ee:ff\n"},
                     Policy(obfuscate_network=True, known_hosts=("db01",)))  # fmt: skip
    twice, _, _ = run(once, NET)
    strip = lambda b: re.sub(rb"\d+\.\d+\.\d+\.\d+", b"IP", b)  # noqa: E731
    assert strip(twice["a.log"]) == strip(once["a.log"])


def test_pseudonyms_depend_on_the_bundle_key() -> None:
    a = BundleRedactor(NET, key=b"a" * 32).redact_text("10.1.2.3")
    b = BundleRedactor(NET, key=b"b" * 32).redact_text("10.1.2.3")
    assert a != b


def test_system_accounts_are_kept_and_never_learned_as_names() -> None:
    """``root`` under /home is a system account: keeping it also keeps every other "root"."""
    outputs, _, _ = run(
        {"a.log": "/home/root/x /home/alice/y\n", "b.log": "worker runs as root\n"}, NET
    )
    assert outputs["a.log"].startswith(b"/home/root/x /home/user-")
    assert b"alice" not in outputs["a.log"]
    assert outputs["b.log"] == b"worker runs as root\n"


def test_system_accounts_after_a_user_key_are_kept() -> None:
    outputs, _, _ = run({"a.log": "User: root\nUser: alice\n"}, NET)
    assert outputs["a.log"].startswith(b"User: root\nUser: user-")


def test_the_report_counts_pseudonyms_once_however_often_it_is_built() -> None:
    """A bundle builds its report several times (report member, summary, outcome)."""
    redactor = BundleRedactor(Policy(obfuscate_network=True), key=b"k" * 32)
    data = b"connect to 10.1.2.3 then 10.1.2.4\n"
    b"".join(redactor.transform("a.log", [data], media_type="text/plain"))
    first = redactor.report().pseudonyms
    redactor.summary()
    assert redactor.report().pseudonyms == first == {"ipv4": 2}
