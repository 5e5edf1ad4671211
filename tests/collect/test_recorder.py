"""The recorder settles every registered collector exactly once."""

from __future__ import annotations

from bundler.archive.contracts import MemorySink
from bundler.collect.recorder import Recorder
from schemas import CollectorKind, CollectorStatus


def test_the_end_of_run_sweep_settles_only_what_nothing_settled() -> None:
    recorder = Recorder(MemorySink())
    ran = recorder.register("ssh.h01.connect", CollectorKind.SSH, "h01")
    never = recorder.register("ssh.h01.sysinfo", CollectorKind.SSH, "h01")
    recorder.started(ran)
    recorder.finish(ran)
    recorder.skip_unsettled("not run: the run ended before it was queued")
    by_id = {o.id: o for o in recorder.outcomes()}
    assert by_id["ssh.h01.connect"].status is CollectorStatus.OK
    assert by_id["ssh.h01.sysinfo"].status is CollectorStatus.SKIPPED
    assert by_id["ssh.h01.sysinfo"].note == "not run: the run ended before it was queued"
    assert by_id["ssh.h01.sysinfo"].attempts == 0
    assert not recorder.finish(never)  # settled: what it might still produce is discarded
