"""Where a report goes when ``--output FILE`` is given: published whole, in one rename."""

from __future__ import annotations

from pathlib import Path

from ..archive.atomic import AtomicOutput
from ..errors import OutputError


def write_report(path: Path, text: str) -> None:
    """Publish ``text`` at ``path`` in one rename: the old report or the new one, never half."""
    out = AtomicOutput(path, overwrite=True, mode=0o644)
    try:
        out.file.write(text.encode("utf-8"))
        out.publish()
    except OSError as exc:
        out.discard()
        raise OutputError(f"cannot write {path}: {exc.strerror}") from exc
    except BaseException:
        out.discard()
        raise
