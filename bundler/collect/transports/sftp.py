"""A host's one SFTP session: shared by its collectors in turn, every wait bounded by a budget.

Files are read with SFTP ranged reads when the host offers the subsystem. The session
is opened on first use and shared (one request at a time: paramiko's client is not
meant for concurrent calls). A host without the subsystem, or whose subsystem does
not speak SFTP (a login shell that prints a greeting writes it into the stream), has
none, and :class:`~bundler.collect.transports.sshhost.SshHost` falls back to commands.
paramiko bounds no SFTP wait by itself: the lock, the opening and each reply are
bounded here, and a session that timed out or broke is dropped without waiting for
it again (closing a file would), so the next call opens a fresh one. Two waits need
more than a socket timeout: paramiko waits for the answer to the subsystem request
with no timeout at all (its ``Channel._wait_for_event``), so the request runs on a
thread of its own (:func:`_request_subsystem`); and a channel timeout restarts with
every packet, so a server trickling a byte at a time stretched one read without end:
paramiko's client reads through :class:`_BudgetedChannel`, which ends every call by
the budget overall.
"""

from __future__ import annotations

import contextlib
import errno
import threading
from collections.abc import Callable
from typing import TypeVar, cast

import paramiko

from ..budget import Budget
from ..errors import (
    CollectorTimeout,
    FileMissing,
    FileUnreadable,
    TransportError,
    transport_failure,
)

_T = TypeVar("_T")

SUBSYSTEM_ANSWER_S = 10.0
"""Seconds to wait for the server to answer the SFTP subsystem request (less when the budget
has less). sshd answers in milliseconds; a server that has not answered by then is not
going to, and the host's files are read with commands instead, within the same budget."""


class _BudgetedChannel:
    """The session's channel as paramiko's SFTP client sees it: each ``recv`` and ``send``
    waits at most until the budget of the call in progress ends, then raises
    :class:`TimeoutError`, however the server paces its bytes."""

    def __init__(self, channel: paramiko.Channel, budget: Budget) -> None:
        self.channel = channel
        self.budget = budget

    def recv(self, nbytes: int) -> bytes:
        self._bound()
        return self.channel.recv(nbytes)

    def send(self, data: bytes) -> int:
        self._bound()
        return self.channel.send(data)

    def _bound(self) -> None:
        if self.budget.expired():
            raise TimeoutError("the SFTP call's time is up")
        self.channel.settimeout(self.budget.remaining())

    def __getattr__(self, name: str) -> object:
        return getattr(self.channel, name)


class SftpSession:
    """The SFTP session of one connection, opened lazily; see the module's docstring."""

    def __init__(self, connection: paramiko.Transport) -> None:
        self._connection = connection
        self._sftp: paramiko.SFTPClient | None = None
        self._channel: _BudgetedChannel | None = None
        self._unavailable = False
        self._lock = threading.Lock()

    def call(
        self, budget: Budget, what: str, call: Callable[[paramiko.SFTPClient], _T]
    ) -> _T | None:
        """``call`` on the session, within the budget; None when the host has no SFTP."""
        if not self._lock.acquire(timeout=budget.remaining()):
            budget.check(f"waiting for the SFTP session ({what})")
            raise CollectorTimeout(f"timed out waiting for the SFTP session ({what})")
        try:
            sftp = self._open(budget)
            if sftp is None:
                return None
            try:
                assert self._channel is not None
                self._channel.budget = budget
                return call(sftp)
            except TimeoutError as exc:
                self._drop()
                budget.check(f"waiting for an SFTP {what}")  # cancelled: say so
                raise CollectorTimeout(
                    f"timed out waiting for an SFTP {what}: {budget.limit()}"
                ) from exc
            except OSError as exc:
                if exc.errno is None and not self._alive():
                    self._drop()
                    raise TransportError(f"SFTP {what} failed: the session was lost") from exc
                raise file_error(exc) from exc
            except (paramiko.SSHException, paramiko.SFTPError, EOFError) as exc:
                self._drop()
                raise transport_failure(f"SFTP {what}", exc) from exc
        finally:
            self._lock.release()

    def close(self) -> None:
        self._drop()

    def _open(self, budget: Budget) -> paramiko.SFTPClient | None:
        """The session (lock held), opened within the budget when there is none yet.

        No subsystem, or one that does not speak SFTP: none for good. One that does
        not answer in time: a timeout, and the next collector tries again.
        """
        if self._sftp is not None or self._unavailable:
            return self._sftp
        channel = open_session(self._connection, budget)
        try:
            if not _request_subsystem(channel, budget):
                self._unavailable = True  # never answered: commands from now on
                budget.check("waiting for the SFTP subsystem")
                return None
            bounded = _BudgetedChannel(channel, budget)
            self._sftp = paramiko.SFTPClient(cast(paramiko.Channel, bounded))
            self._channel = bounded
        except TimeoutError as exc:
            close_quietly(channel)
            raise CollectorTimeout(f"timed out opening the SFTP session: {budget.limit()}") from exc
        except (paramiko.SSHException, paramiko.SFTPError, EOFError, OSError):
            close_quietly(channel)
            self._unavailable = True
        return self._sftp

    def _alive(self) -> bool:
        channel = self._sftp.get_channel() if self._sftp is not None else None
        return channel is not None and not channel.closed and self._connection.is_active()

    def _drop(self) -> None:
        self._sftp = None
        channel, self._channel = self._channel, None
        if channel is not None:
            close_quietly(channel.channel)


def open_session(connection: paramiko.Transport, budget: Budget) -> paramiko.Channel:
    try:
        return connection.open_session(timeout=budget.remaining())
    except (paramiko.SSHException, EOFError, OSError) as exc:
        raise TransportError(f"cannot open an SSH session: {exc}") from exc


def close_quietly(channel: paramiko.Channel) -> None:
    """Close a channel whose connection may be gone: an error closing it must never replace
    the collector's own outcome (paramiko raises EOFError on a dead socket)."""
    with contextlib.suppress(paramiko.SSHException, EOFError, OSError):
        channel.close()


def file_error(exc: OSError) -> FileMissing | FileUnreadable:
    if exc.errno == errno.ENOENT:
        return FileMissing("no such file")
    if exc.errno == errno.EACCES:
        return FileUnreadable("permission denied")
    return FileUnreadable(exc.strerror or str(exc) or "cannot read")


def _request_subsystem(channel: paramiko.Channel, budget: Budget) -> bool:
    """Ask for the SFTP subsystem; False when the server did not answer in time.

    paramiko's ``invoke_subsystem`` waits for the answer without a timeout, so it runs on
    a thread of its own; on expiry the channel is closed, which ends that wait (a closed
    channel wakes its waiter) and the thread with it. A refusal raises as paramiko does.
    """
    failure: list[BaseException] = []
    answered = threading.Event()

    def request() -> None:
        try:
            channel.invoke_subsystem("sftp")
        except BaseException as exc:  # handed to the caller
            failure.append(exc)
        finally:
            answered.set()

    threading.Thread(target=request, name="bundler-sftp-subsystem", daemon=True).start()
    if not answered.wait(min(budget.remaining(), SUBSYSTEM_ANSWER_S)):
        close_quietly(channel)
        return False
    if failure:
        raise failure[0]
    return True
