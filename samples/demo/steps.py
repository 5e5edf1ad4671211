"""The product doing its job, the same for either fleet: doctor, then analyze and review.

Each step runs the real ``bundler`` command line with its output shown as is;
the narration around it says what to look at. The bundle is sealed with a
password generated for this demo and kept (0600) next to the bundle, so the
last step can tell the user exactly how to open it again.
"""

from __future__ import annotations

import contextlib
import secrets
from dataclasses import dataclass
from pathlib import Path

from ..bundler_cli import analysis_json, run_shown
from ..catalog import outcome_of
from .fleets import Fleet
from .narrate import Narrator, shown_path

BUNDLE_NAME = "demo-support.zip"
PASSWORD_NAME = "demo-password"  # noqa: S105 (a file name)

DOCTOR_MEANING = {
    0: "healthy",
    1: "a ladder layer failed (verdict blocked), as expected here",
    3: "inconclusive: evidence for a layer is missing",
    5: "partial: the bundle was written, some collectors failed",
}


class StepFailed(RuntimeError):
    """A demo step did not do what it should (the message says which and why)."""


@dataclass(frozen=True)
class DemoBundle:
    path: Path
    password_file: Path

    @property
    def open_args(self) -> list[str]:
        return ["--password-file", shown_path(self.password_file)]


def new_password(out: Path) -> Path:
    """A fresh random password for this run, in a 0600 file next to the bundle."""
    path = out / PASSWORD_NAME
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    path.touch(mode=0o600)
    path.write_text(secrets.token_urlsafe(24) + "\n")
    return path


def collect(say: Narrator, fleet: Fleet, out: Path) -> DemoBundle:
    say.step("Collect a support bundle: bundler doctor")
    bundle = DemoBundle(out / BUNDLE_NAME, new_password(out))
    if bundle.path.exists():
        bundle.path.unlink()  # the previous demo's bundle (doctor never overwrites one)
    say.say(
        "This is what a customer runs. doctor reads the control plane's API (GET only) and "
        "each host's logs, settings and state, redacts every secret before anything touches "
        "disk, checks the ladder live, and seals everything into an AES-256 zip. The "
        f"password is random, made for this demo, in {shown_path(bundle.password_file)}."
    )
    args = [*fleet.doctor_args, "--bundle", shown_path(bundle.path), *bundle.open_args]
    say.command(args, fleet.env)
    code = run_shown(*args, env=fleet.env)
    if not bundle.path.exists():
        raise StepFailed(f"bundler doctor wrote no bundle (exit {code})")
    say.say(f"doctor exited {code}: {DOCTOR_MEANING.get(code, 'see bundler doctor --help')}.")
    if fleet.note:
        say.say(fleet.note)
    return bundle


def analyze(say: Narrator, bundle: DemoBundle) -> dict[str, object]:
    say.step("Analyze the bundle offline: bundler analyze")
    say.say(
        "This is what a support engineer runs, with nothing but the bundle: the "
        "serviceability ladder (server, heartbeat, authorization, placement, deployment, "
        "requirements, capacity, outcome), stopping at the first failed layer, every "
        "finding citing the bundle member it rests on, then the recovery steps."
    )
    args = ["analyze", shown_path(bundle.path), *bundle.open_args]
    say.command(args)
    code = run_shown(*args)
    if code not in (0, 1, 3):
        raise StepFailed(f"bundler analyze could not read the bundle (exit {code})")
    return analysis_json(bundle.path, bundle.open_args)


def review(say: Narrator, bundle: DemoBundle) -> None:
    say.step("Prove nothing secret is left: bundler review")
    say.say(
        "This is what an upload pipeline runs before accepting a bundle: every detector "
        "again, over every member and member name; exit 0 only when clean."
    )
    args = ["review", shown_path(bundle.path), *bundle.open_args]
    say.command(args)
    code = run_shown(*args)
    if code != 0:
        raise StepFailed(f"bundler review found residue in the demo bundle (exit {code})")


def closing(say: Narrator, bundle: DemoBundle, report: dict[str, object], product: str) -> str:
    """The verdict in one line, and how to open the bundle again; returns the verdict line."""
    found = outcome_of(report)
    verdict = found.verdict.upper()
    if found.first_failed_layer:
        verdict += f" at layer {found.first_failed_layer}"
    if found.code:
        verdict += f" ({found.code})"
    say.step("Done")
    say.say(f"Verdict on the {product} fleet: {verdict}.")
    path, opener = shown_path(bundle.path), " ".join(bundle.open_args)
    say.say(f"The bundle is {path} ({bundle.path.stat().st_size // 1024} KiB). Open it again:")
    for line in (
        f"bundler analyze {path} {opener}",
        f"bundler analyze {path} {opener} --format markdown   # for a ticket",
        f"bundler inspect {path} {opener}                     # what was collected",
        f"bundler extract {path} --to /tmp/demo-bundle {opener}",
    ):
        say.detail(line)
    say.say("More bundles to try, one per scenario: samples/README.md.")
    return verdict
