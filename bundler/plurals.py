"""A count and its noun as a reader writes them: ``1 worker``, ``2 workers``, never ``worker(s)``.

Every command's text (analyze and diff reports, findings, review, redact, doctor's
progress, inspect's collector notes) counts things; "1 worker(s)" reads as a form, and a
first-time reader trips on it. One helper, so an irregular plural (``1 was`` / ``2 were``,
``1 GPU`` / ``2 GPUs``) is spelled once where it is used, never by a copy of this rule.
"""

from __future__ import annotations


def plural(count: int, singular: str, many: str | None = None) -> str:
    """``singular`` for a count of one, else ``many`` (``singular + "s"`` unless given):
    ``plural(len(workers), "is", "are")``."""
    return singular if count == 1 else (many if many is not None else singular + "s")


def counted(count: int, singular: str, many: str | None = None) -> str:
    """``1 worker``, ``3 workers``, ``0 workers``: the count, then its noun in agreement."""
    return f"{count} {plural(count, singular, many)}"
