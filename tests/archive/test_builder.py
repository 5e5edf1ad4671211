"""The bundle builder: transform hook, encrypted spool, finalize with literal propagation."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from freezegun import freeze_time

from bundler.archive import BundleBuilder, MemberDropped, NoRedaction, Sealing
from bundler.archive.contracts import BundleSink
from bundler.archive.limits import ReaderLimits
from bundler.archive.room import BundleRoom, NoRoom
from bundler.source import MemberNotFound, MemberSource
from schemas import (
    MANIFEST_MEMBER,
    REDACTION_REPORT_MEMBER,
    CollectorKind,
    CollectorOutcome,
    CollectorStatus,
    FileRedaction,
    RedactionReport,
    RedactionSummary,
    TargetSummary,
)
from tests.support.archive import PASSWORD, open_test_bundle

SEALING = Sealing.with_password(PASSWORD)


class LiteralRedactor:
    """Test double of the redaction layer (``redactors`` implements the same protocol).

    ``password=VALUE`` is redacted where seen and VALUE is learned; finalize
    removes learned values from every member. Names lose ``secret-host``.
    Binary members are dropped.
    """

    def __init__(self) -> None:
        self.learned: set[bytes] = set()
        self.files: list[str] = []

    def member_name(self, name: str) -> str:
        return name.replace("secret-host", "h01")

    def transform(self, name: str, chunks: Iterable[bytes], *, media_type: str) -> Iterator[bytes]:
        if media_type == "application/x-binary":
            raise MemberDropped("binary", "not text")
        self.files.append(name)
        for chunk in chunks:
            for match in re.finditer(rb"password=(\w+)", chunk):
                self.learned.add(match[1])
            yield re.sub(rb"password=\w+", b"password=[REDACTED]", chunk)

    def transform_derived(
        self, name: str, chunks: Iterable[bytes], *, media_type: str
    ) -> Iterator[bytes]:
        return self.transform(name, chunks, media_type=media_type)  # no pseudonyms to skip

    def finalize(self, name: str, chunks: Iterable[bytes], *, media_type: str) -> Iterator[bytes]:
        for chunk in chunks:
            for literal in self.learned:
                chunk = chunk.replace(literal, b"[REDACTED]")
            yield chunk

    def redact_text(self, text: str) -> str:
        for literal in self.learned:
            text = text.replace(literal.decode(), "[REDACTED]")
        return text

    def finalize_text(self, text: str) -> str:
        return self.redact_text(text)  # this double's one rule is its learned literals

    def report(self) -> RedactionReport:
        return RedactionReport(
            ruleset_id="test",
            ruleset_sha256="0" * 64,
            files=[FileRedaction(member=name) for name in self.files],
            total=len(self.learned),
        )

    def summary(self) -> RedactionSummary:
        return RedactionSummary(ruleset_id="test", ruleset_sha256="0" * 64, total=len(self.learned))


def _builder(tmp_path: Path, **kwargs: object) -> BundleBuilder:
    return BundleBuilder(tmp_path / "b.zip", sealing=SEALING, **kwargs)  # type: ignore[arg-type]


def test_builder_is_a_bundle_sink_and_its_source_a_member_source(tmp_path: Path) -> None:
    with _builder(tmp_path) as builder:
        sink: BundleSink = builder  # checked statically (the protocol is not runtime-checkable)
        assert sink.redact_text("x") == "x"
        assert isinstance(builder.source(), MemberSource)


def test_round_trip_manifest_lists_everything_and_is_last(tmp_path: Path) -> None:
    with _builder(tmp_path) as builder:
        builder.add("b.txt", b"bee", media_type="text/plain", collector="c1")
        builder.add("a.json", [b'{"a":', b" 1}"], media_type="application/json", truncated=True)
        sealed = builder.finalize(profile="flux", command="doctor")
    with open_test_bundle(sealed.path) as reader:
        names = [entry.name for entry in reader.entries]
        assert names == ["a.json", "b.txt", REDACTION_REPORT_MEMBER, MANIFEST_MEMBER]
        assert reader.read_bytes("b.txt") == b"bee"
        manifest = reader.manifest
        assert manifest is not None
        assert [m.path for m in manifest.members] == ["a.json", "b.txt", REDACTION_REPORT_MEMBER]
        a = manifest.member("a.json")
        assert a is not None
        assert a.truncated
        assert a.media_type == "application/json"
        b = manifest.member("b.txt")
        assert b is not None
        assert b.collector == "c1"
        assert b.size == 3
        assert manifest.profile == "flux"
        assert manifest.encryption.mode == "password"
        assert manifest.redaction is not None
        assert manifest.redaction.report_member == REDACTION_REPORT_MEMBER
        assert reader.check().status == "verified"


def test_manifest_and_member_times_come_from_the_clock(tmp_path: Path) -> None:
    with freeze_time("2030-07-08 09:10:12"), _builder(tmp_path) as builder:
        builder.add("m", b"x")
        sealed = builder.finalize()
    assert sealed.manifest.created_at == datetime(2030, 7, 8, 9, 10, 12, tzinfo=UTC)
    with open_test_bundle(sealed.path) as reader:
        assert {e.info.date_time for e in reader.entries} == {(2030, 7, 8, 9, 10, 12)}


def test_transform_renames_redacts_and_propagates_literals(tmp_path: Path) -> None:
    redactor = LiteralRedactor()
    with _builder(tmp_path, transform=redactor) as builder:
        early = builder.add("hosts/secret-host/env.txt", b"user=bob\npassword=Tr0ub4dor\n")
        assert early is not None
        assert early.path == "hosts/h01/env.txt"
        builder.add("logs/app.log", b"login with Tr0ub4dor failed\n")
        # The spool already holds redacted content; the literal learned later is still there.
        assert builder.source().read_bytes("logs/app.log") == b"login with Tr0ub4dor failed\n"
        sealed = builder.finalize(
            collectors=[
                CollectorOutcome(
                    id="ssh.h01.env",
                    kind=CollectorKind.SSH,
                    target="h01",
                    status=CollectorStatus.FAILED,
                    error_message="auth failed for Tr0ub4dor",
                )
            ],
            options={"note": "pw Tr0ub4dor", "nested": ["Tr0ub4dor", 3]},
        )
    with open_test_bundle(sealed.path) as reader:
        assert reader.read_bytes("hosts/h01/env.txt") == b"user=bob\npassword=[REDACTED]\n"
        assert reader.read_bytes("logs/app.log") == b"login with [REDACTED] failed\n"
        manifest_text = reader.read_bytes(MANIFEST_MEMBER).decode()
    assert "Tr0ub4dor" not in manifest_text
    assert "secret-host" not in sealed.path.read_bytes().decode("latin-1")
    assert sealed.manifest.options == {"note": "pw [REDACTED]", "nested": ["[REDACTED]", 3]}
    assert sealed.manifest.collectors[0].error_message == "auth failed for [REDACTED]"
    entry = sealed.manifest.member("logs/app.log")
    assert entry is not None
    assert entry.size == len(b"login with [REDACTED] failed\n")


def test_dropped_member_is_not_stored_and_is_reported(tmp_path: Path) -> None:
    with _builder(tmp_path, transform=LiteralRedactor()) as builder:
        assert builder.add("core.bin", b"\x00\x01", media_type="application/x-binary") is None
        assert not builder.source().has("core.bin")
        sealed = builder.finalize()
    assert sealed.manifest.member("core.bin") is None
    with open_test_bundle(sealed.path) as reader:
        assert not reader.has("core.bin")
        report = json.loads(reader.read_bytes(REDACTION_REPORT_MEMBER))
    assert report["skipped"] == [
        {"member": "core.bin", "reason": "binary", "detail": "not text", "kept": False}
    ]


def test_a_member_dropped_at_finalize_is_reported_too(tmp_path: Path) -> None:
    class DropAtFinalize(NoRedaction):
        def finalize(
            self, name: str, chunks: Iterable[bytes], *, media_type: str
        ) -> Iterator[bytes]:
            if name == "drop.me":
                raise MemberDropped("policy", "late")
            yield from chunks

    with _builder(tmp_path, transform=DropAtFinalize()) as builder:
        builder.add("drop.me", b"x")
        builder.add("keep.me", b"y")
        sealed = builder.finalize()
    with open_test_bundle(sealed.path) as reader:
        assert reader.names() == ["keep.me", MANIFEST_MEMBER, REDACTION_REPORT_MEMBER]
        report = json.loads(reader.read_bytes(REDACTION_REPORT_MEMBER))
    assert report["skipped"][0]["member"] == "drop.me"


def test_readding_a_name_replaces_it(tmp_path: Path) -> None:
    with _builder(tmp_path) as builder:
        builder.add("m", b"old")
        builder.add("m", b"new", media_type="text/plain")
        assert builder.source().read_bytes("m") == b"new"
        assert len(list(builder._spool.folder.iterdir())) == 1  # the old spool file is gone
        sealed = builder.finalize()
    assert [m.path for m in sealed.manifest.members] == ["m", REDACTION_REPORT_MEMBER]
    with open_test_bundle(sealed.path) as reader:
        assert reader.read_bytes("m") == b"new"


def test_source_reads_the_spool(tmp_path: Path) -> None:
    with _builder(tmp_path) as builder:
        builder.add("logs/a.log", (b"line %d\n" % i for i in range(200_000)))
        source = builder.source()
        assert source.names() == ["logs/a.log"]
        chunks = list(source.iter_chunks("logs/a.log", chunk_size=4096))
        assert all(len(c) <= 4096 for c in chunks)
        assert b"".join(chunks) == b"".join(b"line %d\n" % i for i in range(200_000))
        with pytest.raises(MemberNotFound):
            source.read_bytes("nope")


@pytest.mark.parametrize("name", [MANIFEST_MEMBER, REDACTION_REPORT_MEMBER, "../x", "/etc/x"])
def test_reserved_and_unsafe_names_are_refused(tmp_path: Path, name: str) -> None:
    with _builder(tmp_path) as builder, pytest.raises(ValueError, match=r"invalid|written by"):
        builder.add(name, b"x")


def test_concurrent_adds(tmp_path: Path) -> None:
    with _builder(tmp_path) as builder:

        def worker(n: int) -> None:
            for i in range(20):
                builder.add(f"w{n}/m{i}.txt", [b"%d-%d " % (n, i)] * 1000)

        threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        sealed = builder.finalize()
    assert len(sealed.manifest.members) == 81
    with open_test_bundle(sealed.path) as reader:
        assert reader.check().status == "verified"
        assert reader.read_bytes("w3/m7.txt") == b"3-7 " * 1000


def test_abort_leaves_nothing(tmp_path: Path) -> None:
    builder = _builder(tmp_path)
    builder.add("m", b"x" * 100_000)
    builder.abort()
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(RuntimeError):
        builder.add("n", b"y")


@pytest.mark.parametrize("error", [RuntimeError("boom"), KeyboardInterrupt()])
def test_an_error_during_finalize_leaves_nothing(tmp_path: Path, error: BaseException) -> None:
    class Exploding(NoRedaction):
        def finalize(
            self, name: str, chunks: Iterable[bytes], *, media_type: str
        ) -> Iterator[bytes]:
            yield b"partial"
            raise error

    builder = _builder(tmp_path, transform=Exploding())
    builder.add("m", b"x" * 100_000)
    with pytest.raises(type(error)):
        builder.finalize()
    assert list(tmp_path.iterdir()) == []


def test_leaving_the_block_without_finalize_leaves_nothing(tmp_path: Path) -> None:
    with _builder(tmp_path) as builder:
        builder.add("m", b"x")
    assert list(tmp_path.iterdir()) == []


def test_existing_bundle_is_refused_before_any_work(tmp_path: Path) -> None:
    from bundler.errors import OutputError

    (tmp_path / "b.zip").write_bytes(b"old")
    with pytest.raises(OutputError, match="already exists"):
        _builder(tmp_path)
    with _builder(tmp_path, overwrite=True) as builder:
        builder.add("m", b"x")
        builder.finalize()
    assert (tmp_path / "b.zip").read_bytes()[:2] == b"PK"


def test_manifest_fields_owned_by_the_collector(tmp_path: Path) -> None:
    target = TargetSummary(server_url="https://flux.example:8443", insecure_tls=True)
    with _builder(tmp_path, bundle_id="fixed-id") as builder:
        sealed = builder.finalize(
            command="redact", profile="lyftdata", target=target, interrupted=True
        )
    manifest = sealed.manifest
    assert (manifest.command, manifest.profile, manifest.bundle_id) == (
        "redact",
        "lyftdata",
        "fixed-id",
    )
    assert manifest.target.insecure_tls
    assert manifest.interrupted


def test_nothing_readable_reaches_disk_before_the_zip_exists(tmp_path: Path) -> None:
    secret = b"SUPER-SECRET-VALUE-" * 5000
    with _builder(tmp_path) as builder:
        builder.add("m", secret)
        on_disk = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())
        assert b"SUPER-SECRET" not in on_disk
        sealed = builder.finalize()
    assert b"SUPER-SECRET" not in sealed.path.read_bytes()


def test_the_redaction_layers_own_refusal_is_a_drop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``redactors`` cannot import MemberDropped; its MemberRefused means the same."""
    import sys
    import types

    class MemberRefused(Exception):
        def __init__(self, reason: str, detail: str = "") -> None:
            super().__init__(reason)
            self.reason, self.detail = reason, detail

    fake = types.ModuleType("redactors.errors")
    fake.MemberRefused = MemberRefused  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "redactors.errors", fake)

    class Refusing(NoRedaction):
        def transform(
            self, name: str, chunks: Iterable[bytes], *, media_type: str
        ) -> Iterator[bytes]:
            raise MemberRefused("binary", "ELF executable")
            yield b""  # pragma: no cover

    with _builder(tmp_path, transform=Refusing()) as builder:
        assert builder.add("core", b"\x7fELF") is None
        sealed = builder.finalize()
    assert sealed.manifest.member("core") is None
    assert [d.reason for d in builder.dropped] == ["binary"]


def test_a_room_leaves_out_what_would_take_the_bundle_past_its_readers_total(
    tmp_path: Path,
) -> None:
    """Collected members stop at the total its readers open, less the room kept for what
    sealing writes: the member that would pass it is refused before redaction sees it (no
    trace in the report), a document made after collection still fits, and the bundle is
    published and opens under those limits."""
    limits = ReaderLimits(max_total_bytes=4 << 20, max_manifest_bytes=64 << 10)
    redactor = LiteralRedactor()
    with _builder(tmp_path, transform=redactor, room=BundleRoom(limits, after_collection=1)) as b:
        b.add("logs/0.log", b"x" * (3 << 20), media_type="text/plain", collector="c0")
        with pytest.raises(NoRoom, match=r"its 768\.0 KiB would take the bundle past the 4\.0 MiB"):
            b.add("logs/1.log", b"y" * (768 << 10), media_type="text/plain", collector="c1")
        b.add_derived("evidence/hosts.json", b"{}", media_type="application/json")
        sealed = b.finalize()
    assert redactor.files == ["logs/0.log", "evidence/hosts.json"]
    with open_test_bundle(sealed.path, limits=limits) as reader:
        names = [entry.name for entry in reader.entries]
    assert names == ["evidence/hosts.json", "logs/0.log", REDACTION_REPORT_MEMBER, MANIFEST_MEMBER]


def test_the_spool_read_back_gives_bytes_a_parser_can_search(tmp_path: Path) -> None:
    """Doctor parses logs from the spool before sealing: a member of 1 MiB or more came back
    as ``memoryview`` pieces (no ``find``), and a log parser's line search failed on them."""
    from bundler.source import grep_lines

    line = b"2026-12-01T00:00:00Z worker heartbeat ok\n"
    log = line * ((3 << 20) // len(line)) + b"2026-12-01T00:00:01Z worker evicted\n"
    with _builder(tmp_path) as builder:
        builder.add("hosts/h01/logs/worker.log", log)
        source = builder.source()
        chunks = list(source.iter_chunks("hosts/h01/logs/worker.log"))
        assert len(chunks) > 1
        assert all(type(chunk) is bytes for chunk in chunks)
        found = list(grep_lines(source, "hosts/h01/logs/worker.log", [b"evicted"]))
        assert found == [(log.count(b"\n"), "2026-12-01T00:00:01Z worker evicted")]
