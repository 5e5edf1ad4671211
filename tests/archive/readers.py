"""Run every reading command on one file and collect what a user would see.

``verify``, ``inspect``, ``analyze``, ``review``, ``extract``, ``diff`` (the
file against itself) and ``serve`` are run in-process through the real CLI
(``CliRunner``), with the bundle password in the environment. ``serve`` never
listens here: reaching ``start_server`` means it accepted the file, which is
reported as exit 0. Each outcome keeps the exit code and both streams, so a
test can assert the code, that the problem is named, that nothing is a
traceback, and (for ``extract``) that nothing was written outside its target.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from unittest.mock import patch

from click.testing import CliRunner

from bundler.cli import cli
from tests.support.archive import PASSWORD

READERS = ("verify", "inspect", "analyze", "review", "extract", "diff", "serve")
SECRET = b"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ9ab3cd7X\n"
"""A plaintext secret an attacker (or a careless tool) leaves outside the members."""


@dataclass(frozen=True)
class Outcome:
    reader: str
    code: int
    stdout: str
    stderr: str

    @property
    def text(self) -> str:
        return self.stdout + self.stderr

    def integrity(self) -> str | None:
        """``analyze --format json``'s integrity status (None when it did not get that far)."""
        if self.reader != "analyze" or self.code == 2:
            return None
        status: str = json.loads(self.stdout)["bundle"]["integrity"]["status"]
        return status


def run_reader(
    reader: str, path: Path, work: Path, *, password: str = PASSWORD, identity: Path | None = None
) -> Outcome:
    unlock = ["--identity", str(identity)] if identity else ["--password-env", "BUNDLE_PW"]
    argv = [reader, str(path), *unlock]
    if reader == "analyze":
        argv += ["--format", "json"]
    if reader == "extract":
        argv += ["--to", str(work / "extracted")]
    if reader == "diff":
        argv = ["diff", str(path), str(path), *unlock]
    with patch("bundler.cli.serve.start_server", side_effect=_Served):
        result = CliRunner().invoke(cli, argv, env={"BUNDLE_PW": password, "BUNDLER_DEBUG": ""})
    code = 0 if isinstance(result.exception, _Served) else result.exit_code
    return Outcome(reader, code, result.stdout, result.stderr)


class _Served(Exception):
    """``serve`` got as far as listening: it accepted the file (exit 0 for the caller)."""


def run_all(
    path: Path, work: Path, *, password: str = PASSWORD, identity: Path | None = None
) -> dict[str, Outcome]:
    """Every reader on ``path``; checks what holds for any input, whatever the verdict.

    No traceback and no internal error (exit 70); errors are one line (plus
    an optional hint line); ``extract`` either succeeded or left nothing.
    """
    work.mkdir(parents=True, exist_ok=True)
    before = {p for p in path.parent.rglob("*")}
    outcomes = {}
    for reader in READERS:
        outcome = run_reader(reader, path, work, password=password, identity=identity)
        assert outcome.code != 70, (reader, outcome.text)
        assert "Traceback" not in outcome.text, (reader, outcome.text)
        errors = [line for line in outcome.stderr.splitlines() if line.startswith("bundler: ")]
        if outcome.code == 2:
            assert errors, (reader, outcome.stderr)
            assert errors[0].startswith("bundler: error: "), (reader, outcome.stderr)
            assert len(errors) <= 2, (reader, outcome.stderr)  # the error and its hint
        outcomes[reader] = outcome
    extracted = work / "extracted"
    if outcomes["extract"].code != 0:
        assert not extracted.exists() or not any(extracted.iterdir())
    after = {p for p in path.parent.rglob("*")}
    written = {p for p in after - before if extracted not in (p, *p.parents)}
    assert written <= {work}, sorted(map(str, written))
    return outcomes
