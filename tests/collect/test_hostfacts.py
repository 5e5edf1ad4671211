"""Sysinfo parsing, clock skew, the local runner, and targets/aliases."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bundler.collect.budget import Budget
from bundler.collect.errors import CollectorTimeout, FileMissing, WorkingDirectoryMissing
from bundler.collect.inventory import Inventory
from bundler.collect.readonly import command_violation
from bundler.collect.targets import build_targets
from bundler.collect.tasks.clock import parse_clock, read_clock
from bundler.collect.tasks.logs import LogOptions, journal_argv
from bundler.collect.tasks.sysinfo import parse_sysinfo, sysinfo_script
from bundler.collect.transports.local import LocalHost
from bundler.errors import UsageError
from schemas import HostRole
from schemas.evidence import HostSysinfo

SAMPLE = """
@@hostname
worker-a
@@os-release
NAME="Debian GNU/Linux"
VERSION_ID="12"
@@uname
Linux 6.1.0-18-amd64 x86_64
@@nproc
8
@@meminfo
MemTotal:       16318412 kB
MemAvailable:   12000000 kB
@@uptime
86400.25 170000.00
@@loadavg
0.50 0.40 0.30 1/200 12345
@@df
Filesystem     1024-blocks     Used Available Capacity Mounted on
/dev/sda1        102400000 51200000  51200000      50% /
/dev/sda1        102400000 51200000  51200000      50% /
/dev/sdb1         10240000  1024000   9216000      10% /srv/flux
@@timedatectl
NTP=yes
NTPSynchronized=no
@@chrony
@@timesyncd
@@unit:0
LoadState=loaded
ActiveState=active
SubState=running
ActiveEnterTimestamp=Sat 2025-03-01 10:00:00 UTC
@@version:0
0.87.5-1
@@unit:1
LoadState=not-found
ActiveState=inactive
SubState=dead
@@version:1
@@end
"""


def test_sysinfo_output_is_parsed_into_host_facts() -> None:
    info = parse_sysinfo(HostSysinfo(alias="h01"), SAMPLE, ["flux-worker", "absent"])
    assert (info.hostname, info.os_name, info.os_version) == ("worker-a", "Debian GNU/Linux", "12")
    assert (info.kernel, info.arch, info.cpu_count) == ("6.1.0-18-amd64", "x86_64", 8)
    assert info.memory_total_bytes == 16318412 * 1024
    assert info.uptime_s == 86400.25
    assert info.load_avg == [0.5, 0.4, 0.3]
    assert [d.mount for d in info.disks] == ["/", "/srv/flux"]
    assert info.disks[1].free_bytes == 9216000 * 1024
    assert info.time_sync is not None
    assert (info.time_sync.synchronized, info.time_sync.service) == (False, "systemd-timedated")
    flux, absent = info.services
    assert (flux.active, flux.state, flux.version) == (True, "active/running", "0.87.5-1")
    assert flux.since == datetime(2025, 3, 1, 10, tzinfo=UTC)
    assert absent.state == "not-found"
    assert info.errors == []


def test_missing_facts_are_errors_not_guesses() -> None:
    info = parse_sysinfo(HostSysinfo(alias="h01"), "@@hostname\nx\n", [])
    assert info.kernel is None
    assert any("truncated" in e for e in info.errors)
    assert any(e.startswith("memory") for e in info.errors)


def test_chrony_is_preferred_for_time_sync() -> None:
    text = (
        "@@chrony\nReference ID    : A\n"
        "System time     : 0.000012 seconds fast of NTP time\nLeap status     : Normal\n@@end\n"
    )
    info = parse_sysinfo(HostSysinfo(alias="h01"), text)
    assert info.time_sync is not None
    assert (info.time_sync.synchronized, info.time_sync.service) == (True, "chrony")
    assert "fast" in (info.time_sync.detail or "")


def test_sysinfo_snippet_only_reads() -> None:
    script = sysinfo_script(["flux'; reboot; '"], ["/srv/my state"])
    assert "'flux'\"'\"'; reboot; '\"'\"''" in script  # unit names are quoted
    for redirect in re.findall(r"\d?>\s*([^\s;]+)", script):
        assert redirect in ("/dev/null", "&1", "&2")
    real = LocalHost().shell(script, budget=Budget.start(20), max_bytes=1 << 20)
    assert real.exit_code == 0
    info = parse_sysinfo(HostSysinfo(alias="h01"), real.stdout.content.decode())
    assert info.cpu_count
    assert info.memory_total_bytes
    assert info.kernel


def test_clock_skew_is_measured_around_the_round_trip() -> None:
    before = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    after = before + timedelta(milliseconds=200)
    host = before + timedelta(seconds=5, milliseconds=100)
    result = parse_clock([f"{host.timestamp():.6f}", "+0100"], before, after)
    assert result.reading.skew_s == pytest.approx(5.0, abs=1e-3)
    assert result.reading.uncertainty_s == pytest.approx(0.1)
    assert result.utc_offset == "+0100"
    coarse = parse_clock([f"{int(before.timestamp())}.N"], before, after)
    assert coarse.reading.uncertainty_s == pytest.approx(0.6)
    live, rest, error = read_clock(
        LocalHost(), Budget.start(5), then="echo facts; echo more", max_bytes=100
    )
    assert error is None
    assert live is not None
    # one clock on both sides: the host's reading lies inside the round trip that brackets it
    assert abs(live.reading.skew_s) <= live.reading.uncertainty_s + 1e-5
    assert live.reading.uncertainty_s < 0.5
    assert rest == "facts\nmore\n"


def test_local_runner_caps_times_out_and_reports_missing(tmp_path: Path) -> None:
    host = LocalHost()
    big = host.run(["seq", "1", "200000"], budget=Budget.start(10), max_bytes=10_000)
    assert big.stdout.truncated
    assert big.stdout.content.startswith(b"1\n2\n")
    assert big.stdout.content.endswith(b"200000\n")
    started = time.monotonic()
    with pytest.raises(CollectorTimeout):
        host.run(["sleep", "30"], budget=Budget.start(0.5), max_bytes=100)
    assert time.monotonic() - started < 4
    assert host.run(["no-such-program-x"], budget=Budget.start(5), max_bytes=100).exit_code == 127
    with pytest.raises(WorkingDirectoryMissing):
        host.run(["ls"], budget=Budget.start(5), max_bytes=100, cwd=str(tmp_path / "absent"))
    with pytest.raises(FileMissing):
        host.stat(str(tmp_path / "absent"), budget=Budget.start(5))
    (tmp_path / "f").write_bytes(b"0123456789")
    assert host.read_range(str(tmp_path / "f"), 3, 4, budget=Budget.start(5)) == b"3456"


def test_journal_reads_are_bounded_and_read_only() -> None:
    since = datetime(2026, 1, 1, tzinfo=UTC)
    argv = journal_argv("flux-worker", LogOptions(1000, 200, since))
    assert argv == [
        "journalctl", "-u", "flux-worker", "--no-pager", "-o", "short-iso",
        "--since", f"@{int(since.timestamp())}", "-n", "200",
    ]  # fmt: skip
    assert command_violation(argv) is None


def test_targets_get_positional_aliases() -> None:
    inventory = Inventory.model_validate(
        {
            "hosts": [
                {"address": "ops@server:2222", "role": "server", "vars": {"db_path": "/x.db"}},
                {"address": "local", "role": "worker", "worker": "w1"},
                {"address": "local", "role": "worker", "worker": "w2"},
            ]
        }
    )
    targets = build_targets(inventory, ("ops@server:2222", "w9.example.com"), local=True)
    assert [(t.alias, t.address, t.role) for t in targets] == [
        ("h01", "ops@server:2222", HostRole.SERVER),
        ("h02", "local", HostRole.WORKER),
        ("h03", "local", HostRole.WORKER),
        ("h04", "w9.example.com", HostRole.WORKER),
    ]
    assert targets[0].variables() == {"db_path": "/x.db", "alias": "h01", "role": "server"}
    assert [t.alias for t in build_targets(None, (), local=True)] == ["h01"]


@pytest.mark.parametrize(
    ("inventory", "ssh", "message"),
    [
        ({"hosts": [{"address": "a", "vars": {"alias": "x"}}]}, (), "may not redefine alias"),
        (None, ("local",), "--local"),
        (None, ("user@host:99999",), "invalid SSH address"),
    ],
)
def test_bad_targets_are_usage_errors(
    inventory: dict | None, ssh: tuple[str, ...], message: str
) -> None:
    parsed = Inventory.model_validate(inventory) if inventory else None
    with pytest.raises(UsageError, match=message):
        build_targets(parsed, ssh)
