"""The two fleets the demo can break: a real Flux lab, or the LyftData simulator.

Each is a context manager that starts the fleet, puts it into a real failure
state (narrating what it does), yields what ``bundler doctor`` needs to reach
it, and stops every process on the way out, whatever happened inside.
"""

from __future__ import annotations

import glob
import shutil
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ..flux_lab import FluxInstall, FluxLab, FluxUnavailable, LabConfig, LabError, faults, find_flux
from ..flux_lab.venv import configured_venv
from ..lyftdata_fleet import FleetError, lyftdata_fleet
from ..sshd_hosts import sshd_unavailable_reason
from .narrate import Narrator

HUNG_WORKER = "w2"
LYFTDATA_SCENARIO = "license_expired"


PRODUCT_NAMES = {"flux": "Flux", "lyftdata": "LyftData"}


class FleetUnavailable(RuntimeError):
    """The fleet cannot be installed or started here; the message says why, in one line."""


@dataclass
class Fleet:
    """What the shared doctor step needs from a running fleet."""

    product: str
    doctor_args: list[str]
    env: dict[str, str] = field(default_factory=dict)
    pids: list[int] = field(default_factory=list)
    note: str = ""
    """Said after doctor ran: what to notice in its output."""


def _python_312_present() -> bool:
    candidates = [shutil.which(f"python3.{minor}") for minor in range(12, 16)]
    candidates += glob.glob(str(Path.home() / ".pyenv/versions/3.1[2-9]*/bin/python3"))
    return any(candidates)


def find_flux_install() -> FluxInstall:
    """The Flux venv scripts/setup.sh made, or FleetUnavailable saying why there is none."""
    try:
        return find_flux(create=False)
    except FluxUnavailable as exc:
        if not _python_312_present():
            raise FleetUnavailable("no Python >= 3.12 on this machine, and Flux needs it") from exc
        raise FleetUnavailable(
            f"no Flux venv at {configured_venv()} (scripts/setup.sh installs flux-core there "
            "from PyPI, which needs network access)"
        ) from exc


@contextmanager
def flux_fleet(say: Narrator, install: FluxInstall, workdir: Path) -> Iterator[Fleet]:
    """A Flux server and workers w1, w2; a workflow run; w2 hung until Flux evicts it."""
    say.step("Start a Flux server and two workers")
    say.say(
        f"Flux runs from its own Python 3.12 venv ({install.venv}). The "
        "server listens on 127.0.0.1 on a port the kernel picks; workers w1 (zone=a) and w2 "
        "(zone=b) connect to it and send a heartbeat every 2 seconds."
    )
    root = workdir / "flux-lab"
    shutil.rmtree(root, ignore_errors=True)  # a fresh database and logs, even in a reused workdir
    lab = FluxLab(LabConfig(), root=root, flux=install)
    try:
        try:
            lab.start()
        except LabError as exc:
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise FleetUnavailable(f"the Flux lab did not start: {first}") from exc
        pids = [p.pid for p in [lab.server, *lab.workers.values()] if p is not None]
        say.say(f"Server up at {lab.url}; both workers online.")
        _run_workflow(say, lab)
        _hang_worker(say, lab)
        inventory = lab.write_inventory()
        say.say(
            f"The lab wrote an inventory for doctor ({inventory.name}): the server and the "
            "two worker hosts, with their log files and state directories."
        )
        args = ["doctor", "--profile", "flux", "--server", lab.url, "--local"]
        note = (
            f"One collector is expected to time out: `flux worker status {HUNG_WORKER}` asks the "
            "frozen worker itself, which cannot answer. doctor records that in the bundle "
            "(the analyzer treats it as missing evidence, never as a pass) and carries on."
        )
        yield Fleet("flux", [*args, "--inventory", str(inventory)], pids=pids, note=note)
    finally:
        lab.stop()


def _run_workflow(say: Narrator, lab: FluxLab) -> None:
    say.step("Run a workflow, to see the fleet work")
    run = lab.api.run_to_end("hello_world", "demo")
    state = run.get("state")
    say.say(f"Workflow hello_world finished: {state} (execution {run.get('execution_id')}).")
    if state != "COMPLETED":
        raise RuntimeError(f"the healthy fleet could not run hello_world (state {state})")


def _hang_worker(say: Narrator, lab: FluxLab) -> None:
    say.step(f"Break something real: hang worker {HUNG_WORKER}")
    timings = lab.config.timings
    say.say(
        f"{HUNG_WORKER} gets a job (a 60-second sleeper pinned to it), then is frozen with "
        "SIGSTOP, as a hung VM or a paused container would be: its process exists, its TCP "
        f"connection stays open, but it stops answering. Flux marks it STALE after "
        f"{timings.heartbeat_timeout}s without a heartbeat and evicts it "
        f"{timings.eviction_grace_period}s later, taking its job back. Waiting for that..."
    )
    injected = faults.hang_worker(lab, HUNG_WORKER)
    say.say(f"Done. What the Flux server logged about {HUNG_WORKER}:")
    log = (lab.logs_dir / "server.log").read_text(errors="replace").splitlines()
    words = ("STALE", "evicted", "Unclaimed")
    for line in log:
        if HUNG_WORKER in line and any(w in line for w in words):
            say.detail(line)
    say.say(
        f"The sleeper ({injected.executions[0]}) now waits for a worker that will never come "
        f"back on its own: this is the ticket a customer would open."
    )


@contextmanager
def lyftdata_demo_fleet(say: Narrator, workdir: Path) -> Iterator[Fleet]:
    """The LyftData simulator with an expired license, its worker host over real sshd."""
    reason = sshd_unavailable_reason()
    say.step("Start the LyftData simulator")
    say.say(
        "LyftData is commercial, so a simulator serves its API (a real HTTPS server on "
        f"127.0.0.1) in scenario '{LYFTDATA_SCENARIO}': the license expired two days ago, so "
        "the control plane refuses the external worker's runtime lease. The worker is online, "
        "sends heartbeats, and still cannot run its job."
    )
    if reason:
        say.warn(f"Worker hosts are skipped ({reason}): doctor collects over HTTP only.")
    else:
        say.say("The worker host (state directory, logs, tools) is served by a real sshd.")
    root = workdir / "lyftdata"
    shutil.rmtree(root, ignore_errors=True)
    with ExitStack() as stack:
        try:
            fleet = stack.enter_context(
                lyftdata_fleet(LYFTDATA_SCENARIO, root, hosts=reason is None)
            )
        except (FleetError, RuntimeError, OSError) as exc:
            raise FleetUnavailable(f"the LyftData simulator did not start: {exc}") from exc
        say.say(f"Simulator up at {fleet.url}.")
        yield Fleet("lyftdata", fleet.doctor_args(), env=fleet.env, pids=fleet.pids)
