"""``bundler serve`` as a real child process: started, its URL read, stopped with SIGINT.

The child restores the default SIGINT disposition before it runs (a suite
started from a background job inherits "ignore SIGINT", and Python would keep
ignoring it), so sending SIGINT is exactly a user's Ctrl-C.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from bundler.serve import CapturedRoute
from samples.stopping import die_with_parent, stop_child
from schemas import CollectorStatus

START_TIMEOUT_S = 60.0


@dataclass
class Served:
    process: subprocess.Popen[str]
    url: str
    banner: list[str]
    log_path: Path
    lines: queue.Queue[str | None] = field(default_factory=queue.Queue)

    def log(self) -> str:
        """The request log so far (stderr)."""
        return self.log_path.read_text(errors="replace")

    def interrupt(self, timeout: float = 30.0) -> int:
        """Ctrl-C: SIGINT, then the exit code."""
        self.process.send_signal(signal.SIGINT)
        return self.process.wait(timeout=timeout)


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_serve(args: list[str], env: Mapping[str, str], log_path: Path) -> subprocess.Popen[str]:
    with log_path.open("w") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "bundler", "serve", *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            env=dict(env),
            preexec_fn=die_with_parent(then=_default_sigint),
        )


@contextmanager
def serving(args: list[str], env: Mapping[str, str], workdir: Path) -> Iterator[Served]:
    """Run ``bundler serve ARGS`` until its banner names the URL; always stopped afterwards."""
    log_path = workdir / f"serve-{os.getpid()}-{threading.get_ident()}.log"
    process = start_serve(args, env, log_path)
    served = Served(process, "", [], log_path)
    reader = threading.Thread(target=_pump, args=(process, served.lines), daemon=True)
    reader.start()
    try:
        while not served.url:
            line = served.lines.get(timeout=START_TIMEOUT_S)
            if line is None:
                raise AssertionError(f"bundler serve exited early: {served.log()[-2000:]}")
            served.banner.append(line)
            if line.startswith("URL: "):
                served.url = line.removeprefix("URL: ").strip()
        while not served.banner[-1].startswith("Ctrl-C"):
            line = served.lines.get(timeout=START_TIMEOUT_S)
            if line is None:
                break
            served.banner.append(line)
        yield served
    finally:
        stop_child(process)
        if process.stdout is not None:
            process.stdout.close()


def _pump(process: subprocess.Popen[str], lines: queue.Queue[str | None]) -> None:
    assert process.stdout is not None
    for line in process.stdout:
        lines.put(line.rstrip("\n"))
    lines.put(None)


def captured_route(path: str, query: str = "", **kw: object) -> CapturedRoute:
    """A captured 200 JSON route at ``path`` (``kw`` overrides any field), for Replay tests."""
    values: dict[str, object] = {
        "collector": f"http{path.replace('/', '.')}",
        "path": path,
        "query": query,
        "status": 200,
        "content_type": "application/json",
        "member": f"raw/http{path}.json",
        "outcome": CollectorStatus.OK,
        "error": None,
        "exact": True,
    }
    values.update(kw)
    return CapturedRoute(**values)  # type: ignore[arg-type]
