"""The fast paths change how fast, never what: same bytes and reports with and without them.

Three engines redact the same texts with the same key: the accelerator
(Hyperscan, ``bundler[fast]``), the pure-Python engine (``BUNDLER_REDACT_ACCEL=off``)
and the reference (pure Python without the probe and the decoded-block cache
of :mod:`redactors.prefilter` and :mod:`redactors.decode`). The texts are the
whole rule catalog (every rule's examples and decoys, one text each and all of
them in one member), the peer suite's corpus in ``../shared`` (read where it
is) and shapes the fast paths exist for (base64 cursors, JWT look-alikes, hex
runs, gzip, zlib and escapes inside base64).
"""

from __future__ import annotations

import base64
import gzip
import json
import threading
import zlib
from collections.abc import Iterator

import pytest

from redactors import BundleRedactor, MemberRefused, accel
from redactors.accel import ENV, HyperscanIndex, available
from redactors.catalog import BUILTIN_RULES
from redactors.rules import View
from tests.support.shared import shared_path

from ..support.requirements import need

PEER_CORPUS = shared_path("peer-suites", "redaction", "corpus")
KEY = b"accel-test-key" * 2


def _redactor(mode: str, monkeypatch: pytest.MonkeyPatch) -> BundleRedactor:
    monkeypatch.setenv(ENV, "off" if mode != "hyperscan" else "auto")
    # Hyperscan scans every text here, not only those of 64 KiB and more.
    monkeypatch.setattr(accel, "SMALL_TEXT", 0 if mode == "hyperscan" else accel.SMALL_TEXT)
    redactor = BundleRedactor(key=KEY)
    if mode == "hyperscan":
        assert isinstance(redactor.engine.anchors, HyperscanIndex)
    if mode == "reference":
        redactor.engine.probe = None
        redactor.engine.decoders._cache = None
    return redactor


def _modes() -> list[str]:
    need(available(), "hyperscan is not installed (pip install -e '.[fast]')")
    return ["hyperscan", "pure", "reference"]


def _catalog_texts() -> Iterator[tuple[str, bytes]]:
    every = []
    for rule in BUILTIN_RULES:
        for index, (text, _) in enumerate(rule.examples):
            every.append(text)
            yield f"catalog/{rule.id}/example-{index}.txt", text.encode()
        for index, text in enumerate(rule.decoys):
            every.append(text)
            yield f"catalog/{rule.id}/decoy-{index}.txt", text.encode()
    yield "catalog/all.log", "\n".join(every).encode()
    yield "catalog/all.json", json.dumps({"lines": every, "password": every[0]}).encode()


def _shapes() -> Iterator[tuple[str, bytes]]:
    cursor = base64.urlsafe_b64encode(b'{"offset": 100, "id": "' + b"ab" * 16 + b'"}').rstrip(b"=")
    secret_inside = base64.b64encode(b'{"password": "hunter2-x9", "user": "ci"}')
    gz = base64.b64encode(gzip.compress(b"token: ghp_" + b"A1b2C3d4E5" * 4, mtime=0))
    lookalike = b".".join(
        base64.urlsafe_b64encode(json.dumps(p).encode()).rstrip(b"=")
        for p in ({"trace": "1f2e"}, {"sampled": True}, {"n": 1})
    )
    session = base64.urlsafe_b64encode(zlib.compress(b'{"user": "bob", "password": "pw-7Hq2x"}'))
    harmless = base64.b64encode(zlib.compress(b'{"offset": 100, "sort": "created_at"}', 9))
    lines = [
        b"set-cookie session=." + session.rstrip(b"=") + b".ZxYzAA.sig0123",
        b"state " + harmless + b" chance xxeJyZZ" + harmless,
        b"GET /executions?cursor=" + cursor + b" HTTP/1.1",
        b"payload " + secret_inside,
        b"blob " + gz,
        b"baggage=" + lookalike,
        b"sha256=" + b"0123456789abcdef" * 4 + b" id=" + b"9f" * 16,
        b"msg=%70%61%73%73%77%6f%72%64%3Dhunter2x&x=1 \\u0070assword=abc123def",
        b"Auth disabled \xe2\x80\x94 request treated as admin; pass\xe2\x80\x8bword=s3cr3t-v4l",
        b"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1234567890abcdefABCDEF\n"
        b"-----END RSA PRIVATE KEY-----",
    ]
    yield "shapes/cursors.log", b"\n".join(lines * 3) + b"\n"
    yield "shapes/big.log", b"\n".join(lines * 300) + b"\n"  # > 64 KiB: several stream rounds
    yield (
        "shapes/listing.json",
        json.dumps({"items": [line.decode("latin-1") for line in lines]}).encode(),
    )


def _peer_texts() -> Iterator[tuple[str, bytes]]:
    need(PEER_CORPUS is not None, "../shared/peer-suites is not beside the checkout")
    assert PEER_CORPUS is not None
    for path in sorted(p for p in PEER_CORPUS.rglob("*") if p.is_file()):
        yield str(path.relative_to(PEER_CORPUS)), path.read_bytes()


Result = tuple[dict[str, bytes | None], dict[str, bytes], dict[str, str], str]


def _run(redactor: BundleRedactor, members: list[tuple[str, bytes]]) -> Result:
    """Pass one and pass two of every member, the names, and the report (as JSON)."""
    first: dict[str, bytes | None] = {}
    for name, data in members:
        try:
            first[name] = b"".join(redactor.transform(name, [data]))
        except MemberRefused:
            first[name] = None
    final = {
        name: b"".join(redactor.finalize(name, [out]))
        for name, out in first.items()
        if out is not None
    }
    names = {name: redactor.member_name(name) for name, _ in members}
    return first, final, names, redactor.report().model_dump_json()


@pytest.mark.parametrize("source", ["catalog", "shapes", "peer"])
def test_every_engine_gives_the_same_bytes_and_report(
    source: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    members = list({"catalog": _catalog_texts, "shapes": _shapes, "peer": _peer_texts}[source]())
    results = {mode: _run(_redactor(mode, monkeypatch), members) for mode in _modes()}
    reference = results.pop("reference")
    for mode, result in results.items():
        for part, (mine, theirs) in enumerate(zip(result, reference, strict=True)):
            assert mine == theirs, f"{mode} differs from the reference in part {part} ({source})"


def test_the_shapes_are_redacted_at_all(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison above would also pass if every engine missed everything."""
    first, _, _, _ = _run(_redactor("pure", monkeypatch), list(_shapes()))
    text = first["shapes/cursors.log"]
    assert isinstance(text, bytes)
    for secret in (b"hunter2", b"ghp_", b"s3cr3t", b"set-cookie session=.eJ"):
        assert secret not in text
    assert b"GET /executions?cursor=eyJ" in text  # the cursor is not a secret: kept


def test_switching_the_accelerator_off_gives_the_pure_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(ENV, "off")
    assert not isinstance(BundleRedactor().engine.anchors, HyperscanIndex)


def test_threads_scanning_at_once_each_get_their_own_scratch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """doctor's collectors redact from several threads; Hyperscan's scratch space is per scan."""
    _modes()
    engine = _redactor("hyperscan", monkeypatch).engine
    text = dict(_shapes())["shapes/big.log"]
    expected = engine.scan(View(text))
    failures: list[str] = []

    def scan() -> None:
        try:
            for _ in range(3):
                assert engine.scan(View(text)) == expected
        except Exception as exc:  # reported below, with the thread's view of it
            failures.append(repr(exc))

    threads = [threading.Thread(target=scan) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert expected  # the text has secrets: the comparison is not between empty lists


def test_the_compilers_memory_goes_back_once_the_database_is_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Compiled on first use, then glibc's free pages are trimmed, once per database."""
    _modes()
    trims: list[int] = []
    monkeypatch.setattr(accel, "_DATABASES", {})  # this process compiles it afresh
    monkeypatch.setattr(accel, "_INDEXES", {})  # and builds the index afresh
    monkeypatch.setattr(accel, "release_free_memory", lambda: trims.append(1) or True)
    engine = _redactor("hyperscan", monkeypatch).engine
    text = dict(_shapes())["shapes/big.log"]
    assert trims == []  # nothing compiled before the first scan
    first = engine.scan(View(text))
    assert trims == [1]
    assert first  # the text has secrets: the comparisons below are not of empty lists
    assert engine.scan(View(text)) == first
    assert _redactor("hyperscan", monkeypatch).engine.scan(View(text)) == first
    assert trims == [1]  # a second engine with the same rules reuses the database
