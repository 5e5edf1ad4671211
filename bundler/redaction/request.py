"""A ``bundler redact`` run as a library call: the request, checked before any file is read.

:func:`prepare` settles everything that can be wrong or needs a person (the
output kind, an existing map file, the map password, the bundle's sealing,
which may prompt) before the first file is redacted; :func:`run` redacts and
writes the output, the optional report copy and the optional reversible map.
The CLI (:mod:`bundler.cli.redact`) only turns flags into a :class:`RedactRequest`
and shows progress.
"""

from __future__ import annotations

import os
import secrets
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from schemas import RedactionReport

from ..archive.passwords import Sealing
from ..errors import UsageError
from ..plurals import counted
from ..secret_options import SealOptions
from ..sizes import human_size
from .config import RedactConfig, RedactOutcome
from .handoff import new_key
from .mapfile import write_map
from .outputs import redact_to_bundle, redact_to_directory

MIN_MAP_PASSWORD = 12

Announce = Callable[[str], None]
Progress = Callable[[str], None]


@dataclass(frozen=True)
class RedactRequest:
    """What ``bundler redact`` was asked to do (one field per flag)."""

    src: Path
    out: Path
    """A directory (same relative paths), or a path ending in ``.zip`` for a bundle."""
    rules: Path | None = None
    keywords: tuple[str, ...] = ()
    report_path: Path | None = None
    obfuscate: tuple[str, ...] = ()
    keep_binary: bool = False
    map_out: Path | None = None
    map_password_env: str | None = None
    map_password_file: Path | None = None
    workers: int | None = None
    force: bool = False
    seal: SealOptions = field(default_factory=SealOptions)

    @property
    def to_bundle(self) -> bool:
        return self.out.suffix.lower() == ".zip"


@dataclass(frozen=True)
class PreparedRedact:
    request: RedactRequest
    config: RedactConfig = field(repr=False)
    sealing: Sealing | None = field(repr=False)
    """Only for a bundle output."""
    map_secret: str | None = field(repr=False)
    """Only with ``--map-out``."""


def prepare(request: RedactRequest, announce: Announce) -> PreparedRedact:
    """Check ``request`` and settle its secrets; a one-line UsageError on any problem."""
    seal = request.seal
    if request.map_out is not None and request.map_out.exists():
        raise UsageError(f"map file {request.map_out} already exists")
    if not request.to_bundle and (
        seal.password_env or seal.password_file or seal.generate_password or seal.recipients
    ):
        raise UsageError("sealing options apply to a .zip output only")
    config = RedactConfig(
        key=secrets.token_bytes(32),
        handoff_key=new_key(),
        obfuscate_network="network" in request.obfuscate,
        keep_binary=request.keep_binary,
        keywords=tuple(request.keywords),
        rules_path=str(request.rules) if request.rules else None,
        keep_map=request.map_out is not None,
    )
    map_secret = (
        map_password(request.map_password_env, request.map_password_file, seal, announce)
        if request.map_out
        else None
    )
    sealing = None
    if request.to_bundle:
        from ..archive import resolve_seal

        sealing = resolve_seal(seal)
    return PreparedRedact(request, config, sealing, map_secret)


def run(prepared: PreparedRedact, progress: Progress | None = None) -> RedactOutcome:
    """Redact into the output, then write the report copy and the map when asked for."""
    request, config = prepared.request, prepared.config
    if prepared.sealing is not None:
        options = {
            "obfuscate": list(request.obfuscate),
            "keywords": len(request.keywords),
            "keep_binary": request.keep_binary,
            "custom_rules": bool(request.rules),
        }
        outcome = redact_to_bundle(
            request.src,
            request.out,
            config,
            prepared.sealing,
            workers=request.workers,
            overwrite=request.force,
            options=options,
            progress=progress,
        )
    else:
        outcome = redact_to_directory(
            request.src, request.out, config, workers=request.workers, progress=progress
        )
    if request.report_path is not None:
        request.report_path.write_text(outcome.report.model_dump_json(by_alias=True, indent=2))
    if request.map_out is not None and prepared.map_secret is not None:
        write_map(request.map_out, outcome.token_map, prepared.map_secret)
    return outcome


def summary_line(outcome: RedactOutcome) -> str:
    """The one line a run ends with: files, size, redactions by kind, skipped, output."""
    report = outcome.report
    kinds = ", ".join(
        f"{k} {n}" for k, n in sorted(report.by_kind.items(), key=lambda kv: -kv[1])[:8]
    )
    return (
        f"bundler: redacted {counted(outcome.files, 'file')}, {human_size(outcome.bytes_in)}: "
        f"{counted(report.total, 'redaction')}{' (' + kinds + ')' if kinds else ''}; "
        f"{len(report.skipped)} skipped{_skipped_why(report)} -> {outcome.output}"
    )


def _skipped_why(report: RedactionReport) -> str:
    """`` (symlink 3, binary 1)``: what was left out, by reason, so a link or a file that
    could not be read is seen without opening the report (which names each one); and what
    was kept without the whole redaction (a binary with --keep-binary, a structured file too
    large for the structure walk, which ``bundler review`` will reject)."""
    reasons = Counter(s.reason for s in report.skipped if not s.kept)
    kept = Counter(
        "line rules only" if s.reason == "too_large" else "kept unredacted"
        for s in report.skipped
        if s.kept
    )
    parts = [f"{reason} {n}" for reason, n in sorted(reasons.items())]
    parts += [f"{how} {n}" for how, n in sorted(kept.items())]
    return f" ({', '.join(parts)}; see the report)" if parts else ""


def password_from(env: str | None, file: Path | None) -> str | None:
    """A password from environment variable ``env`` or the first line of ``file``, else None."""
    if env:
        value = os.environ.get(env)
        if not value:
            raise UsageError(f"environment variable {env} is empty or not set")
        return value
    if file:
        try:
            lines = file.read_text().splitlines()
        except OSError as exc:
            raise UsageError(f"cannot read password file {file}: {exc.strerror}") from None
        if not lines or not lines[0]:
            raise UsageError(f"password file {file} is empty")
        return lines[0]
    return None


def map_password(
    env: str | None, file: Path | None, seal: SealOptions | None, announce: Announce
) -> str:
    """--map-password-env/-file, else the bundle's password source, else generated (shown once)."""
    value = password_from(env, file) or (
        password_from(seal.password_env, seal.password_file) if seal else None
    )
    if value is None:
        value = secrets.token_urlsafe(24)
        announce(f"bundler: map password (shown once, stored nowhere): {value}")
    if len(value) < MIN_MAP_PASSWORD:
        raise UsageError(f"the map password is too short (at least {MIN_MAP_PASSWORD} characters)")
    return value
