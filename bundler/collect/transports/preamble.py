"""What a host's login shell prints before our command's output: recognised, bounded, dropped.

sshd runs every command through the user's login shell, and that shell reads its rc
files first: a ``.bashrc`` that greets (``echo Welcome``), prints a motd or sets up
a tool writes to the same stdout our command does. So every command line bundler
sends prints a start marker first (:func:`framed`), and everything before the
marker is the shell's preamble: dropped, never evidence, and never held whole (a
hostile or broken rc file may print gigabytes). :class:`Preamble` keeps only the
marker's length of it to find the marker across chunk boundaries, and the last
line's tail to explain a shell that never ran the command (``nologin``).
"""

from __future__ import annotations

START_MARKER = b"bundler-output-starts\n"
"""Printed by the command line before the command runs (see :func:`framed`)."""

KEPT_TAIL = 1024
"""Bytes of the preamble kept to quote its last line when the marker never came."""


def framed(script: str) -> str:
    """``script`` preceded by a line printing :data:`START_MARKER` (POSIX ``sh``)."""
    return f"printf '%s\\n' '{START_MARKER.decode().strip()}'\n{script}"


class Preamble:
    """Feed stdout in any chunking; :meth:`feed` returns what follows the marker.

    Memory is bounded whatever the preamble's size: at most the marker's length
    (to match it across chunks) plus :data:`KEPT_TAIL` bytes (to quote it).
    """

    def __init__(self, marker: bytes = START_MARKER) -> None:
        self.marker = marker
        self.found = False
        self.skipped = 0
        """Bytes of preamble dropped so far."""
        self._held = b""
        self._tail = b""

    def feed(self, data: bytes) -> bytes:
        if self.found:
            return data
        buffer = self._held + data
        at = buffer.find(self.marker)
        if at >= 0:
            self.found = True
            self.skipped += at
            self._remember(buffer[:at])
            self._held = b""
            return buffer[at + len(self.marker) :]
        keep = len(self.marker) - 1
        dropped = buffer[: len(buffer) - keep] if len(buffer) > keep else b""
        self.skipped += len(dropped)
        self._remember(dropped)
        self._held = buffer[len(dropped) :]
        return b""

    def last_line(self) -> str:
        """The preamble's last non-empty line (what a shell that refused us said)."""
        text = (self._tail + self._held).decode("utf-8", "replace")
        lines = [line.strip() for line in text.splitlines()]
        return next((line for line in reversed(lines) if line), "")

    def _remember(self, dropped: bytes) -> None:
        if dropped:
            self._tail = (self._tail + dropped)[-KEPT_TAIL:]
