"""Errors bundler shows to its users: one line, an optional hint, an exit code.

::

    BundlerError                      one-line message + hint + exit code
    ├── UsageError                    bad flags, bad config or inventory file      (2)
    ├── InputError                    a file we were given cannot be used          (2)
    │   └── BundleError               a bundle cannot be opened safely             (2)
    │       ├── NotABundle            not a zip / no manifest / unknown format
    │       ├── HostileArchive        a member breaks a safety rule (.., /, links, bombs)
    │       ├── DecryptionFailed      wrong password or identity
    │       ├── CorruptArchive        truncated zip, AES authentication failure
    │       └── ManifestInvalid       manifest missing or not valid against its schema
    ├── EncryptionError               cannot encrypt: nothing was written          (2)
    ├── OutputError                   cannot write the output (exists, disk full)  (2)
    ├── NothingCollected              every collector failed: no bundle            (4)
    └── Interrupted                   Ctrl-C                                       (130)

Third-party exceptions (httpx, paramiko, pyzipper) are translated where they
occur, in the module that talks to that library, and re-raised ``from exc``;
nothing above those modules catches a library exception. The CLI maps
:class:`BundlerError` to its exit code in one place (``bundler.cli``).

Messages must never contain secrets: they are printed and may be logged.
"""

from __future__ import annotations

from .exit_codes import ExitCode


class BundlerError(Exception):
    """Base of every error meant for the user."""

    exit_code: ExitCode = ExitCode.USAGE
    reference: str = "bundler-error"

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = " ".join(message.split())  # always one line
        self.hint = hint

    def __str__(self) -> str:
        return self.message


class UsageError(BundlerError):
    reference = "usage"


class InputError(BundlerError):
    reference = "unreadable-input"


class BundleError(InputError):
    reference = "bundle-unreadable"


class NotABundle(BundleError):
    reference = "not-a-bundle"


class HostileArchive(BundleError):
    reference = "hostile-archive"


class DecryptionFailed(BundleError):
    reference = "decryption-failed"


class CorruptArchive(BundleError):
    reference = "corrupt-archive"


class ManifestInvalid(BundleError):
    reference = "manifest-invalid"


class EncryptionError(BundlerError):
    reference = "encryption-failed"


class OutputError(BundlerError):
    """An output file or folder cannot be created: it exists, or the disk refused."""

    reference = "output-failed"


class NothingCollected(BundlerError):
    exit_code = ExitCode.NOTHING_COLLECTED
    reference = "nothing-collected"


class Interrupted(BundlerError):
    exit_code = ExitCode.INTERRUPTED
    reference = "interrupted"
