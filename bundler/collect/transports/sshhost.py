"""A connected SSH host: commands on channels, files over SFTP (or head/tail without it).

Several collectors of one host run at once on channels of one connection.
Files are read with SFTP ranged reads (``readv``, pipelined), so the head
and tail of a multi-gigabyte log cost a few megabytes; hosts without the
SFTP subsystem fall back to ``stat``/``tail -c``/``head -c``.
"""

from __future__ import annotations

import errno
import select
import shlex
import stat as stat_module
import threading
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Literal

import paramiko

from ..budget import Budget
from ..capping import HeadTailCapper
from ..errors import (
    STDERR_EXCERPT,
    CollectorTimeout,
    FileMissing,
    FileUnreadable,
    TransportError,
    WorkingDirectoryMissing,
    last_line,
)
from .runner import (
    CWD_MISSING_EXIT,
    CWD_MISSING_MARKER,
    READY_MARKER,
    STDERR_CAP,
    CommandResult,
    FileInfo,
    Timed,
    remote_script,
    sh_command_line,
)

CHUNK = 64 * 1024
POLL_S = 0.25


class SshHost:
    """Implements :class:`~bundler.collect.transports.runner.HostRunner` over one paramiko link."""

    transport: Literal["ssh", "local"] = "ssh"

    def __init__(self, connection: paramiko.Transport) -> None:
        self._connection = connection
        self._sftp: paramiko.SFTPClient | None = None
        self._sftp_unavailable = False
        self._sftp_lock = threading.Lock()

    def run(
        self,
        argv: Sequence[str],
        *,
        budget: Budget,
        max_bytes: int,
        max_lines: int | None = None,
        cwd: str | None = None,
    ) -> CommandResult:
        line = sh_command_line(remote_script(argv, cwd, budget))
        result = self._exec(line, budget, max_bytes, max_lines)
        if (
            cwd is not None
            and result.exit_code == CWD_MISSING_EXIT
            and CWD_MISSING_MARKER.encode() in result.stderr
        ):
            raise WorkingDirectoryMissing("working directory does not exist on this host")
        return result

    def shell(self, script: str, *, budget: Budget, max_bytes: int) -> CommandResult:
        return self._exec(sh_command_line(script), budget, max_bytes, None)

    def timed(
        self, script: str, *, budget: Budget, now: Callable[[], datetime], max_bytes: int
    ) -> Timed:
        try:
            channel = self._connection.open_session(timeout=budget.remaining())
        except (paramiko.SSHException, EOFError, OSError) as exc:
            raise TransportError(f"cannot open an SSH session: {exc}") from exc
        answer = HeadTailCapper(max_bytes)
        try:
            channel.exec_command(sh_command_line(script))
            seen = _read_until(channel, b"", lambda b: READY_MARKER in b, budget)
            before = now()
            channel.sendall(b"\n")
            seen = _read_until(channel, seen, lambda b: b"\n" in _after_marker(b), budget)
            after = now()
            channel.shutdown_write()
            answer.feed(_after_marker(seen))
            while not (channel.eof_received or channel.closed):
                budget.check("reading the answer")
                select.select([channel], [], [], min(POLL_S, budget.remaining()))
                while channel.recv_ready():
                    answer.feed(channel.recv(CHUNK))
            while channel.recv_ready():
                answer.feed(channel.recv(CHUNK))
        except (paramiko.SSHException, EOFError, OSError) as exc:
            raise TransportError(f"SSH probe failed: {exc}") from exc
        finally:
            channel.close()
        return Timed(answer.finish().content, before, after)

    def stat(self, path: str, *, budget: Budget) -> FileInfo:
        sftp = self._sftp_client(budget)
        if sftp is None:
            return self._stat_by_command(path, budget)
        with self._sftp_lock:
            _set_timeout(sftp, budget.remaining())
            try:
                info = sftp.stat(path)
            except OSError as exc:
                raise _file_error(exc) from exc
            except (paramiko.SSHException, EOFError) as exc:
                raise TransportError(f"SFTP stat failed: {exc}") from exc
        return FileInfo(size=info.st_size or 0, is_regular=stat_module.S_ISREG(info.st_mode or 0))

    def read_range(self, path: str, offset: int, length: int, *, budget: Budget) -> bytes:
        budget.check("reading a file")
        if length <= 0:
            return b""
        sftp = self._sftp_client(budget)
        if sftp is None:
            script = f"tail -c +{offset + 1} -- {shlex.quote(path)} | head -c {length}"
            result = self._exec(sh_command_line(script), budget, length, None)
            return result.stdout.content
        with self._sftp_lock:
            _set_timeout(sftp, budget.remaining())
            try:
                with sftp.open(path, "rb") as handle:
                    size = handle.stat().st_size or 0
                    length = max(0, min(length, size - offset))
                    return b"".join(handle.readv([(offset, length)])) if length else b""
            except OSError as exc:
                raise _file_error(exc) from exc
            except (paramiko.SSHException, EOFError) as exc:
                raise TransportError(f"SFTP read failed: {exc}") from exc

    def close(self) -> None:
        if self._sftp is not None:
            self._sftp.close()
        self._connection.close()

    # -- internals ----------------------------------------------------------------------------
    def _exec(
        self, line: str, budget: Budget, max_bytes: int, max_lines: int | None
    ) -> CommandResult:
        try:
            channel = self._connection.open_session(timeout=budget.remaining())
        except (paramiko.SSHException, EOFError, OSError) as exc:
            raise TransportError(f"cannot open an SSH session: {exc}") from exc
        stdout = HeadTailCapper(max_bytes, max_lines)
        stderr = HeadTailCapper(STDERR_CAP)
        try:
            channel.exec_command(line)
            channel.shutdown_write()
            while True:
                budget.check("running a command")
                if not (channel.recv_ready() or channel.recv_stderr_ready()):
                    if channel.eof_received or channel.closed:  # only the exit status is missing
                        channel.status_event.wait(min(POLL_S, budget.remaining()))
                    else:
                        select.select([channel], [], [], min(POLL_S, budget.remaining()))
                while channel.recv_ready():
                    stdout.feed(channel.recv(CHUNK))
                while channel.recv_stderr_ready():
                    stderr.feed(channel.recv_stderr(CHUNK))
                finished = channel.exit_status_ready() and (channel.eof_received or channel.closed)
                if finished and not (channel.recv_ready() or channel.recv_stderr_ready()):
                    break
            code = channel.recv_exit_status()
        except CollectorTimeout:
            raise
        except (paramiko.SSHException, EOFError, OSError) as exc:
            raise TransportError(f"SSH command failed: {exc}") from exc
        finally:
            channel.close()
        if code == -1 and not self._connection.is_active():
            raise TransportError("SSH connection lost while the command ran")
        return CommandResult(stdout.finish(), stderr.finish().content, code)

    def _sftp_client(self, budget: Budget) -> paramiko.SFTPClient | None:
        with self._sftp_lock:
            if self._sftp is None and not self._sftp_unavailable:
                try:
                    self._sftp = paramiko.SFTPClient.from_transport(self._connection)
                except (paramiko.SSHException, EOFError, OSError):
                    self._sftp_unavailable = True
            return self._sftp

    def _stat_by_command(self, path: str, budget: Budget) -> FileInfo:
        script = f"stat -L -c '%s %F' -- {shlex.quote(path)}"
        result = self._exec(sh_command_line(script), budget, 4096, None)
        if result.exit_code != 0:
            # quoted whole: the recorder redacts it, then cuts it (a cut here, before
            # redaction, left the head of a secret in the path or the message)
            said = last_line(result.stderr)
            if "no such file" in said.lower():
                raise FileMissing("no such file")
            raise FileUnreadable(said or "cannot stat", limit=STDERR_EXCERPT)
        size, _, kind = result.stdout.content.decode(errors="replace").strip().partition(" ")
        return FileInfo(size=int(size or 0), is_regular=kind.startswith("regular"))


def _after_marker(data: bytes) -> bytes:
    return data.split(READY_MARKER, 1)[1] if READY_MARKER in data else b""


def _read_until(
    channel: paramiko.Channel,
    seen: bytes,
    done: Callable[[bytes], bool],
    budget: Budget,
) -> bytes:
    """Read stdout into ``seen`` until ``done(seen)`` (a few short lines: bounded by the probe)."""
    while not done(seen):
        while channel.recv_ready():
            seen += channel.recv(CHUNK)
        if done(seen):
            break
        if channel.eof_received or channel.closed:
            raise TransportError("the probe ended before it answered")
        budget.check("waiting for the host to answer")
        select.select([channel], [], [], min(POLL_S, budget.remaining()))
    return seen


def _file_error(exc: OSError) -> FileMissing | FileUnreadable:
    if exc.errno == errno.ENOENT:
        return FileMissing("no such file")
    if exc.errno == errno.EACCES:
        return FileUnreadable("permission denied")
    return FileUnreadable(exc.strerror or str(exc) or "cannot read")


def _set_timeout(sftp: paramiko.SFTPClient, seconds: float) -> None:
    """Bound the next SFTP call; a session without a channel is a transport failure."""
    channel = sftp.get_channel()
    if channel is None:
        raise TransportError("the SFTP session has no channel")
    channel.settimeout(seconds)
