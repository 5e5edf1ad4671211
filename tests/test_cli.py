"""The CLI shell: help, version, and the single error-to-exit-code mapping."""

from __future__ import annotations

import importlib
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from bundler import __version__
from bundler.cli import COMMANDS, BundlerGroup, cli
from bundler.errors import HostileArchive, NothingCollected


def test_help_lists_exit_codes_and_user_entry_points() -> None:
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    assert "Exit codes" in result.output
    assert "bundler analyze" in result.output


def test_version() -> None:
    result = CliRunner().invoke(cli, ["--version"])
    assert result.exit_code == 0
    assert __version__ in result.output


def test_unknown_command_is_a_usage_error() -> None:
    result = CliRunner().invoke(cli, ["no-such-command"])
    assert result.exit_code == 2


def test_python_dash_m_runs_the_same_cli() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "bundler", "--version"], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0
    assert __version__ in proc.stdout


def _group_with(command: click.Command) -> click.Group:
    group = BundlerGroup(name="t", commands={command.name or "x": command})
    return group


@pytest.mark.parametrize(
    ("error", "code"),
    [(HostileArchive("member '../x' escapes the bundle"), 2), (NothingCollected("nothing"), 4)],
)
def test_bundler_errors_become_one_line_and_their_exit_code(error: Exception, code: int) -> None:
    @click.command("boom")
    def boom() -> None:
        raise error

    result = CliRunner().invoke(_group_with(boom), ["boom"])
    assert result.exit_code == code
    lines = [line for line in result.output.splitlines() if line]
    assert lines == [f"bundler: error: {error}"]
    assert "Traceback" not in result.output


def test_unexpected_exceptions_never_show_a_traceback() -> None:
    @click.command("boom")
    def boom() -> None:
        raise RuntimeError("secret-ish detail that must not be printed")

    result = CliRunner().invoke(_group_with(boom), ["boom"])
    assert result.exit_code == 70
    assert "Traceback" not in result.output
    assert "secret-ish" not in result.output
    assert "--debug" in result.output


@pytest.mark.parametrize(
    ("error", "code"),
    [(HostileArchive("member '../x' escapes the bundle"), 2), (RuntimeError("boom"), 70)],
)
def test_debug_shows_the_traceback_and_keeps_the_exit_code(error: Exception, code: int) -> None:
    """With ``BUNDLER_DEBUG=1`` the traceback is shown; the exit code was Python's own (1,
    "a layer failed" to analyze) instead of the error's."""

    @click.command("boom")
    def boom() -> None:
        raise error

    result = CliRunner().invoke(_group_with(boom), ["boom"], env={"BUNDLER_DEBUG": "1"})
    assert result.exit_code == code
    assert "Traceback" in result.output
    assert "bundler: error:" in result.output


def test_every_registered_command_has_a_summary() -> None:
    assert all(summary.endswith(".") for _, summary in COMMANDS.values())


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_registered_command_module_exists_and_exposes_its_command(name: str) -> None:
    """The table is the whole registry: a listed command with no module is a bug, not hidden."""
    module = importlib.import_module(COMMANDS[name][0])
    assert isinstance(module.command, click.Command)
    assert module.command.name == name
