"""Which symbolic links a file read may follow: the rule, and the walk that finds every link.

Logs are often links (``current`` to a dated file, ``/var/log/containers/*.log`` to a
container runtime's file), so links cannot be refused; but a worker who can write the
directory of its own log could point the log at ``/etc/shadow``, and doctor (often root)
would collect it. The rule is the one of the Linux kernel's ``fs.protected_symlinks`` and
systemd's "unsafe path transition": a link is followed only when it is owned by root or
by the owner of what it leads to. Every link met on the way is judged (in the path's
directories too, and links to links), because any of them could be the one that turns.

:func:`resolve` walks a path the way the kernel does, component by component, with a
``describe`` callback that ``lstat``s (and ``readlink``s) paths for its transport: the
local file system, SFTP, or one command. It asks for all the path's prefixes at once,
so a command-backed transport needs one round trip per path walked (the log's path,
then each link's target), not one per component.
"""

from __future__ import annotations

import posixpath
import stat as stat_module
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from ..errors import CollectError, FileUnreadable

MAX_LINKS = 40
"""Links followed for one path at most, as Linux does (then ``ELOOP``)."""


@dataclass(frozen=True)
class Entry:
    """What ``lstat`` says of one path (and ``readlink`` when it is a link)."""

    uid: int
    mode: int
    size: int
    link: str | None = None


@dataclass(frozen=True)
class LinkHop:
    """One link followed: where it is, where it led, and who owns each."""

    link: str
    target: str
    link_uid: int
    target_uid: int


@dataclass(frozen=True)
class Resolved:
    path: str
    """The path with every link resolved."""
    entry: Entry
    hops: tuple[LinkHop, ...] = field(default=())


Describe = Callable[[Sequence[str]], Mapping[str, Entry | CollectError]]
"""``lstat`` (and ``readlink``) each path; a path that cannot be described maps to the
error a read of it would give (FileMissing, FileUnreadable)."""


def may_follow(hop: LinkHop) -> bool:
    """The rule: a link owned by root, or by the owner of what it leads to."""
    return hop.link_uid == 0 or hop.link_uid == hop.target_uid


def refuse_unsafe_links(hops: Sequence[LinkHop]) -> None:
    """Raise :class:`FileUnreadable` for the first link the rule does not let us follow."""
    for hop in hops:
        if not may_follow(hop):
            raise FileUnreadable(
                f"{hop.link} is a link owned by uid {hop.link_uid}, and {hop.target}, "
                f"which it leads to, is owned by uid {hop.target_uid}: a link is followed "
                "only when root or its target's owner owns it"
            )


def kind_of(mode: int) -> str:
    """What a file that is not a regular one is, for a message."""
    for test, name in (
        (stat_module.S_ISDIR, "a directory"),
        (stat_module.S_ISFIFO, "a FIFO"),
        (stat_module.S_ISSOCK, "a socket"),
        (stat_module.S_ISCHR, "a character device"),
        (stat_module.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "a regular file" if stat_module.S_ISREG(mode) else "not a regular file"


def resolve(path: str, describe: Describe) -> Resolved:
    """Walk the absolute ``path`` as the kernel would; every link followed is a hop."""
    walk = _Walk(describe)
    try:
        final = walk.walk(path)
    except CollectError as failed:
        # the error for the path as configured (``stat`` of it says which component
        # failed), not the one for a shorter prefix of it
        own = walk.known.get(posixpath.normpath(path))
        raise (own if isinstance(own, CollectError) else failed) from None
    return Resolved(final, walk.entry(final), tuple(walk.hops))


class _Walk:
    def __init__(self, describe: Describe) -> None:
        self.describe = describe
        self.known: dict[str, Entry | CollectError] = {}
        self.hops: list[LinkHop] = []
        self.followed = 0

    def entry(self, path: str) -> Entry:
        if path not in self.known:
            self._fetch([path])
        got = self.known[path]
        if isinstance(got, CollectError):
            raise got
        return got

    def walk(self, path: str) -> str:
        parts = [part for part in path.split("/") if part not in ("", ".")]
        self._fetch(_prefixes(parts))
        current = "/"
        for name in parts:
            if name == "..":
                current = posixpath.dirname(current)
                continue
            candidate = posixpath.join(current, name)
            entry = self.entry(candidate)
            if entry.link is None:
                current = candidate
                continue
            self.followed += 1
            if self.followed > MAX_LINKS:
                raise FileUnreadable(f"too many levels of symbolic links at {candidate}")
            target = self.walk(posixpath.join(current, entry.link))  # an absolute link restarts
            self.hops.append(LinkHop(candidate, target, entry.uid, self.entry(target).uid))
            current = target
        return current

    def _fetch(self, paths: Sequence[str]) -> None:
        wanted = [path for path in paths if path not in self.known]
        if wanted:
            self.known.update(self.describe(wanted))


def _prefixes(parts: Sequence[str]) -> list[str]:
    """``/a``, ``/a/b``, … up to the first ``..`` (after it, what a prefix names depends on
    the links before it)."""
    found, current = [], "/"
    for name in parts:
        if name == "..":
            break
        current = posixpath.join(current, name)
        found.append(current)
    return found
