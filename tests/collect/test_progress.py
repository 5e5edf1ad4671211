"""What people see: rich bars on a terminal, plain lines elsewhere, the closing summary."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path

from rich.console import Console

from bundler.archive.contracts import MemorySink
from bundler.collect.engine import CollectionResult
from bundler.collect.errors import ConnectFailed
from bundler.collect.recorder import PendingMember, Recorder
from bundler.collect.scheduler import RunEnd
from bundler.doctor.progress import PlainProgress, RichProgress
from bundler.doctor.summary import BundleWritten, build_summary, render_summary
from bundler.exit_codes import ExitCode
from schemas import CollectorKind


def _record_some(recorder: Recorder) -> None:
    ok = recorder.register("ssh.h01.sysinfo", CollectorKind.SSH, "h01")
    failed = recorder.register("ssh.h02.connect", CollectorKind.SSH, "h02")
    for record in (ok, failed):
        recorder.started(record)
    recorder.finish(ok, members=[PendingMember("hosts/h01/sysinfo.json", b"{}" * 600)])
    recorder.finish(failed, error=ConnectFailed("connection refused on port 22"))


def test_plain_lines_name_each_collector_and_its_reason() -> None:
    stream = io.StringIO()
    _record_some(Recorder(MemorySink(), PlainProgress(stream)))
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("bundler: [1/2] ok          ssh.h01.sysinfo (")
    assert "1.2 KiB" in lines[0]
    assert lines[1].startswith("bundler: [2/2] failed      ssh.h02.connect (")
    assert lines[1].endswith(": connection refused on port 22")


def test_rich_bars_per_target() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=100)
    progress = RichProgress(console)
    _record_some(Recorder(MemorySink(), progress))
    progress.close()
    text = out.getvalue()
    assert "h01" in text
    assert "h02" in text
    assert "1/1" in text


def test_summary_lists_problems_and_the_bundle() -> None:
    recorder = Recorder(MemorySink())
    _record_some(recorder)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    result = CollectionResult(recorder.outcomes(), [], [], RunEnd.COMPLETED, now, now)
    # A short path of its own: a long temporary one (pytest-xdist adds a level) wraps the line.
    bundle = BundleWritten(Path("/srv/bundles/support.zip"), 123456, "password")
    summary = build_summary(
        result, profile=None, server_url=None, bundle=bundle, verdict=None, code=ExitCode.PARTIAL
    )
    assert (summary.collected, summary.total, summary.exit_code) == (1, 2, 5)
    out = io.StringIO()
    render_summary(Console(file=out, width=120), summary)
    text = out.getvalue()
    assert "collected 1 of 2 collectors" in text
    assert "ssh.h02.connect" in text
    assert "ConnectFailed connection refused on port 22" in text
    assert "support.zip (120.6 KiB, encryption: password)" in text


def test_a_member_the_redaction_layer_drops_is_noted() -> None:
    class DroppingSink(MemorySink):
        def add(self, name: str, content: object, **kwargs: object) -> None:  # type: ignore[override]
            return None

    recorder = Recorder(DroppingSink())
    record = recorder.register("local.h01.logs.00", CollectorKind.LOCAL, "h01")
    recorder.started(record)
    recorder.finish(record, members=[PendingMember("hosts/h01/logs/00.log", b"\x00\x01binary")])
    (outcome,) = recorder.outcomes()
    assert outcome.members == ()
    assert "hosts/h01/logs/00.log left out by redaction" in (outcome.note or "")
