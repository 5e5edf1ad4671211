"""A real headless Chromium for the HTML report tests, driven over its DevTools pipe.

One browser process serves every page of a test session (a launch costs
seconds on a loaded 2-core machine; a page, a fraction of one). It talks the
Chrome DevTools Protocol over ``--remote-debugging-pipe`` (file descriptors
3 and 4, NUL-terminated JSON), so no port is opened and no client library is
needed. For each page it reports the DOM, title and visible text, a PNG
screenshot, every network request the page issued (``Network.requestWillBeSent``)
and every console message, log entry and uncaught exception.

Belt and braces for "no network request": the browser's proxy is a loopback
listener that records every connection (:class:`ConnectionRecorder`), with
``--proxy-bypass-list=<-loopback>`` so not even loopback is fetched directly.
Chromium logs console messages to stderr too (``--enable-logging=stderr
--v=0``); :attr:`Browser.stderr_console` greps them.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FLAGS = (
    "--headless",
    "--no-sandbox",  # CI runs as root, where Chromium refuses its sandbox
    "--disable-gpu",
    "--hide-scrollbars",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-sync",
    "--disable-extensions",
    "--disable-domain-reliability",
    "--disable-features=Translate,OptimizationHints,MediaRouter,AutofillServerCommunication",
    "--metrics-recording-only",
    "--enable-logging=stderr",
    "--v=0",
)
TIMEOUT_S = 30.0


class ConnectionRecorder:
    """A loopback TCP listener that records the first line of every connection, then closes it."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.seen: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(1.0)
                try:
                    first = conn.recv(512).split(b"\r\n", 1)[0]
                except OSError:
                    first = b"(nothing sent)"
                self.seen.append(first.decode("latin-1"))

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self.sock.close()


@dataclass
class Page:
    url: str
    title: str
    dom: str
    text: str
    png: bytes
    requests: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)
    broken_words: list[str] = field(default_factory=list)
    """Table cells holding one short word that the layout broke across lines."""


BROKEN_WORDS_JS = """
Array.from(document.querySelectorAll('td')).filter(cell => {
  const text = cell.innerText.trim();
  if (!text || /\\s/.test(text) || text.length > 24) return false;
  const range = document.createRange();
  range.selectNodeContents(cell);
  const lines = new Set(Array.from(range.getClientRects()).map(r => Math.round(r.top)));
  return lines.size > 1;
}).map(cell => cell.innerText.trim())
"""
"""One short word (a status, a verdict, a number) in a table cell is read as one: a column
too narrow broke ``skipped`` into ``skippe`` / ``d``. Long ids and names may wrap."""


class Browser:
    """``with Browser(path) as b: page = b.load(file_url)``."""

    def __init__(self, executable: str, *, width: int = 1280, height: int = 1600) -> None:
        self.executable = executable
        self.width = width
        self.height = height
        self.recorder = ConnectionRecorder()
        self.profile = tempfile.TemporaryDirectory(prefix="bundler-chromium-")
        self._next_id = 0
        self._inbox: queue.Queue[dict[str, Any]] = queue.Queue()
        self._events: list[dict[str, Any]] = []
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed in close())
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def wire_fds() -> None:  # in the child: the pipe protocol wants exactly fds 3 and 4
            os.dup2(to_child_r, 3)
            os.dup2(from_child_w, 4)

        self.proc = subprocess.Popen(
            [
                executable,
                *FLAGS,
                "--remote-debugging-pipe",
                f"--user-data-dir={self.profile.name}",
                f"--proxy-server=http://127.0.0.1:{self.recorder.port}",
                "--proxy-bypass-list=<-loopback>",
                f"--window-size={width},{height}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self._stderr,
            preexec_fn=wire_fds,
            close_fds=False,
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable", session=self.session)
        self.call(
            "Emulation.setDeviceMetricsOverride",
            session=self.session,
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )

    # --- protocol -----------------------------------------------------------------------------

    def _read(self) -> None:
        buffer = b""
        while True:
            try:
                chunk = os.read(self._from_child, 1 << 16)
            except OSError:
                return
            if not chunk:
                return
            buffer += chunk
            while b"\0" in buffer:
                message, buffer = buffer.split(b"\0", 1)
                self._inbox.put(json.loads(message))

    def call(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        self._next_id += 1
        wanted = self._next_id
        message: dict[str, Any] = {"id": wanted, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            reply = self._next(deadline, method)
            if reply.get("id") == wanted:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result
            self._events.append(reply)

    def _next(self, deadline: float, waiting_for: str) -> dict[str, Any]:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"chromium did not answer {waiting_for} in {TIMEOUT_S:.0f}s")
        try:
            return self._inbox.get(timeout=left)
        except queue.Empty:
            raise TimeoutError(f"chromium did not answer {waiting_for}") from None

    def _wait_event(self, method: str) -> None:
        for index, event in enumerate(self._events):
            if event.get("method") == method:
                del self._events[index]
                return
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            event = self._next(deadline, method)
            if event.get("method") == method:
                return
            self._events.append(event)

    def evaluate(self, expression: str) -> Any:
        result = self.call(
            "Runtime.evaluate", session=self.session, expression=expression, returnByValue=True
        )
        return result["result"].get("value")

    # --- pages --------------------------------------------------------------------------------

    def load(self, url: str, *, scale: float = 0.25) -> Page:
        """Navigate, wait for the load event, and collect what the page did.

        The screenshot is of the first screenful, scaled by ``scale`` (small PNGs decode fast).
        """
        self._events.clear()
        self.call("Page.navigate", session=self.session, url=url)
        self._wait_event("Page.loadEventFired")
        title = self.evaluate("document.title")
        dom = self.evaluate("document.documentElement.outerHTML")
        text = self.evaluate("document.body.innerText")
        clip = {"x": 0, "y": 0, "width": self.width, "height": self.height, "scale": scale}
        shot = self.call("Page.captureScreenshot", session=self.session, format="png", clip=clip)
        page = Page(url=url, title=title, dom=dom, text=text, png=_b64(shot["data"]))
        page.broken_words = list(self.evaluate(BROKEN_WORDS_JS) or [])
        for event in self._events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Network.requestWillBeSent":
                page.requests.append(params["request"]["url"])
            elif method == "Runtime.consoleAPICalled":
                page.console.append(f"console.{params.get('type')}: {params.get('args')}")
            elif method == "Runtime.exceptionThrown":
                page.console.append(f"exception: {params.get('exceptionDetails')}")
            elif method == "Log.entryAdded":
                entry = params.get("entry", {})
                page.console.append(f"log.{entry.get('level')}: {entry.get('text')}")
        return page

    def stderr_console(self) -> list[str]:
        """Console lines Chromium logged to stderr (``--enable-logging=stderr``)."""
        self._stderr.seek(0)
        text = self._stderr.read().decode("utf-8", "replace")
        return [line for line in text.splitlines() if ":CONSOLE" in line]

    def close(self) -> None:
        with contextlib.suppress(OSError, RuntimeError, TimeoutError):
            self.call("Browser.close")
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._to_child, self._from_child):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._stderr.close()
        self.recorder.close()
        self.profile.cleanup()

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def dump_dom(executable: str, url: str, proxy_port: int) -> tuple[str, str]:
    """``chromium --headless --dump-dom URL``: (stdout DOM, stderr), through the recording proxy."""
    with tempfile.TemporaryDirectory(prefix="bundler-chromium-") as profile:
        run = subprocess.run(
            [
                executable,
                *FLAGS,
                f"--user-data-dir={profile}",
                f"--proxy-server=http://127.0.0.1:{proxy_port}",
                "--proxy-bypass-list=<-loopback>",
                "--dump-dom",
                url,
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    return run.stdout, run.stderr


def _b64(data: str) -> bytes:
    import base64

    return base64.b64decode(data)


def file_url(path: Path) -> str:
    return path.resolve().as_uri()
