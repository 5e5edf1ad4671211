"""``bundler redact SRC --out DST``: redact a file or a tree into a directory or a bundle.

Two passes, as in ``doctor``: pass one redacts each file by rules and
structure and learns every redacted value; pass two removes every learned
value from every file. Between the passes the text waits in encrypted
hand-off files (:mod:`.handoff`). With several files both passes run in a
process pool, one file per task, largest first, so both cores work; all
workers share the bundle's HMAC key, so tokens agree.

For a bundle, pass one also deflates its output (on a helper thread beside
the redaction, :mod:`bundler.archive.deflate`), and pass two keeps that
compressed stream whenever no learned literal occurs in it, which is the
common case; the main process then only encrypts into the zip. So deflate
runs where the redaction runs, on every core, instead of serially after it.

Output is all or nothing: a directory is built under a temporary name and
renamed at the end; a bundle is written by the archive's builder, which does
the same.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from redactors import BundleRedactor, Policy, load_rules
from redactors.errors import RulesError
from schemas import RedactionReport

from ..archive.deflate import DeflateError
from ..errors import InputError, OutputError, UsageError
from . import handoff
from . import workers as worker
from .walk import SourceFile, walk
from .workers import Task

POOL_MIN_BYTES = 4 << 20


@dataclass(frozen=True)
class RedactConfig:
    """Everything a worker needs to rebuild the same redactor (picklable)."""

    key: bytes
    handoff_key: bytes
    obfuscate_network: bool = False
    keep_binary: bool = False
    keywords: tuple[str, ...] = ()
    rules_path: str | None = None
    keep_map: bool = False

    def redactor(self) -> BundleRedactor:
        custom = None
        if self.rules_path is not None:
            try:
                custom = load_rules(Path(self.rules_path))
            except RulesError as exc:
                raise UsageError(str(exc)) from None
        policy = Policy(
            obfuscate_network=self.obfuscate_network,
            keep_binary=self.keep_binary,
            keywords=self.keywords,
            custom=custom,
        )
        return BundleRedactor(policy, key=self.key, keep_map=self.keep_map)


@dataclass
class RedactOutcome:
    output: Path
    report: RedactionReport
    files: int
    bytes_in: int
    token_map: dict[str, tuple[str, bytes]] = field(default_factory=dict)


def media_type_for(name: str) -> str:
    return "application/json" if name.lower().endswith(".json") else "text/plain"


class TreeRedaction:
    """One ``bundler redact`` run; see the module docstring."""

    def __init__(self, config: RedactConfig, *, workers: int | None = None) -> None:
        self.config = config
        self.workers = workers or os.cpu_count() or 1
        self.coordinator = config.redactor()

    def pass_one(self, src: Path, scratch: Path, *, deflate: bool = False) -> list[Task]:
        found = walk(src)
        for rel, reason, detail in found.skipped:
            self.coordinator.skip(self.coordinator.member_name(rel), reason, detail)
        tasks = [self._task(f, scratch, i, deflate) for i, f in enumerate(found.files)]
        self.bytes_in = found.total
        self.use_pool = self.workers > 1 and len(tasks) > 1 and found.total >= POOL_MIN_BYTES
        results = self._map(worker.pass_one, tasks, self.config)
        kept = []
        self.deflated: dict[str, tuple[int, str]] = {}
        for task, state in zip(tasks, results, strict=True):
            self.coordinator.import_member(state)
            if state["refused"] is None:
                kept.append(task)
                if state["deflated"] is not None:
                    self.deflated[task.stored] = state["deflated"]
        return kept

    def _task(self, file: SourceFile, scratch: Path, index: int, deflate: bool) -> Task:
        stored = self.coordinator.member_name(file.rel)
        handoff_path = str(scratch / f"{index:06d}.handoff")
        return Task(
            str(file.path), stored, handoff_path, media_type_for(file.rel), file.size, deflate
        )

    def _map(
        self, func: Any, tasks: list[Any], config: RedactConfig, learned: Any = None, *extra: Any
    ) -> list[Any]:
        if not self.use_pool:
            worker.init_worker(config, learned)
            return [func(task, *(e[i] for e in extra)) for i, task in enumerate(tasks)]
        # Largest files first, so the last one to finish is a small one (both cores busy).
        order = sorted(range(len(tasks)), key=lambda i: -tasks[i].size)
        try:
            with ProcessPoolExecutor(
                self.workers, initializer=worker.init_worker, initargs=(config, learned)
            ) as pool:
                futures = {i: pool.submit(func, tasks[i], *(e[i] for e in extra)) for i in order}
                return [futures[i].result() for i in range(len(tasks))]
        except BrokenProcessPool as exc:
            raise OutputError(
                "a redaction worker process died (out of memory or killed); nothing was written"
            ) from exc

    def learned(self) -> list[Any]:
        network = self.coordinator.network
        return [self.coordinator.export_learned(), network.export_names() if network else []]

    def pass_two(self, tasks: list[Task], targets: list[str]) -> None:
        states = [self.coordinator.member_state(task.stored) for task in tasks]
        results = self._map(worker.pass_two, tasks, self.config, self.learned(), targets, states)
        for state in results:
            self.coordinator.import_member(state)

    def pass_two_deflated(self, tasks: list[Task]) -> list[dict[str, Any]]:
        """Pass two for a bundle: where each final deflated stream is, its size and sha256."""
        targets = [f"{task.handoff}.final.handoff" for task in tasks]
        states = [self.coordinator.member_state(task.stored) for task in tasks]
        firsts = [self.deflated[task.stored] for task in tasks]
        results = self._map(
            worker.pass_two_deflated, tasks, self.config, self.learned(), targets, states, firsts
        )
        for state in results:
            self.coordinator.import_member(state)
        return results

    def to_directory(self, tasks: list[Task], staging: Path) -> None:
        targets = [str(staging / Path(*t.stored.split("/"))) for t in tasks]
        for target in targets:
            if not Path(target).resolve().is_relative_to(staging.resolve()):
                raise InputError("a redacted member name escapes the output directory")
        self.pass_two(tasks, targets)


def redact_to_directory(
    src: Path, dst: Path, config: RedactConfig, *, workers: int | None = None
) -> RedactOutcome:
    src_resolved = src.resolve()
    dst_resolved = dst.resolve()
    if dst_resolved == src_resolved or dst_resolved.is_relative_to(src_resolved):
        raise UsageError("--out must not be inside SRC")
    if dst.exists() and (not dst.is_dir() or any(dst.iterdir())):
        raise UsageError(f"{dst} already exists and is not an empty directory")
    run = TreeRedaction(config, workers=workers)
    parent = dst_resolved.parent
    parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(
        tempfile.mkdtemp(prefix=f".{dst.name}.", suffix=".handoff.tmp-bundler", dir=parent)
    )
    staging = Path(tempfile.mkdtemp(prefix=f".{dst.name}.", suffix=".tmp-bundler", dir=parent))
    try:
        tasks = run.pass_one(src, scratch)
        run.to_directory(tasks, staging)
        report = run.coordinator.report()
        (staging / "redaction-report.json").write_text(
            report.model_dump_json(by_alias=True, indent=2)
        )
        if dst.exists():
            dst.rmdir()
        os.replace(staging, dst)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return RedactOutcome(dst, report, len(tasks), run.bytes_in, run.coordinator.token_map())


class _Prepared:
    """The builder's transform when both passes already ran (in the pool): content as given.

    The report comes from the coordinator, which has merged everything the
    workers learned and recorded; ``redact_text`` (manifest strings) is its too.
    """

    def __init__(self, coordinator: BundleRedactor) -> None:
        self.coordinator = coordinator

    def member_name(self, name: str) -> str:
        return name

    def transform(self, name: str, chunks: Any, *, media_type: str) -> Iterator[bytes]:
        yield from chunks

    def finalize(self, name: str, chunks: Any, *, media_type: str) -> Iterator[bytes]:
        yield from chunks

    def redact_text(self, text: str) -> str:
        return self.coordinator.redact_text(text)

    def report(self) -> RedactionReport:
        return self.coordinator.report()

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
) -> RedactOutcome:
    """Redact into an encrypted bundle through the archive's builder (manifest, report inside)."""
    from ..archive.atomic import check_can_create

    check_can_create(path, overwrite=overwrite)  # before minutes of work, not after
    run = TreeRedaction(config, workers=workers)
    parent = path.resolve().parent
    scratch = Path(
        tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".handoff.tmp-bundler", dir=parent)
    )
    try:
        tasks = run.pass_one(src, scratch, deflate=True)
        _seal(run, tasks, path, config, sealing, overwrite, options)
    except (handoff.HandoffError, DeflateError) as exc:
        raise OutputError(
            "the encrypted hand-off files were damaged on disk; nothing was written"
        ) from exc
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return RedactOutcome(
        path, run.coordinator.report(), len(tasks), run.bytes_in, run.coordinator.token_map()
    )


def _seal(
    run: TreeRedaction,
    tasks: list[Task],
    path: Path,
    config: RedactConfig,
    sealing: Any,
    overwrite: bool,
    options: dict[str, Any] | None,
) -> None:
    """Pass two, then the zip: every member's final deflated stream, only encrypted here."""
    from ..archive import BundleBuilder

    finals = run.pass_two_deflated(tasks)
    with BundleBuilder(
        path, sealing=sealing, transform=_Prepared(run.coordinator), overwrite=overwrite
    ) as bundle:
        for task, final in zip(tasks, finals, strict=True):
            bundle.add_precompressed(
                task.stored,
                partial(handoff.read, Path(final["output"]), config.handoff_key),
                size=final["size"],
                sha256=final["sha256"],
                media_type=task.media_type,
                collector="redact",
            )
        bundle.finalize(command="redact", options=options or {})
