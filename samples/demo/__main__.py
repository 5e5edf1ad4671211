"""``python -m samples.demo``: the demo behind ``scripts/demo.sh`` (see the package docstring).

Exit codes: 0 the demo ran to the end (the verdict was shown) · 1 a step
failed, or a process was left behind · 2 neither Flux nor the LyftData
simulator could run here · 130 interrupted (everything started was stopped).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from contextlib import AbstractContextManager
from pathlib import Path

from ..bundler_cli import REPO_ROOT
from . import steps
from .fleets import (
    PRODUCT_NAMES,
    Fleet,
    FleetUnavailable,
    find_flux_install,
    flux_fleet,
    lyftdata_demo_fleet,
)
from .narrate import Narrator
from .processes import describe, interrupt_on_termination, leftovers

DEFAULT_OUT = REPO_ROOT / "demo-output"


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m samples.demo", description=__doc__)
    parser.add_argument(
        "--product",
        choices=("auto", "flux", "lyftdata"),
        default="auto",
        help="auto: Flux, else the LyftData simulator (default); flux: no fallback",
    )
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help=f"where the bundle goes [{DEFAULT_OUT}]"
    )
    parser.add_argument(
        "--workdir",
        type=Path,
        help="where the fleet runs (default: a temporary directory, removed afterwards)",
    )
    return parser.parse_args(argv)


CANDIDATES = {"auto": ("flux", "lyftdata"), "flux": ("flux",), "lyftdata": ("lyftdata",)}


def _open_fleet(say: Narrator, product: str, workdir: Path) -> AbstractContextManager[Fleet]:
    if product == "flux":
        return flux_fleet(say, find_flux_install(), workdir)
    return lyftdata_demo_fleet(say, workdir)


def _collect(
    say: Narrator, choice: str, workdir: Path, out: Path
) -> tuple[str, steps.DemoBundle, list[int]]:
    """Start a fleet (Flux first, unless told otherwise), break it, collect its bundle."""
    candidates = CANDIDATES[choice]
    for product in candidates:
        try:
            with _open_fleet(say, product, workdir) as fleet:
                bundle = steps.collect(say, fleet, out)
                say.step(f"Stop the {PRODUCT_NAMES[product]} fleet")
                return product, bundle, fleet.pids
        except FleetUnavailable as exc:
            if product == candidates[-1]:
                raise
            say.warn(f"Flux is not available here: {exc}. Falling back to the LyftData simulator.")
    raise AssertionError("no candidate fleet")  # pragma: no cover - candidates is never empty


def _run(say: Narrator, args: argparse.Namespace, workdir: Path) -> int:
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    product, bundle, pids = _collect(say, args.product, workdir, out)
    left = leftovers(workdir, pids)
    if left:
        say.error("processes left behind: " + "; ".join(describe(p) for p in left))
        return 1
    say.say(
        f"Every process the demo started is stopped ({len(pids)} checked by id, and none is "
        f"left running in {workdir}). From here on only the bundle is needed."
    )
    report = steps.analyze(say, bundle)
    steps.review(say, bundle)
    steps.closing(say, bundle, report, PRODUCT_NAMES[product])
    say.say(
        "bundler is installed in .venv: `source .venv/bin/activate`, or call .venv/bin/bundler. "
        f"The demo took {say.elapsed()}."
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    interrupt_on_termination()
    say = Narrator()
    own_workdir = args.workdir is None
    workdir = (args.workdir or Path(tempfile.mkdtemp(prefix="bundler-demo-"))).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        return _run(say, args, workdir)
    except FleetUnavailable as exc:
        say.error(f"nothing to demonstrate on: {exc}")
        return 2
    except steps.StepFailed as exc:
        say.error(str(exc))
        return 1
    except KeyboardInterrupt:
        say.error(f"interrupted; every process the demo started was stopped (in {workdir})")
        return 130
    except Exception as exc:  # a lab wait that timed out, an API error: one line, not a trace
        first = str(exc).splitlines()[0] if str(exc) else ""
        say.error(f"the demo failed: {type(exc).__name__}: {first}")
        return 1
    finally:
        if own_workdir:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
