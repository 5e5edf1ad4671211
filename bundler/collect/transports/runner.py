"""What a host offers the engine, whether reached over SSH or this machine itself.

Both :class:`~bundler.collect.transports.ssh.SshHost` and
:class:`~bundler.collect.transports.local.LocalHost` implement :class:`HostRunner`, so
every host step, sysinfo and log collector is written once. Commands are
argument vectors; over SSH they become one ``/bin/sh -c`` line built here
with :func:`shlex.quote` (the user's login shell may not be POSIX), so a
templated value can never inject shell syntax.
"""

from __future__ import annotations

import math
import shlex
import stat as stat_module
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Literal, Protocol

from ..budget import Budget, Cancelled
from ..capping import Capped, HeadTailCapper
from ..errors import CollectorTimeout
from .links import LinkHop, Resolved, kind_of

STDERR_CAP = 64 * 1024
"""stderr is kept only to explain failures."""

CWD_MISSING_EXIT = 97
CWD_MISSING_MARKER = "bundler: no such working directory"
KILL_GRACE_S = 5
"""Remote ``timeout -k``: seconds between SIGTERM and SIGKILL of a command over its budget."""


NO_EXIT_STATUS = -1
"""``exit_code`` of a command that ended without an exit status (killed by a signal, or a
server that never said): paramiko's value for it, and never a real status (0-255)."""


@dataclass(frozen=True)
class CommandResult:
    stdout: Capped
    stderr: bytes
    exit_code: int
    signal: str | None = None
    """The signal that killed the command (``TERM``, ``KILL``); ``exit_code`` is then
    :data:`NO_EXIT_STATUS`."""

    @property
    def ending(self) -> str:
        """How the command ended, for a message: ``exit 3``, ``killed by signal KILL``."""
        if self.signal is not None:
            return f"killed by signal {self.signal}"
        if self.exit_code == NO_EXIT_STATUS:
            return "ended without an exit status"
        return f"exit {self.exit_code}"


@dataclass(frozen=True)
class Timed:
    """A probe's answer and the collector's clock just before asking and just after the answer."""

    answer: bytes
    before: datetime
    after: datetime


READY_MARKER = b"bundler-ready\n"


@dataclass(frozen=True)
class FileInfo:
    size: int
    is_regular: bool
    kind: str = "a regular file"
    """What the file is, for a message (``a FIFO``, ``a directory``)."""
    resolved: str | None = None
    """The path with every link resolved, when the transport walked it: read that one."""
    links: tuple[LinkHop, ...] = ()
    """Every link followed to get there (judged by :func:`links.refuse_unsafe_links`)."""


def file_info(resolved: Resolved) -> FileInfo:
    entry = resolved.entry
    return FileInfo(
        size=entry.size,
        is_regular=stat_module.S_ISREG(entry.mode),
        kind=kind_of(entry.mode),
        resolved=resolved.path,
        links=resolved.hops,
    )


class HostRunner(Protocol):
    """A connected host. Every call is bounded by the budget it is given."""

    transport: Literal["ssh", "local"]

    def run(
        self,
        argv: Sequence[str],
        *,
        budget: Budget,
        max_bytes: int,
        max_lines: int | None = None,
        cwd: str | None = None,
    ) -> CommandResult:
        """Run a program (no shell); stdout capped head+tail. Exit 127: not installed."""
        ...

    def shell(self, script: str, *, budget: Budget, max_bytes: int) -> CommandResult:
        """Run one of the engine's own read-only ``sh`` snippets (sysinfo)."""
        ...

    def timed(
        self, script: str, *, budget: Budget, now: Callable[[], datetime], max_bytes: int
    ) -> Timed:
        """Run ``script``, which prints :data:`READY_MARKER`, reads a line, then answers.

        The script reads nothing after that line: over SSH its input is never ended (see
        :func:`without_input`), so it redirects its input itself once it has the line.

        ``before`` is read just before the line is sent and ``after`` when the
        first line of the answer arrives, so the round trip excludes process and
        login-shell start-up (clock skew uncertainty). The whole answer (capped at
        ``max_bytes``) is returned: a script may go on to print more.
        """
        ...

    def stat(self, path: str, *, budget: Budget) -> FileInfo:
        """Size and type of what ``path`` leads to, and every link followed on the way
        (:mod:`.links`); raises FileMissing / FileUnreadable."""
        ...

    def read_range(self, path: str, offset: int, length: int, *, budget: Budget) -> bytes:
        """Up to ``length`` bytes from ``offset`` (ranged reads keep huge logs cheap)."""
        ...

    def close(self) -> None: ...


class StoppedAtTimeout(CollectorTimeout):
    """A command stopped when its budget ran out, with what it had printed until then.

    Recorded as a plain ``CollectorTimeout``; a caller that can use part of an output (a
    log's lines are evidence each on its own) keeps :attr:`partial`, the others ignore it.
    """

    def __init__(self, message: str, partial: CommandResult) -> None:
        super().__init__(message)
        self.partial = partial

    @property
    def error_class(self) -> str | None:
        return "CollectorTimeout"


def stopped(timeout: CollectorTimeout, stdout: HeadTailCapper, stderr: bytes) -> CollectorTimeout:
    """The timeout to raise for a command stopped at its budget: with its output so far, or,
    when the run was cancelled (Ctrl-C, the deadline), as it was."""
    if isinstance(timeout, Cancelled):
        return timeout
    capped = stdout.finish(read_to_end=False)
    partial = CommandResult(replace(capped, truncated=True), stderr, NO_EXIT_STATUS)
    return StoppedAtTimeout(timeout.message, partial)


STOPPED_NOTE = (
    "the command was stopped at its timeout: what it printed until then is kept, marked truncated"
)


def failure_message(ending: str, why: str) -> str:
    """``ending`` (``journalctl exit 3``), then ``: why`` only when the command said why.

    A command that fails silently (empty stderr) must not leave a message ending in a
    colon, as if the explanation had been lost."""
    return f"{ending}: {why}" if why else ending


def quote_argv(argv: Sequence[str]) -> str:
    return " ".join(shlex.quote(arg) for arg in argv)


def remote_script(argv: Sequence[str], cwd: str | None, budget: Budget) -> str:
    """A POSIX sh script that changes into ``cwd`` and runs ``argv`` under a remote timeout.

    The remote ``timeout`` (when installed) kills the command even if our
    connection drops, so a hung command never outlives the run on a
    customer's host.
    """
    seconds = max(1, math.ceil(budget.left()) + 1)
    command = quote_argv(argv)
    lines = []
    if cwd is not None:
        lines.append(
            f"cd -- {shlex.quote(cwd)} 2>/dev/null || "
            f"{{ echo '{CWD_MISSING_MARKER}' >&2; exit {CWD_MISSING_EXIT}; }}"
        )
    lines.append(
        "if command -v timeout >/dev/null 2>&1; then "
        f"exec timeout -k {KILL_GRACE_S} {seconds} {command}; else exec {command}; fi"
    )
    return "\n".join(lines)


def without_input(script: str) -> str:
    """``script`` with its standard input read from ``/dev/null``, as a local command's is.

    Over SSH the end of a command's input is a channel EOF, and paramiko's
    ``shutdown_write`` takes the channel's lock to mark it sent but writes it after letting
    go. A collector thread starved in between (a loaded machine, many collectors) wrote it
    after the transport's thread had answered the server's close of that channel: OpenSSH
    then drops the whole connection ("ieof packet referred to nonexistent channel"), and
    every other command of the host reads "the connection was lost". So bundler never ends
    a command's input over SSH (``Channel.close`` sends EOF and close in order, in one
    thread); the remote shell gives the command an input that is already at its end.
    """
    return f"exec </dev/null\n{script}"


def sh_command_line(script: str) -> str:
    """Run ``script`` with /bin/sh whatever the remote login shell is."""
    return f"/bin/sh -c {shlex.quote(script)}"
