"""The documentation says what the tool does: links, flags and finding codes are checked here.

Users meet bundler through README.md, docs/*.md and each command's ``--help``. These
checks are the cheap, robust part of keeping them honest: a relative link that leads
nowhere, a ``bundler <command> --flag`` that names no option, or a finding code the
catalog does not have fails here instead of in a user's terminal. (Exit codes: the README
table and every ``--help`` are compared in ``tests/samples/test_help.py``.)
"""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from bundler.cli import COMMANDS, cli

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted(
    [
        ROOT / "README.md",
        ROOT / "samples" / "README.md",
        ROOT / "bench" / "README.md",
        *(ROOT / "docs").glob("*.md"),
    ]
)
FENCED = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
INLINE = re.compile(r"`([^`\n]+)`")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _prose(text: str) -> str:
    """The text without code: a ``](x)`` inside code is an example, not a link."""
    return INLINE.sub("", FENCED.sub("", text))


def _anchors(path: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens."""
    headings = re.findall(r"^#{1,6}\s+(.+?)\s*$", FENCED.sub("", path.read_text()), re.M)
    return {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}


def _command(name: str) -> click.Command:
    command = cli.get_command(click.Context(cli), name)
    assert command is not None
    return command


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(doc: Path) -> None:
    broken = []
    for target in LINK.findall(_prose(doc.read_text())):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):
            continue  # https:, mailto: ...
        path, _, anchor = target.partition("#")
        dest = (doc.parent / path).resolve() if path else doc
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and (dest.suffix != ".md" or anchor not in _anchors(dest)):
            broken.append(f"{target}: no heading with that anchor")
    assert not broken, f"{doc.name}: {broken}"


def _snippets(text: str) -> list[str]:
    """Every line of a code block (continuations joined) and every inline code span."""
    lines = [ln for block in FENCED.findall(text) for ln in block.replace("\\\n", " ").splitlines()]
    return lines + INLINE.findall(FENCED.sub("", text))


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_documented_bundler_flag_exists(doc: Path) -> None:
    unknown = []
    for snippet in _snippets(doc.read_text()):
        for name, rest in re.findall(r"\bbundler (\w+)\b([^|#;]*)", snippet):
            if name not in COMMANDS:
                continue  # prose such as "bundler truncated", "bundler reads"
            params = _command(name).params
            options = {opt for p in params for opt in (*p.opts, *p.secondary_opts)}
            for flag in re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", rest):
                if flag not in options | {"-h", "--help"}:
                    unknown.append(f"bundler {name} {flag}")
    assert not unknown, f"{doc.name} names options that do not exist: {unknown}"


FINDING_DOCS = ("README.md", "docs/analyze.md", "docs/diff.md", "docs/flux.md", "docs/serve.md")
"""Pages that name finding codes (not a product's native vocabulary, as the LyftData contract
does, nor system names such as ``O_NOFOLLOW``, as doctor.md does)."""


@pytest.mark.parametrize("doc", FINDING_DOCS)
def test_every_finding_code_a_page_names_is_in_the_catalog(doc: str) -> None:
    catalog = (ROOT / "docs" / "finding-codes.md").read_text()
    known = set(re.findall(r"^\| `([A-Z][A-Z0-9_]+)` \|", catalog, re.M))
    named = set(re.findall(r"`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)`", (ROOT / doc).read_text()))
    settings = {name for name in named if name.startswith(("BUNDLER_", "LYFTDATA_"))}
    settings |= named & {"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"}  # the proxy variables
    assert not named - known - settings, f"{doc} names codes docs/finding-codes.md lacks"
