"""Plain-words narration of the demo: numbered steps, the commands as a user would type them.

The narration is for someone who has never seen bundler: each step says what
is about to happen and why it matters, then the real tool's own output
follows unaltered.
"""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.text import Text

from ..bundler_cli import REPO_ROOT


def shown_path(path: Path) -> str:
    """``path`` relative to the checkout when inside it (shorter, and what the README uses)."""
    try:
        return str(path.resolve().relative_to(REPO_ROOT))
    except ValueError:
        return str(path)


class Narrator:
    """Prints the story on stdout; the tools' output goes to the same terminal in between."""

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console(highlight=False, soft_wrap=True)
        self.step_number = 0
        self.started = time.monotonic()

    def elapsed(self) -> str:
        seconds = int(time.monotonic() - self.started)
        return f"{seconds // 60}:{seconds % 60:02d}"

    def step(self, title: str) -> None:
        self.step_number += 1
        self.console.print()
        self.console.rule(Text(f"Step {self.step_number}: {title}  [{self.elapsed()}]", "bold"))

    def say(self, text: str) -> None:
        self.console.print(Text(" ".join(text.split())))

    def detail(self, text: str) -> None:
        """A verbatim line (a log line, a path): indented, never re-wrapped."""
        self.console.print(Text(f"    {text}", "dim"), soft_wrap=True)

    def command(self, args: list[str], env: dict[str, str] | None = None) -> None:
        """The command as the user would type it (``bundler ...``), before it runs."""
        prefix = " ".join(f"{k}=..." for k in (env or {}))
        line = " ".join(shlex.quote(a) for a in ["bundler", *args])
        self.console.print(Text(f"$ {prefix + ' ' if prefix else ''}{line}", "bold cyan"))
        self.console.file.flush()
        sys.stdout.flush()

    def warn(self, text: str) -> None:
        self.console.print(Text(" ".join(text.split()), "bold yellow"))

    def error(self, text: str) -> None:
        self.console.print(Text(f"demo: {' '.join(text.split())}", "bold red"))
