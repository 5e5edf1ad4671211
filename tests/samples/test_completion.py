"""Shell completion works (click's built-in): the script, and completions through real bash."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.requirements import need, need_executable

BIN = Path(sys.executable).parent
BUNDLER = BIN / "bundler"


def completion_env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", **extra}


@pytest.fixture
def bundler_bin() -> Path:
    need(BUNDLER.exists(), "the bundler console script is not installed in this interpreter's venv")
    return BUNDLER


def complete(words: str, cword: int) -> list[str]:
    env = completion_env(COMP_WORDS=words, COMP_CWORD=str(cword), _BUNDLER_COMPLETE="bash_complete")
    done = subprocess.run(
        [str(BUNDLER)], env=env,
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_script_is_printed(bundler_bin: Path, shell: str) -> None:
    done = subprocess.run(
        [str(bundler_bin)], env=completion_env(_BUNDLER_COMPLETE=f"{shell}_source"),
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "_bundler_completion" in done.stdout
    assert "_BUNDLER_COMPLETE" in done.stdout


def test_command_names_complete(bundler_bin: Path) -> None:
    assert complete("bundler an", 1) == ["plain,analyze"]
    assert set(complete("bundler ", 1)) >= {"plain,doctor", "plain,review", "plain,keygen"}


def test_options_and_choices_complete(bundler_bin: Path) -> None:
    assert complete("bundler doctor --prof", 2) == ["plain,--profile"]
    assert complete("bundler doctor --profile ", 3) == ["plain,flux", "plain,lyftdata"]
    assert complete("bundler analyze x --format ", 4) == [
        "plain,text",
        "plain,json",
        "plain,markdown",
        "plain,html",
    ]


def test_bash_completes_through_the_sourced_script(bundler_bin: Path) -> None:
    """What a user gets after `eval "$(_BUNDLER_COMPLETE=bash_source bundler)"` in bash."""
    bash = need_executable("bash")
    script = (
        'eval "$(_BUNDLER_COMPLETE=bash_source bundler)"\n'
        "complete -p bundler\n"
        "COMP_WORDS=(bundler an); COMP_CWORD=1; _bundler_completion bundler\n"
        'echo "reply: ${COMPREPLY[*]}"\n'
    )
    done = subprocess.run(
        [bash, "--norc", "--noprofile", "-c", script], env=completion_env(),
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "-F _bundler_completion bundler" in done.stdout
    assert "reply: analyze" in done.stdout
