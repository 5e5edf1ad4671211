"""Which invocations of LyftData's own programs are read-only, for the engine's guard.

The collection engine refuses any program not on its allow-list; a profile
admits its product's CLIs by listing their read-only subcommands. Anything
that writes is refused even inside an allowed subcommand: ``doctor --bundle``
writes a file, ``--reset-state`` rewrites worker state, ``--yes`` skips a
confirmation that exists because the command acts.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...collect.readonly import ProgramRule

WRITING_OPTIONS = frozenset({"--bundle", "--reset-state", "--yes", "--fix", "--force"})


def _only_version(args: list[str]) -> str | None:
    return None if args == ["--version"] else "only `lyftdata-worker --version` is read-only"


def read_only_commands() -> Mapping[str, ProgramRule]:
    """Program name -> the rule its invocations must follow."""
    return {
        "lyftdata-worker": ProgramRule(
            subcommands=((),), forbidden=WRITING_OPTIONS, check=_only_version
        ),
        "lyftdata": ProgramRule(
            subcommands=(
                ("doctor",),
                ("workers", "status"),
                ("workers", "sysinfo"),
                ("workers", "logs"),
                ("workers", "list"),
            ),
            forbidden=WRITING_OPTIONS,
        ),
    }
