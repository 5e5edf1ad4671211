"""Names of a redaction's outputs: numbered apart when two redacted names meet, escaped
for the report, and refused when they are not UTF-8."""

from __future__ import annotations

from ..archive.names import printable_name


def numbered(stored: str, number: int) -> str:
    """``a/b.log.gz`` as ``a/b~2.log.gz``: the number before the extensions, so the file
    still reads as what it is (a leading dot, ``.env``, is part of the stem)."""
    folder, slash, leaf = stored.rpartition("/")
    dot = 1 if leaf.startswith(".") else 0
    stem, sep, ext = leaf[dot:].partition(".")
    return f"{folder}{slash}{leaf[:dot]}{stem}~{number}{sep}{ext}"


def shown_name(stored: str) -> str:
    """A name as the report lists a file left out: escaped for printing, bytes that are
    not UTF-8 as ``\\udcff`` (JSON cannot hold them)."""
    return printable_name(stored.encode("utf-8", "backslashreplace").decode("utf-8"))


def not_utf8(name: str) -> str | None:
    """A file name with bytes that are not UTF-8 (Python hands them back as lone surrogates)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return "name is not UTF-8"
    return None
