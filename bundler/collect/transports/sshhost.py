"""A connected SSH host: commands on channels, files over SFTP (or head/tail without it).

Several collectors of one host run at once on channels of one connection.
Files are read with SFTP ranged reads (``readv``, pipelined), so the head
and tail of a multi-gigabyte log cost a few megabytes; hosts without the
SFTP subsystem fall back to ``stat``/``tail -c``/``head -c``.
"""

from __future__ import annotations

import posixpath
import select
import shlex
import stat as stat_module
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Literal

import paramiko

from ..budget import Budget
from ..capping import HeadTailCapper
from ..errors import (
    STDERR_EXCERPT,
    CollectError,
    CollectorTimeout,
    FileMissing,
    FileUnreadable,
    TransportError,
    WorkingDirectoryMissing,
    last_line,
    transport_failure,
)
from . import channelends
from .links import Entry, Resolved, resolve
from .preamble import Preamble, framed
from .runner import (
    CWD_MISSING_EXIT,
    CWD_MISSING_MARKER,
    NO_EXIT_STATUS,
    READY_MARKER,
    STDERR_CAP,
    CommandResult,
    FileInfo,
    Timed,
    file_info,
    remote_script,
    sh_command_line,
    stopped,
    without_input,
)
from .sftp import SftpSession, close_quietly, file_error, open_session

CHUNK = 64 * 1024
POLL_S = 0.25


class SshHost:
    """Implements :class:`~bundler.collect.transports.runner.HostRunner` over one paramiko link."""

    transport: Literal["ssh", "local"] = "ssh"

    def __init__(self, connection: paramiko.Transport) -> None:
        self._connection = connection
        self._sftp = SftpSession(connection)

    def run(
        self,
        argv: Sequence[str],
        *,
        budget: Budget,
        max_bytes: int,
        max_lines: int | None = None,
        cwd: str | None = None,
    ) -> CommandResult:
        result = self._exec(remote_script(argv, cwd, budget), budget, max_bytes, max_lines)
        if (
            cwd is not None
            and result.exit_code == CWD_MISSING_EXIT
            and CWD_MISSING_MARKER.encode() in result.stderr
        ):
            raise WorkingDirectoryMissing("working directory does not exist on this host")
        return result

    def shell(self, script: str, *, budget: Budget, max_bytes: int) -> CommandResult:
        return self._exec(script, budget, max_bytes, None)

    def timed(
        self, script: str, *, budget: Budget, now: Callable[[], datetime], max_bytes: int
    ) -> Timed:
        channel = self._session(budget)
        answer = HeadTailCapper(max_bytes)
        preamble = Preamble(READY_MARKER)
        lines = [False]  # whether the answer's first line has arrived

        def feed(data: bytes) -> None:
            data = preamble.feed(data)
            lines[0] = lines[0] or b"\n" in data
            answer.feed(data)

        try:
            channel.exec_command(sh_command_line(script))
            _read_until(channel, feed, lambda: preamble.found, budget, preamble)
            before = now()
            channel.sendall(b"\n")  # the script waits for it: the channel is still open
            _read_until(channel, feed, lambda: lines[0], budget, preamble)
            after = now()
            while not (channel.eof_received or channel.closed):
                budget.check("reading the answer")
                select.select([channel], [], [], min(POLL_S, budget.remaining()))
                while channel.recv_ready():
                    answer.feed(channel.recv(CHUNK))
                    budget.check("reading the answer")
            while channel.recv_ready():
                answer.feed(channel.recv(CHUNK))
        except (paramiko.SSHException, EOFError, OSError) as exc:
            raise transport_failure("SSH probe", exc) from exc
        finally:
            close_quietly(channel)
        return Timed(answer.finish().content, before, after)

    def stat(self, path: str, *, budget: Budget) -> FileInfo:
        """What ``path`` leads to, every link on the way judged later (:mod:`.links`).

        Over SFTP: the server's ``realpath`` first; a path it leaves as it was has no link
        anywhere, and one ``stat`` finishes (two round trips, as the common case should
        be). Otherwise the path is walked, ``lstat`` by ``lstat``. Without SFTP: one
        command per path walked (:func:`_describe_script`)."""
        resolved = self._sftp.call(budget, "stat", lambda sftp: _resolve_over_sftp(sftp, path))
        if resolved is None:
            resolved = self._resolve_by_command(path, budget)
        return file_info(resolved)

    def read_range(self, path: str, offset: int, length: int, *, budget: Budget) -> bytes:
        budget.check("reading a file")
        if length <= 0:
            return b""

        def read(sftp: paramiko.SFTPClient) -> bytes:
            handle = sftp.open(path, "rb")
            try:
                size = handle.stat().st_size or 0
                wanted = max(0, min(length, size - offset))
                data = b"".join(handle.readv([(offset, wanted)])) if wanted else b""
            except OSError as exc:
                if exc.errno is not None:  # the server answered: the session still works
                    handle.close()
                raise
            handle.close()  # not after a timeout or a lost session: it would wait again
            return data

        data = self._sftp.call(budget, "read", read)
        if data is None:
            script = f"tail -c +{offset + 1} -- {shlex.quote(path)} | head -c {length}"
            result = self._exec(script, budget, length, None)
            return result.stdout.content
        return data

    def close(self) -> None:
        self._sftp.close()
        self._connection.close()

    # -- internals ----------------------------------------------------------------------------
    def _exec(
        self, script: str, budget: Budget, max_bytes: int, max_lines: int | None
    ) -> CommandResult:
        """Run ``script`` with ``/bin/sh``; what the login shell prints before it is dropped.

        Its input is at its end from the start (:func:`without_input`): no EOF is sent on a
        channel the server may be closing at the same moment."""
        channel = self._session(budget)
        stdout = HeadTailCapper(max_bytes, max_lines)
        stderr = HeadTailCapper(STDERR_CAP)
        preamble = Preamble()
        try:
            channel.exec_command(sh_command_line(framed(without_input(script))))
            while True:
                budget.check("running a command")
                if not (channel.recv_ready() or channel.recv_stderr_ready()):
                    if channel.eof_received or channel.closed:  # only the exit status is missing
                        channel.status_event.wait(min(POLL_S, budget.remaining()))
                    else:
                        select.select([channel], [], [], min(POLL_S, budget.remaining()))
                while channel.recv_ready():  # a host writing without pause still times out
                    stdout.feed(preamble.feed(channel.recv(CHUNK)))
                    budget.check("running a command")
                while channel.recv_stderr_ready():
                    stderr.feed(channel.recv_stderr(CHUNK))
                    budget.check("running a command")
                finished = channel.exit_status_ready() and (channel.eof_received or channel.closed)
                if finished and not (channel.recv_ready() or channel.recv_stderr_ready()):
                    break
            code = channel.recv_exit_status()
            end = channelends.end_of(channel)
        except CollectorTimeout as exc:
            raise stopped(exc, stdout, stderr.finish().content) from exc
        except (paramiko.SSHException, EOFError, OSError) as exc:
            raise transport_failure("SSH command", exc) from exc
        finally:
            close_quietly(channel)
        if code == NO_EXIT_STATUS and self._lost(end):
            raise TransportError("SSH command failed: the connection was lost")
        if not preamble.found:
            # quoted whole: the recorder redacts it, then cuts it
            said = preamble.last_line() or last_line(stderr.finish().content)
            raise TransportError(
                f"the host's login shell did not run the command (exit {code})"
                + (f": {said}" if said else ""),
                limit=STDERR_EXCERPT,
            )
        signal = end.signal if end is not None else None
        return CommandResult(stdout.finish(), stderr.finish().content, code, signal)

    def _lost(self, end: channelends.ChannelEnd | None) -> bool:
        """Whether a channel that ended without an exit status ended with its connection.

        Not a signal, and not closed by the server: the connection closed it. paramiko closes
        a dying connection's channels before it marks the connection inactive, so asking
        ``is_active()`` alone raced with its thread (a lost connection read as ``exit -1``);
        it is asked only when the transport is not watched."""
        if end is None:
            return not self._connection.is_active()
        return end.signal is None and not (end.closed_by_server and self._connection.is_active())

    def _session(self, budget: Budget) -> paramiko.Channel:
        return open_session(self._connection, budget)

    def _resolve_by_command(self, path: str, budget: Budget) -> Resolved:
        base = "/"
        if not path.startswith("/"):
            base = self._exec("pwd -P", budget, 4096, None).stdout.content.decode().strip()
        return resolve(posixpath.join(base, path), lambda paths: self._describe(paths, budget))

    def _describe(self, paths: Sequence[str], budget: Budget) -> dict[str, Entry | CollectError]:
        result = self._exec(_describe_script(paths), budget, DESCRIBE_MAX_BYTES, None)
        if result.exit_code != 0 or result.stdout.truncated:
            raise FileUnreadable(last_line(result.stderr) or "cannot stat", limit=STDERR_EXCERPT)
        return _parse_described(result.stdout.content, paths)


DESCRIBE_MAX_BYTES = 1024 * 1024


def _describe_script(paths: Sequence[str]) -> str:
    """``lstat`` (GNU ``stat -c``, no ``-L``) and ``readlink`` each path, in one command.

    Each path gives three NUL-terminated fields: ``ok UID MODE-HEX SIZE`` or ``err
    MESSAGE``, the path, and the link's target (empty when it is no link)."""
    quoted = " ".join(shlex.quote(path) for path in paths)
    return (
        f"for p in {quoted}; do\n"
        "  if s=$(stat -c '%u %f %s' -- \"$p\" 2>&1); then\n"
        '    t=; if [ -L "$p" ]; then t=$(readlink -- "$p"); fi\n'
        '    printf \'ok %s\\0%s\\0%s\\0\' "$s" "$p" "$t"\n'
        '  else printf \'err %s\\0%s\\0\\0\' "$s" "$p"; fi\n'
        "done"
    )


def _parse_described(output: bytes, paths: Sequence[str]) -> dict[str, Entry | CollectError]:
    fields = output.decode("utf-8", "surrogateescape").split("\0")
    described: dict[str, Entry | CollectError] = {}
    for at in range(0, len(fields) - 2, 3):
        status, path, link = fields[at : at + 3]
        if status.startswith("err "):
            described[path] = _stat_failure(status[4:].strip())
            continue
        uid, mode, size = status.removeprefix("ok ").split()
        described[path] = Entry(int(uid), int(mode, 16), int(size), link or None)
    if set(paths) - set(described):
        raise FileUnreadable("unexpected output from stat")
    return described


def _stat_failure(said: str) -> CollectError:
    """What ``stat`` said of a path, as the error reading it gives; quoted whole (the
    recorder redacts, then cuts it)."""
    if "no such file" in said.lower():
        return FileMissing("no such file")
    return FileUnreadable(said or "cannot stat", limit=STDERR_EXCERPT)


def _resolve_over_sftp(sftp: paramiko.SFTPClient, path: str) -> Resolved:
    if not path.startswith("/"):
        path = posixpath.join(sftp.normalize("."), path)
    lexical = posixpath.normpath(path)
    if ".." not in path.split("/") and sftp.normalize(path) == lexical:
        info = sftp.stat(path)  # no link anywhere on the path
        entry = Entry(info.st_uid or 0, info.st_mode or 0, info.st_size or 0)
        return Resolved(lexical, entry)
    return resolve(path, lambda paths: _describe_over_sftp(sftp, paths))


def _describe_over_sftp(
    sftp: paramiko.SFTPClient, paths: Sequence[str]
) -> dict[str, Entry | CollectError]:
    described: dict[str, Entry | CollectError] = {}
    for path in paths:
        try:
            info = sftp.lstat(path)
            mode = info.st_mode or 0
            link = sftp.readlink(path) if stat_module.S_ISLNK(mode) else None
        except OSError as exc:
            if exc.errno is None:  # not the server's answer: the session's own failure
                raise
            described[path] = file_error(exc)
            continue
        described[path] = Entry(info.st_uid or 0, mode, info.st_size or 0, link)
    return described


def _read_until(
    channel: paramiko.Channel,
    feed: Callable[[bytes], None],
    done: Callable[[], bool],
    budget: Budget,
    preamble: Preamble,
) -> None:
    """Feed stdout chunks to ``feed`` until ``done()``; the budget is checked at every chunk,
    so a login shell that prints without pause cannot hold the collector past its time."""
    while not done():
        if channel.recv_ready():
            feed(channel.recv(CHUNK))
        elif channel.eof_received or channel.closed:
            said = f": {preamble.last_line()}" if not preamble.found else ""
            raise TransportError(f"the probe ended before it answered{said}", limit=STDERR_EXCERPT)
        else:
            select.select([channel], [], [], min(POLL_S, budget.remaining()))
        if not done():
            budget.check("waiting for the host to answer")
