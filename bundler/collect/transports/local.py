"""This machine as a host (``--local``, inventory ``address: local``): no SSH, same contract.

Commands run without a shell, in their own process group, so a command over
its budget is terminated together with anything it started.
"""

from __future__ import annotations

import io
import os
import select
import selectors
import signal
import stat as stat_module
import subprocess
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import IO, Literal

from ..budget import Budget
from ..capping import HeadTailCapper
from ..errors import (
    CollectError,
    CollectorTimeout,
    CommandFailed,
    FileMissing,
    FileUnreadable,
    WorkingDirectoryMissing,
)
from .links import Entry, resolve
from .runner import (
    NO_EXIT_STATUS,
    READY_MARKER,
    STDERR_CAP,
    CommandResult,
    FileInfo,
    Timed,
    file_info,
    stopped,
)

READ_CHUNK = 64 * 1024
TERMINATE_GRACE_S = 2.0


class LocalHost:
    """Runs commands and reads files on this machine."""

    transport: Literal["ssh", "local"] = "local"

    def run(
        self,
        argv: Sequence[str],
        *,
        budget: Budget,
        max_bytes: int,
        max_lines: int | None = None,
        cwd: str | None = None,
    ) -> CommandResult:
        if cwd is not None and not os.path.isdir(cwd):
            raise WorkingDirectoryMissing("working directory does not exist on this host")
        try:
            process = subprocess.Popen(
                list(argv),
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except FileNotFoundError:
            return _not_run(127, f"{argv[0]}: command not found", max_bytes)
        except PermissionError:
            return _not_run(126, f"{argv[0]}: permission denied", max_bytes)
        return _collect(process, budget, max_bytes, max_lines)

    def shell(self, script: str, *, budget: Budget, max_bytes: int) -> CommandResult:
        return self.run(["/bin/sh", "-c", script], budget=budget, max_bytes=max_bytes)

    def timed(
        self, script: str, *, budget: Budget, now: Callable[[], datetime], max_bytes: int
    ) -> Timed:
        process = subprocess.Popen(
            ["/bin/sh", "-c", script],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        assert process.stdin is not None
        assert isinstance(process.stdout, io.BufferedReader)  # unbuffered pipes have no read1
        answer = HeadTailCapper(max_bytes)
        try:
            _wait_readable(process.stdout, budget)
            if process.stdout.readline() != READY_MARKER:
                raise CommandFailed("the probe did not start")
            before = now()
            process.stdin.write(b"\n")
            process.stdin.close()
            _wait_readable(process.stdout, budget)
            answer.feed(process.stdout.readline())
            after = now()
            while True:
                _wait_readable(process.stdout, budget)
                chunk = process.stdout.read1(READ_CHUNK)
                if not chunk:
                    break
                answer.feed(chunk)
            process.wait(timeout=budget.remaining())
        except (CollectorTimeout, subprocess.TimeoutExpired):
            _terminate(process)
            raise CollectorTimeout("timed out while reading the host's clock and facts") from None
        finally:
            process.stdout.close()
        return Timed(answer.finish().content, before, after)

    def stat(self, path: str, *, budget: Budget) -> FileInfo:
        budget.check("looking at a file")
        return file_info(resolve(os.path.abspath(path), _describe))

    def read_range(self, path: str, offset: int, length: int, *, budget: Budget) -> bytes:
        """Read ``path``, which :meth:`stat` resolved: a link or a FIFO swapped in since is
        refused (``O_NOFOLLOW``), never followed or waited on (``O_NONBLOCK``)."""
        budget.check("reading a file")
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            with open(fd, "rb") as handle:
                if not stat_module.S_ISREG(os.fstat(fd).st_mode):
                    raise FileUnreadable("not a regular file any more")
                handle.seek(offset)
                return handle.read(length)
        except FileNotFoundError as exc:
            raise FileMissing("no such file") from exc
        except PermissionError as exc:
            raise FileUnreadable("permission denied") from exc
        except OSError as exc:
            raise FileUnreadable(exc.strerror or "cannot read") from exc

    def close(self) -> None:
        """Nothing to release."""


def _describe(paths: Sequence[str]) -> dict[str, Entry | CollectError]:
    """``lstat`` (and ``readlink``) each path, for :func:`links.resolve`."""
    described: dict[str, Entry | CollectError] = {}
    for path in paths:
        try:
            info = os.lstat(path)
            link = os.readlink(path) if stat_module.S_ISLNK(info.st_mode) else None
        except FileNotFoundError:
            described[path] = FileMissing("no such file")
            continue
        except PermissionError:
            described[path] = FileUnreadable("permission denied")
            continue
        except OSError as exc:
            described[path] = FileUnreadable(exc.strerror or "cannot stat")
            continue
        described[path] = Entry(info.st_uid, info.st_mode, info.st_size, link)
    return described


def _wait_readable(stream: IO[bytes], budget: Budget) -> None:
    while not select.select([stream], [], [], min(0.25, budget.remaining()))[0]:
        budget.check("waiting for a command")


def _not_run(code: int, message: str, max_bytes: int) -> CommandResult:
    return CommandResult(HeadTailCapper(max_bytes).finish(), message.encode(), code)


def _collect(
    process: subprocess.Popen[bytes], budget: Budget, max_bytes: int, max_lines: int | None
) -> CommandResult:
    stdout = HeadTailCapper(max_bytes, max_lines)
    stderr = HeadTailCapper(STDERR_CAP)
    sinks = {process.stdout: stdout, process.stderr: stderr}
    with selectors.DefaultSelector() as selector:
        for stream in sinks:
            assert stream is not None
            selector.register(stream, selectors.EVENT_READ)
        try:
            while selector.get_map():
                budget.check("running a command")
                for key, _ in selector.select(timeout=min(0.25, budget.remaining())):
                    data = os.read(key.fd, READ_CHUNK)
                    if data:
                        sinks[key.fileobj].feed(data)  # type: ignore[index]
                    else:
                        selector.unregister(key.fileobj)
            while process.poll() is None:
                budget.check("waiting for a command to exit")
                try:
                    process.wait(timeout=min(0.25, budget.remaining()))
                except subprocess.TimeoutExpired:
                    continue
        except CollectorTimeout as exc:
            _terminate(process)
            raise stopped(exc, stdout, stderr.finish().content) from exc
        finally:
            for stream in sinks:
                if stream is not None:
                    stream.close()
    code, killed_by = process.returncode, None
    if code < 0:  # subprocess's way of saying a signal killed it
        code, killed_by = NO_EXIT_STATUS, _signal_name(-process.returncode)
    return CommandResult(stdout.finish(), stderr.finish().content, code, killed_by)


def _signal_name(number: int) -> str:
    """``KILL`` for 9, as sshd names a signal in ``exit-signal`` (RFC 4254: no ``SIG``)."""
    try:
        return signal.Signals(number).name.removeprefix("SIG")
    except ValueError:
        return str(number)


def _terminate(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM the whole process group, then SIGKILL whatever is left."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=TERMINATE_GRACE_S)
            return
        except subprocess.TimeoutExpired:
            continue
