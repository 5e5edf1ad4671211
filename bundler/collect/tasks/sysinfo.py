"""Host facts from one read-only ``sh`` snippet: OS, kernel, CPUs, memory, disks, load, time sync.

One round trip per host: the snippet prints ``@@section`` headers and each
section's raw output; parsing happens here, on our side, where it can be
tested. A section that comes back empty is recorded in ``errors`` (the
analyzer then says *unknown*), never guessed. Locale and timezone are fixed
(``LC_ALL=C``, ``TZ=UTC``) so numbers and dates parse the same everywhere.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from datetime import UTC, datetime

from schemas.evidence import DiskUsage, HostSysinfo, ServiceStatus, TimeSync

SYSINFO_MAX_BYTES = 256 * 1024

_VERSION_OF_UNIT = (
    "b=$(systemctl show {unit} -p ExecStart --value 2>/dev/null | "
    "sed -n 's/.*path=\\([^ ;]*\\).*/\\1/p' | head -n 1); "
    'if [ -n "$b" ] && command -v dpkg >/dev/null 2>&1; then '
    'p=$(dpkg -S "$b" 2>/dev/null | head -n 1 | cut -d: -f1); '
    '[ -n "$p" ] && dpkg-query -W -f \'${{Version}}\\n\' "$p" 2>/dev/null; '
    'elif [ -n "$b" ] && command -v rpm >/dev/null 2>&1; then '
    "rpm -qf --qf '%{{VERSION}}-%{{RELEASE}}\\n' \"$b\" 2>/dev/null; fi"
)


def sysinfo_script(units: Sequence[str] = (), paths: Sequence[str] = ()) -> str:
    """The snippet: read-only commands only, each allowed to fail silently."""
    df_paths = " ".join(shlex.quote(p) for p in ("/", *paths))
    lines = [
        "export LC_ALL=C TZ=UTC",
        "s() { printf '\\n@@%s\\n' \"$1\"; }",
        "s hostname; hostname 2>/dev/null || uname -n 2>/dev/null",
        "s os-release; cat /etc/os-release 2>/dev/null",
        "s uname; uname -s -r -m 2>/dev/null",
        "s nproc; nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null",
        "s meminfo; grep -E '^(MemTotal|MemAvailable):' /proc/meminfo 2>/dev/null",
        "s uptime; cat /proc/uptime 2>/dev/null",
        "s loadavg; cat /proc/loadavg 2>/dev/null",
        f"s df; df -P -k {df_paths} 2>/dev/null",
        "s timedatectl; timedatectl show 2>/dev/null",
        "s chrony; chronyc -n tracking 2>/dev/null",
        "s timesyncd; test -e /run/systemd/timesync/synchronized && echo synchronized",
    ]
    for index, unit in enumerate(units):
        quoted = shlex.quote(unit)
        lines.append(
            f"s unit:{index}; systemctl show {quoted} -p LoadState -p ActiveState -p SubState "
            "-p ActiveEnterTimestamp 2>/dev/null"
        )
        lines.append(f"s version:{index}; " + _VERSION_OF_UNIT.format(unit=quoted))
    lines.append("s end")
    return "\n".join(lines) + "\n"


def split_sections(output: str) -> dict[str, str]:
    sections: dict[str, str] = {}
    name: str | None = None
    buffer: list[str] = []
    for line in output.splitlines():
        if line.startswith("@@"):
            if name is not None:
                sections[name] = "\n".join(buffer).strip()
            name, buffer = line[2:].strip(), []
        elif name is not None:
            buffer.append(line)
    if name is not None:
        sections[name] = "\n".join(buffer).strip()
    return sections


def parse_sysinfo(info: HostSysinfo, output: str, units: Sequence[str] = ()) -> HostSysinfo:
    """Fill ``info`` from the snippet's output; unreadable facts go to ``info.errors``."""
    sections = split_sections(output)
    if "end" not in sections:
        info.errors.append("sysinfo output ended early (truncated or interrupted)")
    info.hostname = sections.get("hostname") or None
    release = dict(re.findall(r'^([A-Z_]+)="?([^"\n]*)"?$', sections.get("os-release", ""), re.M))
    info.os_name = release.get("NAME") or None
    info.os_version = release.get("VERSION_ID") or release.get("VERSION") or None
    uname = sections.get("uname", "").split()
    if len(uname) >= 3:
        info.os_name = info.os_name or uname[0]
        info.kernel, info.arch = uname[1], uname[2]
    info.cpu_count = _int(sections.get("nproc", ""))
    memory = dict(re.findall(r"^(\w+):\s+(\d+)\s*kB", sections.get("meminfo", ""), re.M))
    info.memory_total_bytes = int(memory["MemTotal"]) * 1024 if "MemTotal" in memory else None
    if "MemAvailable" in memory:
        info.memory_available_bytes = int(memory["MemAvailable"]) * 1024
    uptime = sections.get("uptime", "").split()
    info.uptime_s = float(uptime[0]) if uptime and _is_number(uptime[0]) else None
    load = sections.get("loadavg", "").split()[:3]
    info.load_avg = (
        [float(x) for x in load] if len(load) == 3 and all(map(_is_number, load)) else None
    )
    info.disks = _parse_df(sections.get("df", ""))
    info.time_sync = _parse_time_sync(sections)
    info.services = [
        _parse_unit(unit, sections.get(f"unit:{i}", ""), sections.get(f"version:{i}", ""))
        for i, unit in enumerate(units)
    ]
    for fact, value in (
        ("kernel", info.kernel),
        ("cpu count", info.cpu_count),
        ("memory", info.memory_total_bytes),
        ("uptime", info.uptime_s),
    ):
        if value is None:
            info.errors.append(f"{fact}: not readable on this host")
    return info


def _parse_df(text: str) -> list[DiskUsage]:
    disks: dict[str, DiskUsage] = {}
    for line in text.splitlines()[1:]:
        fields = line.split()
        if len(fields) >= 6 and fields[1].isdigit() and fields[3].isdigit():
            mount = " ".join(fields[5:])
            disks.setdefault(
                mount,
                DiskUsage(
                    mount=mount, total_bytes=int(fields[1]) * 1024, free_bytes=int(fields[3]) * 1024
                ),
            )
    return list(disks.values())


def _parse_time_sync(sections: dict[str, str]) -> TimeSync | None:
    chrony = sections.get("chrony", "")
    if chrony:
        leap = re.search(r"^Leap status\s*:\s*(.+)$", chrony, re.M)
        offset = re.search(r"^System time\s*:\s*(.+)$", chrony, re.M)
        synchronized = None if leap is None else "not synchron" not in leap[1].lower()
        return TimeSync(
            synchronized=synchronized, service="chrony", detail=offset[1] if offset else None
        )
    timedatectl = dict(re.findall(r"^(\w+)=(.*)$", sections.get("timedatectl", ""), re.M))
    if "NTPSynchronized" in timedatectl:
        return TimeSync(
            synchronized=timedatectl["NTPSynchronized"] == "yes",
            service="systemd-timedated",
            detail=f"NTP={timedatectl.get('NTP', '?')}",
        )
    if sections.get("timesyncd") == "synchronized":
        return TimeSync(synchronized=True, service="systemd-timesyncd")
    return None


def _parse_unit(unit: str, text: str, version: str) -> ServiceStatus:
    props = dict(re.findall(r"^(\w+)=(.*)$", text, re.M))
    status = ServiceStatus(
        name=unit, version=version.strip().splitlines()[0] if version.strip() else None
    )
    if not props or props.get("LoadState") == "not-found":
        status.state = "not-found" if props else None
        return status
    active = props.get("ActiveState")
    status.active = active == "active" if active else None
    status.state = "/".join(filter(None, (active, props.get("SubState")))) or None
    status.since = _systemd_time(props.get("ActiveEnterTimestamp", ""))
    return status


def _systemd_time(text: str) -> datetime | None:
    """``Mon 2025-03-01 12:00:00 UTC`` (the snippet forces TZ=UTC)."""
    match = re.search(r"(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}) UTC", text)
    return datetime.strptime(match[1], "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC) if match else None


def _int(text: str) -> int | None:
    value = text.strip().splitlines()[0] if text.strip() else ""
    return int(value) if value.isdigit() else None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
