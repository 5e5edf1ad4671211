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
    ├── BundleFull                    collected, but left out: the bundle was as full as its
    │                                 readers open (bundler.archive.room)
    └── TransportError                protocol-level failure (SSH negotiation, HTTP protocol)

Messages are short, one line, and pass through ``BundleSink.redact_text``
before they reach the manifest. What the remote side said (a response body, a
command's stderr) is quoted in a message only through :func:`excerpt`, which
redacts *before* it shortens: a body cut to 200 characters first left the head
of a token the cut went through, which no exact-value or keyword rule matches.
Where the remote text is quoted by code that holds no redactor (a transport: the
``stat`` fallback's stderr, an SFTP server's status text, a ``Content-Encoding``
name), it is quoted whole and the error carries a :attr:`CollectError.limit`: the
recorder excerpts the message (redacts, then cuts) when it settles the outcome.
A message a task made of an excerpt already says so (``redacted=True``): the
recorder then only cuts it, as every text is redacted exactly once.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from schemas import CollectorStatus

EXCERPT_WINDOW = 4096
"""Characters of a body or stderr read for an excerpt, before redaction: a bound on the
work one failure costs, far more than any excerpt keeps."""
STDERR_EXCERPT = 300
"""Characters of a failed command's last stderr line quoted in its message, after redaction."""
MESSAGE_LIMIT = 1000
"""Characters of any collector's message the recorder keeps, after redaction, cut between
words: the bound on a message that quotes the remote side whole (a library's exception
text, an SFTP server's status message), far more than bundler's own messages need."""
ELLIPSIS = "…"

_SEPARATOR = re.compile(r"[\s,;\"'<>(){}\[\]|]")
"""Where an excerpt may be cut: between words, never inside one. A secret is a run of
letters, digits and a few symbols (``-_.+/=:~``); a cut at one of these leaves none of
it, where a cut inside it would leave its head for nothing to recognise."""


def whole_words(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters at a separator, ``…`` marking the cut.

    The last, partial word is dropped, not shown in part; a text without any separator
    in its first ``limit`` characters is shown as ``…`` alone."""
    if len(text) <= limit:
        return text
    return text[: _cut(text, limit)].rstrip() + ELLIPSIS


def _cut(text: str, limit: int) -> int:
    """The last separator at or before ``limit`` (one right after the limit keeps the whole
    last word); 0 when there is none."""
    return max((m.start() for m in _SEPARATOR.finditer(text, 0, limit + 1)), default=0)


def excerpt(text: str, redact: Callable[[str], str], limit: int) -> str:
    """``text`` redacted, on one line, then shortened to about ``limit`` characters.

    Redaction sees the text whole (up to :data:`EXCERPT_WINDOW` characters, cut between
    words before it looks), so every rule can match a value before anything is cut;
    the cut afterwards is between words too, so a value a later pass learns (literal
    propagation at sealing) is never left in part either."""
    window = text if len(text) <= EXCERPT_WINDOW else text[: _cut(text, EXCERPT_WINDOW)]
    return whole_words(" ".join(redact(window).split()), limit)


def last_line(stderr: bytes) -> str:
    """The last non-empty line of a command's stderr (what usually says why it failed)."""
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines()]
    return next((line for line in reversed(lines) if line), "")


class CollectError(Exception):
    """A collector failed; ``status`` says how it is recorded."""

    status: CollectorStatus = CollectorStatus.FAILED
    attempts: int | None = None
    """How many requests were made, set by a transport that retries (HTTP); None when the
    one who records the error knows better (a class default of 1 hid three 500s)."""

    def __init__(self, message: str, *, limit: int = MESSAGE_LIMIT, redacted: bool = False) -> None:
        super().__init__(" ".join(message.split()))
        self.message = " ".join(message.split())
        self.limit = limit
        """At most this many characters of the message are recorded, cut only after it
        is redacted (:func:`excerpt`): a transport that quotes remote text has no
        redactor, and a cut of its own would leave the head of a secret the cut went
        through."""
        self.redacted = redacted
        """Every part of the message that did not come from bundler itself was redacted
        already, with the recorder's ``redact`` (a task's :func:`excerpt` of a body or a
        stderr line): the recorder only cuts it. Redacting it again is not harmless
        (``--obfuscate network`` pseudonymizes an address pseudonym once more). Not for
        a :class:`Skip`, whose message is recorded as the note, redacted as notes are."""

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


def transport_failure(what: str, exc: BaseException) -> TransportError:
    """``what`` failed, saying why even when the library's exception has no text.

    paramiko ends a read on a connection that closed under it with a bare ``EOFError()``:
    "SSH command failed: " with nothing after the colon told the reader nothing.
    """
    said = str(exc).strip()
    if not said:
        said = "the connection closed" if isinstance(exc, EOFError) else type(exc).__name__
    return TransportError(f"{what} failed: {said}")


class BadContentEncoding(CollectError):
    pass


class BundleFull(CollectError):
    """Collected, but left out of the bundle: storing it would make a bundle bundler's
    readers refuse (:mod:`bundler.archive.room`). A gap, recorded as the collector's failure."""


__all__ = [
    "AuthenticationFailed",
    "BadContentEncoding",
    "BundleFull",
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
