"""Start the LyftData simulator as a real process for a test, and always stop it.

::

    with running_simulator("healthy", tmp_path) as sim:
        httpx.get(sim.url + "/api/workers", headers=sim.headers(), verify=sim.verify)

The simulator binds an ephemeral port on 127.0.0.1 and prints its URL first;
with ``hosts=True`` it prepares the scenario's worker hosts under
``tmp_path/hosts`` (see ``samples/lyftdata_sim/hostprep.py``).
"""

from __future__ import annotations

import json
import ssl
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from samples.stopping import die_with_parent, stop_child

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "sim-token"
START_TIMEOUT_S = 30.0


@dataclass
class RunningSim:
    url: str
    token: str
    ca_file: Path | None
    hosts_dir: Path
    process: subprocess.Popen[str]
    hosts: list[dict[str, str]] = field(default_factory=list)

    @property
    def verify(self) -> ssl.SSLContext | bool:
        """Trust the simulator's CA (httpx's ``verify``)."""
        return ssl.create_default_context(cafile=str(self.ca_file)) if self.ca_file else True

    def headers(self, token: str | None = None) -> dict[str, str]:
        return {"Authorization": f"Bearer {token or self.token}"}

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        kwargs.setdefault("headers", self.headers())
        return httpx.get(self.url + path, verify=self.verify, timeout=10, **kwargs)

    def requests(self) -> list[dict[str, Any]]:
        """Every request the simulator saw (method, path, status)."""
        response = httpx.get(self.url + "/_sim/requests", verify=self.verify, timeout=10)
        response.raise_for_status()
        return list(response.json())


def _read_line(process: subprocess.Popen[str], timeout: float) -> str:
    box: list[str] = []
    reader = threading.Thread(target=lambda: box.append(process.stdout.readline()), daemon=True)  # type: ignore[union-attr]
    reader.start()
    reader.join(timeout)
    if not box or not box[0]:
        raise RuntimeError("the LyftData simulator did not print its URL")
    return box[0].strip()


@contextmanager
def running_simulator(
    scenario: str, workdir: Path, *, token: str = TOKEN, hosts: bool = True, port: int = 0
) -> Iterator[RunningSim]:
    """A simulator on a free port, or on ``port`` (taken back at once from an earlier one).

    A fixed port gives two simulators run one after the other the same URL:
    one server before and after a repair, as ``bundler diff`` expects.
    """
    hosts_dir = workdir / "hosts"
    argv = [
        sys.executable,
        "-m",
        "samples.lyftdata_sim",
        "--scenario",
        scenario,
        "--port",
        str(port),
        "--token",
        token,
    ]
    if port:
        argv.append("--reuse-address")
    if hosts:
        argv += ["--hosts-dir", str(hosts_dir)]
    else:
        argv += ["--tls-dir", str(workdir / "tls")]
    process = subprocess.Popen(
        argv,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=die_with_parent(),
    )
    try:
        try:
            url = _read_line(process, START_TIMEOUT_S)
        except RuntimeError:
            process.kill()
            _, err = process.communicate(timeout=10)
            raise RuntimeError(f"simulator failed to start: {err.strip()[-500:]}") from None
        ca_file = None
        if url.startswith("https:"):
            ca_file = Path(_read_line(process, START_TIMEOUT_S).removeprefix("ca_file="))
        listed = hosts_dir / "hosts.json"
        prepared = json.loads(listed.read_text())["hosts"] if hosts and listed.exists() else []
        yield RunningSim(url, token, ca_file, hosts_dir, process, prepared)
    finally:
        stop_child(process, grace_s=10)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
