"""A host's one SFTP session: shared by its collectors in turn, every wait bounded by a budget.

Files are read with SFTP ranged reads when the host offers the subsystem. The session
is opened on first use and shared (one request at a time: paramiko's client is not
meant for concurrent calls). A host without the subsystem, or whose subsystem does
not speak SFTP (a login shell that prints a greeting writes it into the stream), has
none, and :class:`~bundler.collect.transports.sshhost.SshHost` falls back to commands.
paramiko bounds no SFTP wait by itself: the lock, the opening and each reply are
bounded here, and a session that timed out or broke is dropped without waiting for
it again (closing a file would), so the next call opens a fresh one.
"""

from __future__ import annotations

import contextlib
import errno
import threading
from collections.abc import Callable
from typing import TypeVar

import paramiko

from ..budget import Budget
from ..errors import CollectorTimeout, FileMissing, FileUnreadable, TransportError

_T = TypeVar("_T")


class SftpSession:
    """The SFTP session of one connection, opened lazily; see the module's docstring."""

    def __init__(self, connection: paramiko.Transport) -> None:
        self._connection = connection
        self._sftp: paramiko.SFTPClient | None = None
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
                _set_timeout(sftp, budget.remaining())
                return call(sftp)
            except TimeoutError as exc:
                self._drop()
                raise CollectorTimeout(
                    f"timed out waiting for an SFTP {what}: {budget.limit()}"
                ) from exc
            except OSError as exc:
                if exc.errno is None and not self._alive():
                    self._drop()
                    raise TransportError(f"SFTP {what} failed: the session was lost") from exc
                raise _file_error(exc) from exc
            except (paramiko.SSHException, paramiko.SFTPError, EOFError) as exc:
                self._drop()
                raise TransportError(f"SFTP {what} failed: {exc}") from exc
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
            channel.settimeout(budget.remaining())
            channel.invoke_subsystem("sftp")
            self._sftp = paramiko.SFTPClient(channel)
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
        sftp, self._sftp = self._sftp, None
        channel = sftp.get_channel() if sftp is not None else None
        if channel is not None:
            close_quietly(channel)


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
