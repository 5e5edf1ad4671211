"""Why one collector did not produce its evidence: recorded, never raised to the user.

These are *outcomes*, not user errors. A transport (``http``, ``ssh``,
``local``) translates its library's exceptions into one of these where the
library is called; the engine records the class name as the collector's
``error_class`` and :attr:`status` as its status, and carries on with the
other collectors. Only :class:`~bundler.errors.BundlerError` reaches the user.

::

    CollectError                      failed
    ├── Skip                          skipped      (not run on purpose: absent feature, no variable)
    ├── CollectorTimeout              timeout      (its own timeout or the run deadline)
    ├── Refused                       refused      (we or the target refused the conversation)
    │   ├── HostKeyRefused
    │   │   ├── HostKeyUnknown        host key not in known_hosts (and no --accept-new-host-keys)
    │   │   └── HostKeyChanged        host key differs from known_hosts: never accepted
    │   ├── AuthenticationFailed      no key was accepted
    │   ├── TLSVerifyFailed           the server's certificate does not verify
    │   └── HttpRefused               401 / 403
    ├── ConnectFailed                 TCP connect refused / unreachable / name unknown
    ├── HttpStatusError               other non-2xx status
    ├── CommandFailed                 exit code not in ``ok_exit_codes``
    ├── CommandNotFound               program not installed (exit 127)
    ├── FileUnreadable                permission denied, not a regular file
    ├── FileMissing                   no such file (``skipped`` instead when the step allows it)
    ├── WorkingDirectoryMissing       a command's ``cwd`` does not exist on the host
    ├── Unsupported                   a configuration we do not implement (e.g. ProxyCommand)
    ├── ResponseTooLarge              JSON over its size cap (kept, truncated, unusable)
    ├── InvalidJSON                   a JSON step returned something else (kept as text)
    ├── BadContentEncoding            an HTTP Content-Encoding doctor cannot undo, or a body that
    │                                 does not decode as it says (not retried: it would again)
    └── TransportError                protocol-level failure (SSH negotiation, HTTP protocol)

Messages are short, one line, and pass through ``BundleSink.redact_text``
before they reach the manifest.
"""

from __future__ import annotations

from schemas import CollectorStatus


class CollectError(Exception):
    """A collector failed; ``status`` says how it is recorded."""

    status: CollectorStatus = CollectorStatus.FAILED
    attempts: int | None = None
    """How many requests were made, set by a transport that retries (HTTP); None when the
    one who records the error knows better (a class default of 1 hid three 500s)."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(message.split()))
        self.message = " ".join(message.split())

    @property
    def error_class(self) -> str | None:
        return type(self).__name__


class Skip(CollectError):
    """Not run on purpose; the message is the note (e.g. 'observability off')."""

    status = CollectorStatus.SKIPPED

    @property
    def error_class(self) -> str | None:
        return None


class CollectorTimeout(CollectError):
    status = CollectorStatus.TIMEOUT


class Refused(CollectError):
    status = CollectorStatus.REFUSED


class HostKeyRefused(Refused):
    """A host-key refusal; carries the offered key so the person can verify it out of band."""

    def __init__(self, message: str, *, key_type: str = "", fingerprint: str = "") -> None:
        super().__init__(message)
        self.key_type = key_type
        self.fingerprint = fingerprint


class HostKeyUnknown(HostKeyRefused):
    pass


class HostKeyChanged(HostKeyRefused):
    pass


class AuthenticationFailed(Refused):
    pass


class TLSVerifyFailed(Refused):
    pass


class HttpRefused(Refused):
    pass


class ConnectFailed(CollectError):
    pass


class HttpStatusError(CollectError):
    pass


class CommandFailed(CollectError):
    pass


class CommandNotFound(CollectError):
    pass


class FileUnreadable(CollectError):
    pass


class FileMissing(CollectError):
    pass


class WorkingDirectoryMissing(CollectError):
    pass


class Unsupported(CollectError):
    pass


class ResponseTooLarge(CollectError):
    pass


class InvalidJSON(CollectError):
    pass


class TransportError(CollectError):
    pass


class BadContentEncoding(CollectError):
    pass


__all__ = [
    "AuthenticationFailed",
    "BadContentEncoding",
    "CollectError",
    "CollectorTimeout",
    "CommandFailed",
    "CommandNotFound",
    "ConnectFailed",
    "FileMissing",
    "FileUnreadable",
    "HostKeyChanged",
    "HostKeyRefused",
    "HostKeyUnknown",
    "HttpRefused",
    "HttpStatusError",
    "InvalidJSON",
    "Refused",
    "ResponseTooLarge",
    "Skip",
    "TLSVerifyFailed",
    "TransportError",
    "Unsupported",
    "WorkingDirectoryMissing",
]
