"""Where a redaction run's two passes go: a directory (built under a temporary name, renamed
when complete) or an encrypted bundle (through the archive's builder, manifest and report
inside). All or nothing either way; an OS error is a one-line error, not an internal one."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from redactors import BundleRedactor
from schemas import RedactionReport

from ..archive.deflate import DeflateError
from ..errors import OutputError, UsageError
from . import handoff
from . import workers as worker
from .config import Progress, RedactConfig, RedactOutcome
from .tree import Member, TreeRedaction


def redact_to_directory(
    src: Path,
    dst: Path,
    config: RedactConfig,
    *,
    workers: int | None = None,
    progress: Progress = None,
) -> RedactOutcome:
    if dst.is_symlink():  # a loop raised RuntimeError from resolve(); rmdir() fails on a link
        raise UsageError(f"--out {dst} is a symbolic link: give the directory itself")
    src_resolved = src.resolve()
    dst_resolved = dst.resolve()
    if dst_resolved == src_resolved or dst_resolved.is_relative_to(src_resolved):
        raise UsageError("--out must not be inside SRC")
    if dst.exists() and (not dst.is_dir() or any(dst.iterdir())):
        raise UsageError(f"{dst} already exists and is not an empty directory")
    run = TreeRedaction(config, workers=workers, progress=progress)
    with writing(dst):
        members = _into_directory(run, src, dst, dst_resolved.parent)
    assert run.report is not None
    report = run.report
    return RedactOutcome(dst, report, len(members), run.bytes_in, run.coordinator.token_map())


def _into_directory(run: TreeRedaction, src: Path, dst: Path, parent: Path) -> list[Member]:
    """Both passes into a staging folder beside ``dst``, renamed to ``dst`` when complete."""
    parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(
        tempfile.mkdtemp(prefix=f".{dst.name}.", suffix=".handoff.tmp-bundler", dir=parent)
    )
    staging = None
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".{dst.name}.", suffix=".tmp-bundler", dir=parent))
        members = run.pass_one(src, scratch)
        run.to_directory(members, staging)
        run.report = run.coordinator.report()
        (staging / "redaction-report.json").write_text(
            run.report.model_dump_json(by_alias=True, indent=2)
        )
        if dst.exists():
            dst.rmdir()
        os.replace(staging, dst)
    except BaseException:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
        raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return members


@contextmanager
def writing(out: Path) -> Iterator[None]:
    """An :class:`OSError` out of a run as a one-line error (exit 2), not an internal one.

    A source file that cannot be read is left out and listed (``SourceUnreadable``
    never gets here), so what is left is the output's or its scratch's: no
    permission, no space left, a read-only file system.
    """
    try:
        yield
    except OSError as exc:
        raise OutputError(
            f"cannot write {out}: {exc.strerror or exc}; nothing was written"
        ) from exc


class _Prepared:
    """The builder's transform when both passes already ran (in the pool): content as given.

    The report comes from the coordinator, which has merged everything the
    workers learned and recorded; ``redact_text`` (manifest strings) is its too.
    """

    def __init__(self, coordinator: BundleRedactor) -> None:
        self.coordinator = coordinator
        self._report: RedactionReport | None = None

    def member_name(self, name: str) -> str:
        return name

    def transform(self, name: str, chunks: Any, *, media_type: str) -> Iterator[bytes]:
        yield from chunks

    def transform_derived(self, name: str, chunks: Any, *, media_type: str) -> Iterator[bytes]:
        yield from chunks

    def finalize(self, name: str, chunks: Any, *, media_type: str) -> Iterator[bytes]:
        yield from chunks

    def redact_text(self, text: str) -> str:
        return self.coordinator.redact_text(text)

    def finalize_text(self, text: str) -> str:
        return self.coordinator.finalize_text(text)

    def report(self) -> RedactionReport:
        """Built once: the builder asks for it after the last member, when nothing changes
        any more, and the run's outcome returns the same report (at 18,000 hits a second
        build was 80 ms of the main process)."""
        if self._report is None:
            self._report = self.coordinator.report()
        return self._report

    def summary(self) -> Any:
        return self.coordinator.summary()


def redact_to_bundle(
    src: Path,
    path: Path,
    config: RedactConfig,
    sealing: Any,
    *,
    workers: int | None = None,
    overwrite: bool = False,
    options: dict[str, Any] | None = None,
    progress: Progress = None,
) -> RedactOutcome:
    """Redact into an encrypted bundle through the archive's builder (manifest, report inside)."""
    from ..archive.atomic import check_can_create

    check_can_create(path, overwrite=overwrite)  # before minutes of work, not after
    # The workers encrypt each whole member as the zip stores it (see pass_two_deflated).
    config = replace(config, seal_password=sealing.password.reveal())
    run = TreeRedaction(config, workers=workers, progress=progress)
    parent = path.resolve().parent
    with writing(path):
        scratch = Path(
            tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".handoff.tmp-bundler", dir=parent)
        )
    try:
        with writing(path):
            members = run.pass_one(src, scratch, deflate=True, as_members=True)
            report, uncompressed = _seal(run, members, path, config, sealing, overwrite, options)
    except (handoff.HandoffError, DeflateError) as exc:
        raise OutputError(
            "the encrypted hand-off files were damaged on disk; nothing was written"
        ) from exc
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return RedactOutcome(
        path, report, len(members), run.bytes_in, run.coordinator.token_map(), uncompressed
    )


def _seal(
    run: TreeRedaction,
    members: list[Member],
    path: Path,
    config: RedactConfig,
    sealing: Any,
    overwrite: bool,
    options: dict[str, Any] | None,
) -> tuple[RedactionReport, tuple[str, ...]]:
    """Pass two, then the zip: every member's final stream, sealed by a worker (only copied
    here) or, for a member joined from segments, deflated by the workers and encrypted here.
    Returns the redaction report as the transform built it for the bundle (the member
    written also lists any member the builder dropped itself: ``finalizing.merge_dropped``),
    and the members the writer stored uncompressed (:mod:`bundler.archive.uncompressed`)."""
    from ..archive import BundleBuilder

    finals = run.pass_two_deflated(members)
    run.phase(f"sealing {path.name}")
    prepared = _Prepared(run.coordinator)
    with BundleBuilder(path, sealing=sealing, transform=prepared, overwrite=overwrite) as bundle:
        for member, final in zip(members, finals, strict=True):
            bundle.add_precompressed(
                member.stored,
                partial(worker.joined, final.outputs, config.handoff_key)
                if final.sealed is None
                else partial(worker.read_source, Path(final.sealed)),
                size=final.size,
                sha256=final.sha256,
                media_type=member.media_type,
                collector="redact",
                sealed=final.sealed is not None,
            )
        sealed = bundle.finalize(command="redact", options=options or {})
    return prepared.report(), sealed.uncompressed
