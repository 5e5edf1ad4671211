"""The ``bundler`` command line: thin commands over the library.

Each subcommand lives in its own module (``bundler.cli.<name>``) exposing a
click command named ``command``; it is imported only when used, so ``--help``
stays fast and a command's heavy imports never slow the others.

Errors are mapped to exit codes in exactly one place, :meth:`BundlerGroup.invoke`:
a :class:`~bundler.errors.BundlerError` becomes one line on stderr (plus a
hint) and its exit code; anything unexpected becomes a one-line internal error
(exit 70) unless ``--debug`` asks for the traceback. Users never see a
traceback by accident.
"""

from __future__ import annotations

import importlib
import os
import sys
import traceback
from typing import Any

import click

from .. import __version__
from ..errors import BundlerError
from ..exit_codes import ExitCode
from ..interrupts import terminate_as_interrupt
from ..printable import printable

# name -> (module, one-line summary); tests/test_cli.py imports every module listed.
COMMANDS: dict[str, tuple[str, str]] = {
    "doctor": ("bundler.cli.doctor", "Collect evidence from a fleet into an encrypted bundle."),
    "analyze": ("bundler.cli.analyze", "Replay the serviceability ladder on a bundle, offline."),
    "review": ("bundler.cli.review", "Prove a bundle holds no residual secrets (gates uploads)."),
    "redact": ("bundler.cli.redact", "Redact files or a directory into a copy or a bundle."),
    "inspect": ("bundler.cli.inspect", "Show a bundle's manifest, collectors and members."),
    "verify": ("bundler.cli.verify", "Check every checksum and schema in a bundle."),
    "extract": ("bundler.cli.extract", "Safely extract a bundle into a directory."),
    "keygen": ("bundler.cli.keygen", "Create an X25519 identity for recipient-sealed bundles."),
    "diff": ("bundler.cli.diff", "Compare two bundles: what a repair fixed, and is it accepted."),
    "serve": ("bundler.cli.serve", "Answer the product's own CLI from a bundle's captured API."),
}

ENV_DEBUG = "BUNDLER_DEBUG"


def _debug_enabled(ctx: click.Context) -> bool:
    obj = ctx.find_root().obj
    if isinstance(obj, dict) and obj.get("debug"):
        return True
    return os.environ.get(ENV_DEBUG, "") not in ("", "0")


def echo_error(message: str, hint: str | None = None) -> None:
    """Print a one-line error (and an optional hint line) to stderr.

    Errors quote paths and names from bundles and hosts: whitespace runs become
    one space and what is left unprintable is shown escaped (:mod:`bundler.printable`).
    """
    click.echo(f"bundler: error: {printable(' '.join(message.split()))}", err=True)
    if hint:
        click.echo(f"bundler: hint: {printable(' '.join(hint.split()))}", err=True)


class BundlerGroup(click.Group):
    """A click group with lazy subcommands and a single error-to-exit-code mapping."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS) + sorted(set(self.commands) - set(COMMANDS))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.commands:
            return self.commands[cmd_name]
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        module = importlib.import_module(entry[0])
        command: click.Command = module.command
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Summaries come from the table, so --help imports no command module.
        rows = [
            (name, COMMANDS[name][1] if name in COMMANDS else "")
            for name in self.list_commands(ctx)
        ]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            with terminate_as_interrupt():  # SIGTERM stops a command as Ctrl-C does
                return super().invoke(ctx)
        except BundlerError as exc:
            if _debug_enabled(ctx):
                traceback.print_exc()  # the traceback asked for, and the exit code as always
            echo_error(exc.message, exc.hint)
            ctx.exit(int(exc.exit_code))
        except KeyboardInterrupt:
            echo_error("interrupted")
            ctx.exit(int(ExitCode.INTERRUPTED))
        except (click.exceptions.Exit, click.ClickException, click.exceptions.Abort):
            raise
        except Exception as exc:
            if _debug_enabled(ctx):
                traceback.print_exc()
                echo_error(f"internal error ({type(exc).__name__}); this is a bug in bundler")
            else:
                echo_error(
                    f"internal error ({type(exc).__name__}); this is a bug in bundler",
                    "run again with --debug to see the traceback, and report it",
                )
            ctx.exit(int(ExitCode.INTERNAL))


@click.group(
    cls=BundlerGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(__version__, "-V", "--version", prog_name="bundler")
@click.option(
    "--debug",
    is_flag=True,
    help=f"Show the traceback with an error; the exit code stays the same (also: {ENV_DEBUG}=1).",
)
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Support bundles for worker fleets: collect, redact, seal, analyze offline.

    \b
    Customers:        bundler doctor --profile flux --server URL --bundle support.zip
    Support:          bundler analyze support.zip
    Upload pipelines: bundler review support.zip   (exit 0 only when clean)

    \b
    Exit codes: 0 ok · 1 a problem was found (failed layer, failed check,
    residual secret) · 2 usage error or unreadable input · 3 inconclusive ·
    4 nothing collected · 5 partial bundle · 70 internal error · 130 interrupted.
    Each command's --help lists the codes it uses.

    \b
    Shell completion (bash; for zsh or fish use zsh_source or fish_source):
      eval "$(_BUNDLER_COMPLETE=bash_source bundler)"
    """
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    cli.main(args=argv, prog_name="bundler")


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1:])
