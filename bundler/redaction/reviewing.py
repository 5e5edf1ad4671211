"""Open what ``bundler review`` was given (a directory, a bundle, one file) and scan it.

``review`` is the gate an upload pipeline trusts: exit 0 means "accept". So it
fails closed on what it cannot fully read:

* Bundle or plain file is decided by what the file *is*: a zip's end record
  can be found (as 7-Zip and ``unzip`` find it), never by its first bytes.
  A file with zip records but no findable end record (a padded or damaged
  zip) is refused, not scanned as opaque bytes.
* A bundle is opened exactly as ``bundler verify`` opens it (same zip scan,
  limits, byte map, manifest, MACs, checksums and schemas). Anything verify
  would report makes review refuse the bundle (:class:`BundleRejected`, exit
  2) with the reason; every byte of an accepted bundle is either a verified
  member that was scanned, or zip structure bundler writes.
* An empty file is refused: "nothing to review" is not "clean".
* A member review cannot see into (a nested zip or 7z archive, a bzip2, xz
  or zstd stream: gzip it does open) is refused, in a folder as in a bundle:
  its plaintext would never be scanned.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from redactors import review_source
from redactors.binary import SNIFF_BYTES, opaque, sniff
from redactors.review import load_report
from schemas import REDACTION_REPORT_MEMBER, ReviewResult

from ..errors import BundleError, InputError
from ..secret_options import OpenSecrets
from ..source import DirectorySource, MemberNotFound, MemberSource, MemorySource, declared_size

if TYPE_CHECKING:  # the archive (pyzipper, cryptography) is imported only for a file
    from ..archive.integrity import IntegrityProblem
    from ..archive.reader import BundleReader
    from ..archive.zipkind import ZipKind

Prompt = Callable[[str, bool], str]


class BundleRejected(BundleError):
    """The bundle is not one ``verify`` accepts, so ``review`` cannot vouch for it (exit 2)."""

    reference = "review-rejected"


class _SkipMissing:
    """A source that hides members that vanish or escape (symlinked folders) instead of failing."""

    def __init__(self, inner: MemberSource) -> None:
        self.inner = inner

    def names(self) -> list[str]:
        return [n for n in self.inner.names() if self.inner.has(n)]

    def iter_chunks(self, name: str, chunk_size: int = 1 << 20) -> Iterator[bytes]:
        try:
            yield from self.inner.iter_chunks(name, chunk_size)
        except MemberNotFound:
            return

    def member_size(self, name: str) -> int | None:
        return declared_size(self.inner, name)

    def read_bytes(self, name: str) -> bytes:
        return self.inner.read_bytes(name)

    def has(self, name: str) -> bool:
        return self.inner.has(name)


class _RefuseOpaque:
    """Hands members to the scan, refusing one whose bytes the scan could not see into."""

    def __init__(self, inner: MemberSource, label: Path) -> None:
        self.inner = inner
        self.label = label

    def names(self) -> list[str]:
        return self.inner.names()

    def has(self, name: str) -> bool:
        return self.inner.has(name)

    def read_bytes(self, name: str) -> bytes:
        return self.inner.read_bytes(name)

    def member_size(self, name: str) -> int | None:
        return declared_size(self.inner, name)

    def iter_chunks(self, name: str, chunk_size: int = 1 << 20) -> Iterator[bytes]:
        chunks = self.inner.iter_chunks(name, chunk_size)
        head = b""
        pending: list[bytes] = []
        for chunk in chunks:
            pending.append(chunk)
            head += chunk[: SNIFF_BYTES - len(head)]
            if len(head) >= SNIFF_BYTES:
                break
        found = sniff(head)
        if found.kind != "gzip" and opaque(found):  # gzip the reviewer decompresses
            from ..archive.names import printable_name

            raise BundleRejected(
                f"{self.label}: unreadable: rejected: member {printable_name(name)!r} is "
                f"archived or compressed ({found.detail}); review cannot see inside it",
                hint="unpack it (or leave it out) and review again",
            )
        yield from pending
        yield from chunks


def review_path(
    path: Path,
    secrets: OpenSecrets | None = None,
    originals: list[bytes] | None = None,
    *,
    prompt: Prompt | None = None,
) -> ReviewResult:
    """Review a directory, a bundle or one plain file; raises when it cannot vouch for it.

    ``prompt`` asks for a bundle's password when no source was given (the
    archive's terminal prompt by default). The readers' ``BUNDLER_MAX_*`` settings are
    checked first, whatever ``path`` is: a malformed one is the same usage error (exit 2)
    for a directory or a file as for a bundle, whose opening reads them (a directory was
    reviewed as if it were not set).
    """
    from ..archive.limits import ReaderLimits

    ReaderLimits.from_env()
    if path.is_dir():
        _refuse_unread_entries(path)
        return _review(_RefuseOpaque(_SkipMissing(DirectorySource(path)), path), originals, path)
    from ..archive.opening import open_bundle
    from ..archive.passwords import terminal_prompt

    kind = _kind_of(path)
    if kind == "plain":
        source = MemorySource({path.name: path.read_bytes()})
        return _review(_RefuseOpaque(source, path), originals, path)
    with open_bundle(path, secrets, lenient=True, prompt=prompt or terminal_prompt) as reader:
        _reject(path, reader.integrity.problems)  # what opening found: layout, manifest, listing
        try:
            result = _review(_RefuseOpaque(reader, path), originals, path)
        except BundleError as exc:  # a member failed its checksum or MAC while scanned
            raise BundleRejected(f"{path}: unreadable: rejected: {exc.message}") from exc
        _reject_unverified(path, reader)
    return result


def _refuse_unread_entries(root: Path) -> None:
    """A directory is reviewed file by file, regular files only; an entry review did not read
    (a symlink, a FIFO, a socket) makes it unreadable, not clean: ``zip -r`` and ``tar -h``
    follow a link, so an upload of the directory would carry what it points to.
    ``bundler redact`` never writes one."""
    from ..archive.names import printable_name

    unread = sorted(
        entry.relative_to(root).as_posix()
        for entry in root.rglob("*")  # does not descend into a linked directory
        if entry.is_symlink() or not (entry.is_file() or entry.is_dir())
    )
    if unread:
        first = root / unread[0]
        what = "a symlink" if first.is_symlink() else "not a regular file"
        more = f" (and {len(unread) - 1} more)" if len(unread) > 1 else ""
        raise BundleRejected(
            f"{root}: unreadable: rejected: {printable_name(unread[0])!r} is {what}{more}; "
            "review reads regular files only: it cannot vouch for what that holds or points to",
            hint="remove it (bundler redact never writes one) and review again",
        )


def _kind_of(path: Path) -> ZipKind:
    from ..archive.zipkind import zip_kind

    try:
        kind = zip_kind(path)
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    if kind == "empty":
        raise InputError(f"{path} is empty: there is nothing to review")
    if kind == "damaged-zip":
        raise BundleRejected(
            f"{path}: unreadable: rejected: it holds zip records but no zip end record "
            "(a damaged, truncated or padded zip); its members cannot be read"
        )
    return kind


def _review(source: MemberSource, originals: list[bytes] | None, label: Path) -> ReviewResult:
    from redactors.errors import MemberUnreadable

    from ..archive.names import printable_name

    report = None
    has_report = source.has(REDACTION_REPORT_MEMBER)
    if has_report:
        report = load_report(source.read_bytes(REDACTION_REPORT_MEMBER))
    try:
        result = review_source(source, originals=originals or [], report=report)
    except MemberUnreadable as exc:  # read in part is not read: never "clean"
        raise BundleRejected(
            f"{label}: unreadable: rejected: member {printable_name(exc.member)!r}: {exc.reason}",
            hint=exc.hint,
        ) from None
    if has_report and report is None:  # its checksums could not be compared: not consistent
        unread = f"{REDACTION_REPORT_MEMBER}: not a redaction report bundler can read"
        result = result.model_copy(
            update={
                "clean": False,
                "report_consistent": False,
                "report_mismatches": [unread, *result.report_mismatches],
            }
        )
    return result


def _reject_unverified(path: Path, reader: BundleReader) -> None:
    """Everything ``verify`` checks, over what the scan did not already verify while reading."""
    from ..archive.integrity import IntegrityProblem
    from ..archive.integrity.verify import verify_bundle
    from ..archive.names import printable_name

    problems = []
    for check in verify_bundle(reader).problems:
        detail = check.detail or f"a {check.check} problem"
        if check.member and printable_name(check.member) not in detail:
            detail = f"member {printable_name(check.member)!r}: {detail}"
        problems.append(IntegrityProblem("corrupt", check.member, detail))
    _reject(path, problems)


def _reject(path: Path, problems: list[IntegrityProblem]) -> None:
    if not problems:
        return
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    raise BundleRejected(
        f"{path}: unreadable: rejected: {problems[0].message}{more}",
        hint=f"`bundler verify {path}` lists every problem; review vouches only for bundles "
        "verify accepts",
    )
