"""Rebuild every committed sample bundle from real runs, and the table that describes them.

One sample per Flux scenario (a real Flux lab with the scenario's fault
injected), one per LyftData scenario (the simulator, its worker hosts served
by real sshd), plus one Flux bundle sealed to the committed sample identity.
Each bundle is collected by the real ``bundler doctor``, must pass ``bundler
verify`` and ``bundler review``, and must reach the verdict its scenario
promises; then ``bundler analyze --format json`` fills the catalog, and the
README table is rendered from the catalog.

Nothing is replaced until every requested sample succeeded: bundles are
built in a staging directory and moved into ``samples/bundles`` at the end,
so a failed run leaves the committed samples and their table consistent.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from . import catalog
from .bundler_cli import analysis_json, run_captured
from .catalog import IDENTITY_PATH, PASSWORD_ENV, SAMPLE_PASSWORD, SampleEntry
from .expectations import flux_problem, lyftdata_problem

SAMPLE_LOG_LINES = 2000
"""Per log, head + tail: the labs' logs are far shorter; this only caps a runaway log."""
SEALED_FLUX_SCENARIO = "hung"
"""The one Flux scenario also sealed to the sample identity (recipient mode)."""
IDENTITY_COMMENT = "PUBLIC TEST KEY for bundler's samples only - never seal real data to it"
ATTEMPTS = 2
"""A live lab on a loaded machine can miss a window once; a second miss is a real problem."""


Done = subprocess.CompletedProcess[str]
Collect = Callable[[Path, list[str], Path], Done]
"""(bundle path, sealing args, work dir) -> the doctor run."""
Judge = Callable[[dict[str, Any]], str | None]
"""What is wrong with an analysis report for a scenario (None: as promised)."""


class SampleError(RuntimeError):
    """A sample could not be produced as its scenario promises (nothing was replaced)."""


@dataclass(frozen=True)
class SampleJob:
    """How to produce one sample: its catalog identity and the run that collects it."""

    product: str
    scenario: str
    shows: str
    opening: str
    collect: Collect
    problem: Judge

    @property
    def file(self) -> str:
        suffix = "-sealed" if self.opening == "identity" else ""
        return f"{self.product}-{self.scenario}{suffix}.zip"

    @property
    def stem(self) -> str:
        return self.file.removesuffix(".zip")


def _seal_args(opening: str) -> list[str]:
    if opening == "identity":
        return ["--recipient", f"{IDENTITY_PATH}.pub"]
    return ["--password-env", PASSWORD_ENV]


def _doctor_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    return {PASSWORD_ENV: SAMPLE_PASSWORD, **(extra or {})}


def flux_jobs() -> list[SampleJob]:
    from .flux_lab import FluxLab
    from .flux_lab.scenarios import SCENARIOS, Scenario

    def collector(item: Scenario) -> Collect:
        def collect(bundle: Path, seal: list[str], workdir: Path) -> Done:
            with FluxLab(item.config, root=workdir / "lab") as lab:
                item.inject(lab)
                return run_captured(
                    "doctor", "--profile", "flux", "--server", lab.url, "--local",
                    "--inventory", str(lab.write_inventory()), "--log-lines",
                    str(SAMPLE_LOG_LINES), "--bundle", str(bundle), *seal, env=_doctor_env(),
                )  # fmt: skip

        return collect

    jobs = []
    for item in SCENARIOS:
        openings = ["password"] + (["identity"] if item.name == SEALED_FLUX_SCENARIO else [])
        for opening in openings:
            judge: Judge = partial(flux_problem, scenario=item)
            jobs.append(SampleJob("flux", item.name, item.title, opening, collector(item), judge))
    return jobs


def lyftdata_jobs() -> list[SampleJob]:
    from .lyftdata_fleet import lyftdata_fleet
    from .lyftdata_sim.loader import load_scenario, scenario_names

    def collector(name: str) -> Collect:
        def collect(bundle: Path, seal: list[str], workdir: Path) -> Done:
            with lyftdata_fleet(name, workdir, hosts=True) as fleet:
                return run_captured(
                    *fleet.doctor_args(), "--log-lines", str(SAMPLE_LOG_LINES),
                    "--bundle", str(bundle), *seal, env=_doctor_env(fleet.env),
                )  # fmt: skip

        return collect

    jobs = []
    for name in scenario_names():
        scenario = load_scenario(name)
        judge: Judge = partial(lyftdata_problem, expect=dict(scenario.expect))
        jobs.append(
            SampleJob("lyftdata", name, scenario.description, "password", collector(name), judge)
        )
    return jobs


def all_jobs() -> list[SampleJob]:
    return flux_jobs() + lyftdata_jobs()


def ensure_identity() -> None:
    """Create the sample identity once (it is committed and never rotated by regeneration)."""
    if not IDENTITY_PATH.exists():
        IDENTITY_PATH.parent.mkdir(parents=True, exist_ok=True)
        done = run_captured("keygen", "--out", str(IDENTITY_PATH), "--comment", IDENTITY_COMMENT)
        if done.returncode != 0:
            raise SampleError(f"bundler keygen failed: {done.stderr.strip()}")
    # A fresh clone checks it out 0644, which bundler (like ssh) refuses for an identity.
    IDENTITY_PATH.chmod(0o600)


def _check(bundle: Path, open_args: list[str]) -> None:
    for command in ("verify", "review"):
        done = run_captured(command, str(bundle), *open_args, env=_doctor_env())
        if done.returncode != 0:
            detail = (done.stdout + done.stderr).strip().splitlines()[-1:] or ["no output"]
            raise SampleError(
                f"bundler {command} {bundle.name}: exit {done.returncode}: {detail[0]}"
            )


def produce(job: SampleJob, staging: Path, say: Callable[[str], None]) -> SampleEntry:
    """Run ``job`` (retrying once) until its bundle verifies, reviews clean and analyzes right."""
    bundle = staging / job.file
    open_args = catalog.open_args(job.opening)
    problem = "not run"
    for attempt in range(1, ATTEMPTS + 1):
        with contextlib.suppress(FileNotFoundError):
            bundle.unlink()
        workdir = Path(tempfile.mkdtemp(prefix=f"bundler-sample-{job.stem}-"))
        try:
            doctor = job.collect(bundle, _seal_args(job.opening), workdir)
        except Exception as exc:  # a lab that failed to start or to inject: retry once
            problem = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
            say(f"  {job.stem}: attempt {attempt} failed: {problem}")
            continue
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        if not bundle.exists():
            problem = f"doctor wrote no bundle (exit {doctor.returncode}): {doctor.stderr[-300:]}"
            say(f"  {job.stem}: attempt {attempt}: {problem}")
            continue
        report = analysis_json(bundle, open_args, env=_doctor_env())
        problem = job.problem(report) or ""
        if not problem:
            _check(bundle, open_args)
            entry = SampleEntry.from_run(
                bundle, product=job.product, scenario=job.scenario, shows=job.shows,
                opening=job.opening, report=report,
            )  # fmt: skip
            layer, code = entry.first_failed_layer or "", entry.code or ""
            say(f"  {job.file}: {entry.verdict} {layer} {code}")
            return entry
        say(f"  {job.stem}: attempt {attempt}: {problem}")
    raise SampleError(f"{job.stem}: {problem}")


def select(jobs: Iterable[SampleJob], only: list[str] | None) -> list[SampleJob]:
    """Jobs whose file stem or product is named in ``only`` (all of them when empty)."""
    jobs = list(jobs)
    if not only:
        return jobs
    known = {j.stem for j in jobs} | {j.product for j in jobs}
    unknown = sorted(set(only) - known)
    if unknown:
        raise SampleError(f"unknown sample {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    return [j for j in jobs if j.stem in only or j.product in only]


def regenerate(
    only: list[str] | None = None, say: Callable[[str], None] = print
) -> list[SampleEntry]:
    """Rebuild the chosen samples (all by default); update the catalog and README table."""
    jobs = select(all_jobs(), only)
    ensure_identity()
    catalog.BUNDLES_DIR.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=catalog.BUNDLES_DIR))
    try:
        fresh = []
        for number, job in enumerate(jobs, start=1):
            say(f"[{number}/{len(jobs)}] {job.product} {job.scenario} ({job.opening})")
            fresh.append(produce(job, staging, say))
        _install(fresh, staging, full=not only)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return fresh


def _install(fresh: list[SampleEntry], staging: Path, *, full: bool) -> None:
    """Move the new bundles into place, then write the catalog and the README table."""
    kept = [] if full or not catalog.CATALOG_PATH.exists() else catalog.load_catalog()
    names = {e.file for e in fresh}
    entries = [e for e in kept if e.file not in names] + fresh
    for entry in fresh:
        os.replace(staging / entry.file, catalog.BUNDLES_DIR / entry.file)
    if full:
        for stale in catalog.BUNDLES_DIR.glob("*.zip"):
            if stale.name not in names:
                stale.unlink()
    catalog.save_catalog(entries)
    readme = catalog.README_PATH.read_text()
    catalog.README_PATH.write_text(catalog.with_table(readme, entries))
