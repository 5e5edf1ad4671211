"""Consistency of a bundle's zip directory with its manifest, and the password check.

Both run at open, before any member is read: the cheap checks that decide
whether a strict reader refuses the bundle, and what a lenient one reports.
"""

from __future__ import annotations

from typing import BinaryIO

from schemas import MANIFEST_MEMBER, Manifest, MemberEntry

from ...errors import DecryptionFailed, NotABundle
from ..names import member_name_problem, printable_name
from ..secret import Secret
from ..zipscan import Entry
from . import IntegrityProblem, ProblemKind
from .written import password_fit

PASSWORD_PROBES = 4
"""Members whose password verifier is tried (PBKDF2 with 1000 rounds: about 1 ms each)."""
MAC_PROBE_BYTES = 4 << 20
"""Probed members up to this compressed size also have their MAC checked (the manifest always)."""


def cross_check(
    manifest: Manifest, entries: dict[str, Entry]
) -> tuple[dict[str, MemberEntry], list[IntegrityProblem]]:
    """The manifest's members by path, and every disagreement with the zip.

    Listed but absent (``missing``), present but not listed (``unlisted``),
    stored without AES-256 (``unencrypted``), a size that differs from the
    zip's (``size_mismatch``), a path listed twice (``manifest_invalid``).
    """
    listed: dict[str, MemberEntry] = {}
    problems: list[IntegrityProblem] = []

    def problem(kind: ProblemKind, member: str | None, message: str) -> None:
        problems.append(IntegrityProblem(kind, member, message))

    for member in manifest.members:
        label = printable_name(member.path)
        unsafe = member_name_problem(member.path)
        if member.path == MANIFEST_MEMBER:
            problem("manifest_invalid", None, "manifest.json lists itself")
        elif unsafe:
            problem("manifest_invalid", None, f"manifest.json lists {label!r}: {unsafe}")
        elif member.path in listed:
            problem("manifest_invalid", member.path, f"manifest lists {label!r} twice")
        else:
            listed[member.path] = member
    for path, member in listed.items():
        entry = entries.get(path)
        label = printable_name(path)
        if entry is None or entry.is_dir:
            problem("missing", path, f"member {label!r} is in the manifest but missing")
        elif not entry.encrypted:
            problem("unencrypted", path, f"member {label!r} {_not_encrypted(entry)}")
        elif entry.size != member.size:
            problem("size_mismatch", path, f"member {label!r} has the wrong size")
    for name, entry in entries.items():
        if entry.is_dir or name == MANIFEST_MEMBER or name in listed:
            continue
        label = printable_name(name)
        if entry.encrypted:
            problem("unlisted", name, f"member {label!r} is not in the manifest")
        else:
            problem(
                "unencrypted",
                name,
                f"member {label!r} is not in the manifest and {_not_encrypted(entry)}",
            )
    return listed, problems


def _not_encrypted(entry: Entry) -> str:
    if entry.aes_version == 1:
        return "is AES AE-1 (a plaintext CRC per member), not the AE-2 bundles use"
    return "is not AES-256 encrypted"


def choose_password(
    handle: BinaryIO, entries: dict[str, Entry], candidates: list[Secret], via_identity: bool
) -> Secret:
    """The candidate that opens the bundle; refuses a wrong password or identity up front.

    The manifest is probed first, then the smallest other members. A
    candidate is right when one probe passes its verifier *and* its MAC (a
    wrong password passes a 2-byte verifier once in 65,536 tries: that must
    read "wrong password", not "tampered"). A candidate that passes every
    probed verifier but no MAC is kept too: then the members themselves were
    altered, and reading them reports it. One damaged verifier among sound
    members never turns into "wrong password".
    """
    if not entries:
        raise NotABundle("an empty zip (no members at all): not a bundler bundle")
    encrypted = [e for e in entries.values() if e.encrypted]
    if not encrypted:
        raise NotABundle("not a bundler bundle (none of its members is AES-256 encrypted)")
    encrypted.sort(key=lambda e: (e.name != MANIFEST_MEMBER, e.compressed_size))
    probes = encrypted[:PASSWORD_PROBES]
    for candidate in candidates:
        fits = [
            password_fit(
                handle,
                e.info,
                candidate.reveal(),
                mac=e.name == MANIFEST_MEMBER or e.compressed_size <= MAC_PROBE_BYTES,
            )
            for e in probes
        ]
        if "authentic" in fits or "wrong" not in fits:
            return candidate
    if via_identity:
        raise DecryptionFailed(
            "the password sealed to this identity does not open the bundle "
            "(its envelope was replaced or damaged)"
        )
    raise DecryptionFailed("wrong password for this bundle")
