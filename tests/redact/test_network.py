"""--obfuscate network: consistent pseudonyms that keep the structure support reasons with."""

from __future__ import annotations

import ipaddress
import json
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


def test_the_second_pass_over_a_redacted_text_keeps_its_pseudonyms() -> None:
    """What a bundle redacted once (a manifest's message) only gets ``finalize_text`` again:
    a value learned since is removed, an address pseudonym stays the one the members have
    (``redact_text`` over it would map it once more)."""
    redactor = BundleRedactor(NET)
    once = redactor.redact_text("worker 10.1.2.3 failed with Tr0ub4dor-Zq8x")
    (pseudonym,) = _ips(once.encode())
    assert pseudonym != "10.1.2.3"
    assert redactor.redact_text(once) != once  # why a redacted text is never redacted again
    assert redactor.finalize_text(once) == once
    redactor.redact_text("password=Tr0ub4dor-Zq8x")  # learned, later, elsewhere
    final = redactor.finalize_text(once)
    assert "Tr0ub4dor" not in final
    assert final.startswith(f"worker {pseudonym} failed with [REDACTED:")
    assert redactor.finalize_text("") == ""


def test_a_document_made_of_redacted_text_gets_the_secret_rules_not_new_pseudonyms() -> None:
    """Doctor's evidence is made of members redacted already: ``transform_derived`` leaves
    their pseudonyms as they are, and still redacts a value the new document puts under a
    key that reads as secret (where a setting's value came from, under the setting's name)."""
    redactor = BundleRedactor(NET)
    raw = b'{"source": "flux.toml", "peer": "10.1.2.3"}'
    member = json.loads(b"".join(redactor.transform("raw/a.json", [raw], media_type="x/json")))
    assert member["peer"] != "10.1.2.3"
    doc = json.dumps({"sources": {"security.auth.token": member["source"]}, **member})
    derived = b"".join(
        redactor.transform_derived("evidence/a.json", [doc.encode()], media_type="x/json")
    )
    made = json.loads(derived)
    assert made["peer"] == member["peer"]
    assert made["sources"]["security.auth.token"].startswith("[REDACTED:auth:")
    again = b"".join(redactor.transform("evidence/b.json", [doc.encode()], media_type="x/json"))
    assert json.loads(again)["peer"] != member["peer"]  # what pass one over it did


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


def _addresses() -> list[str]:
    """Addresses that crowd small ranges: every 172.16/12 /16, many 10.x and public /16s."""
    found = [f"172.{b}.1.9" for b in range(16, 32)]
    found += [f"10.{b}.{c}.7" for b in range(0, 256, 5) for c in (1, 2)]
    found += [f"{a}.{b}.3.4" for a in (8, 52, 172, 192, 198, 203, 0, 250) for b in range(0, 256, 9)]
    return found


def _mapping(addresses: list[str]) -> dict[str, str]:
    redactor = BundleRedactor(NET, key=b"k" * 32)
    out = redactor.redact_text("\n".join(addresses)).splitlines()
    return dict(zip(addresses, out, strict=True))


def test_ipv4_pseudonyms_do_not_depend_on_the_order_addresses_are_met() -> None:
    """The processes of one run meet addresses in different orders: same pseudonyms."""
    addresses = _addresses()
    forward = _mapping(addresses)
    backward = _mapping(addresses[::-1])
    assert forward == backward
    assert len(set(forward.values())) == len(addresses)  # two addresses never share one


PRIVATE = [ipaddress.ip_network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16")]


def _special_16(address: ipaddress.IPv4Address) -> bool:
    a, b = address.packed[:2]
    return any(ipaddress.IPv4Address(f"{a}.{b}.{c}.1").is_private for c in range(256))


def test_ipv4_pseudonyms_keep_the_class_of_the_address() -> None:
    """Each private range maps onto itself; an ordinary public address never looks special."""
    for original, pseudonym in _mapping(_addresses()).items():
        before, after = ipaddress.IPv4Address(original), ipaddress.IPv4Address(pseudonym)
        assert original.rsplit(".", 1)[1] == pseudonym.rsplit(".", 1)[1]
        for network in PRIVATE:
            assert (before in network) == (after in network), (original, pseudonym)
        if not _special_16(before):
            assert not _special_16(after), (original, pseudonym)


def test_an_address_after_a_word_and_a_dot_is_an_address_but_an_oid_is_not() -> None:
    """``worker.<address>.heartbeat`` (a check's or metric's name) carries the address; a run
    of dotted numbers (an SNMP OID, a long version) does not, wherever four of them stand."""
    text = "check worker.10.20.30.40.heartbeat ok\noid 1.3.6.1.4.1.2620.1.1 version 2.10.20.30.40\n"
    outputs, _, _ = run({"a.log": text}, NET)
    out = outputs["a.log"].decode()
    assert "worker.10.20.30.40." not in out
    assert re.search(r"check worker\.10\.\d+\.\d+\.40\.heartbeat ok", out)
    assert "oid 1.3.6.1.4.1.2620.1.1 version 2.10.20.30.40\n" in out
