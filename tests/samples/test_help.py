"""Every command's --help lists its exit codes, the same ones the README's command table gives.

The README is the newcomer's front door and ``--help`` is what they type
next: if the two disagree about an exit code, a script written from one of
them breaks. Both are parsed here and compared command by command.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from bundler.cli import COMMANDS, cli

README = Path(__file__).resolve().parents[2] / "README.md"

ANY = {70, 130}
"""A bug (70) or an interrupt (130) can end any command, so every --help lists them too."""

DOCUMENTED = {
    "doctor": {0, 1, 2, 3, 4, 5} | ANY,
    "analyze": {0, 1, 2, 3} | ANY,
    "review": {0, 1, 2} | ANY,
    "redact": {0, 2} | ANY,
    "inspect": {0, 1, 2} | ANY,
    "verify": {0, 1, 2} | ANY,
    "extract": {0, 2} | ANY,
    "keygen": {0, 2} | ANY,
    "serve": {2} | ANY,
    "diff": {0, 1, 2, 3} | ANY,
}
"""What each command really returns."""


def help_text(*args: str) -> str:
    result = CliRunner().invoke(cli, [*args, "--help"], terminal_width=100)
    assert result.exit_code == 0, result.output
    return result.output


def exit_codes_in_help(text: str) -> set[int]:
    """The numbers that start an entry of the help's exit-code paragraph."""
    start = text.index("Exit codes")
    block = text[start:].split("\n\n", 1)[0]
    return {int(n) for n in re.findall(r"(?:^|·|:)\s*(\d{1,3})\b", block, flags=re.MULTILINE)}


def readme_exit_codes() -> dict[str, set[int]]:
    """``bundler CMD`` -> the exit codes in the README's command table (last column)."""
    rows: dict[str, set[int]] = {}
    for line in README.read_text().splitlines():
        match = re.match(r"\|\s*`bundler (\w+)[^`]*`\s*\|.*\|\s*([^|]*)\|\s*$", line)
        if match and match.group(1) in COMMANDS:
            rows[match.group(1)] = {int(n) for n in re.findall(r"\b(\d{1,3})\b", match.group(2))}
    return rows


def test_every_command_is_covered_here() -> None:
    assert set(DOCUMENTED) == set(COMMANDS)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_help_lists_the_commands_exit_codes(command: str) -> None:
    assert exit_codes_in_help(help_text(command)) == DOCUMENTED[command]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_readme_gives_the_same_exit_codes_as_help(command: str) -> None:
    documented = readme_exit_codes()
    assert command in documented, f"README's command table lacks bundler {command}"
    assert documented[command] == exit_codes_in_help(help_text(command))


def test_top_level_help_lists_every_code_and_command() -> None:
    text = help_text()
    assert exit_codes_in_help(text) == {0, 1, 2, 3, 4, 5, 70, 130}
    for command in COMMANDS:
        assert re.search(rf"^\s+{command}\s", text, flags=re.MULTILINE), command
    assert "_BUNDLER_COMPLETE=bash_source bundler" in text


def test_exit_code_parser_reads_both_layouts() -> None:
    inline = "Exit codes: 0 ok · 1 bad ·\n2 usage (e.g. 42 things) · 70 bug.\n\nmore 5"
    table = "Exit codes (first wins):\n  130  interrupted\n  2    usage\n  0    fine\n\nx 9"
    assert exit_codes_in_help(inline) == {0, 1, 2, 70}
    assert exit_codes_in_help(table) == {130, 2, 0}
