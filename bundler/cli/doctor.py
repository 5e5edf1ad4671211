"""``bundler doctor``: collect evidence over HTTP and SSH, print a live check, write the bundle."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from ..collect.defaults import (
    DEFAULT_API_CONCURRENCY,
    DEFAULT_CONCURRENCY,
    DEFAULT_DEADLINE_S,
    DEFAULT_LOG_BYTES,
    DEFAULT_LOG_LINES,
    DEFAULT_TIMEOUT_S,
)
from ..products import PROFILES
from .options import SealOptions, redaction_options, seal_options

EPILOG = """\b
Exit codes (the first that applies wins):
  130  interrupted (Ctrl-C): what was collected is sealed, marked interrupted
  70   internal error (a bug in bundler: rerun with --debug and report it)
  2    usage or configuration error: nothing was collected
  4    nothing could be collected: no bundle written
  1    a ladder layer failed (verdict blocked)
  5    partial: bundle written, some collectors failed (listed in the summary)
  3    inconclusive: nothing failed, evidence for a layer is missing
  0    healthy; or, without --profile, every host collector succeeded

\b
Host keys are checked against known_hosts: an unknown or changed key is
refused and recorded, and nothing is taken from that host.
--accept-new-host-keys trusts an unknown key once (its fingerprint goes in
the manifest and known_hosts); a changed key is always refused.
"""


def _words(value: object) -> tuple[str, ...]:
    """A repeatable option's values (click gives a tuple of str)."""
    return tuple(str(v) for v in value) if isinstance(value, tuple | list) else ()


def _path(**kwargs: object) -> click.Path:
    return click.Path(path_type=Path, dir_okay=False, **kwargs)  # type: ignore[arg-type]


@click.command("doctor", epilog=EPILOG)
@click.option("--profile", type=click.Choice(sorted(PROFILES)), help="Product profile.")
@click.option("--server", metavar="URL", help="Control-plane URL (default: the profile's).")
@click.option("--token-env", metavar="VAR", help="Read the API token from environment VAR.")
@click.option("--ca-cert", type=_path(exists=True), help="Trust this CA for the server's TLS.")
@click.option("--insecure", is_flag=True, help="Skip TLS verification (recorded; evaluation only).")
@click.option(
    "--ssh", "ssh", multiple=True, metavar="[USER@]HOST[:PORT]", help="SSH host; repeatable."
)
@click.option("--inventory", type=_path(exists=True), help="YAML inventory of hosts, roles, logs.")
@click.option("--local", is_flag=True, help="Collect this machine itself (no SSH).")
@click.option("--ssh-config", type=_path(), help="ssh_config to use [~/.ssh/config].")
@click.option("--known-hosts", type=_path(), help="known_hosts to check [~/.ssh/known_hosts].")
@click.option("--accept-new-host-keys", is_flag=True, help="Trust unknown host keys on first use.")
@click.option("--since", metavar="WHEN", help="Only log records since: 2h, 30m, 1d or an ISO time.")
@click.option("--log-lines", type=int, default=DEFAULT_LOG_LINES, show_default=True,
              help="Lines kept per log (head + tail).")  # fmt: skip
@click.option("--log-bytes", type=int, default=DEFAULT_LOG_BYTES, show_default=True,
              help="Bytes kept per log (head + tail, truncation marked).")  # fmt: skip
@click.option("--concurrency", type=int, default=DEFAULT_CONCURRENCY, show_default=True,
              help="Collectors running at once.")  # fmt: skip
@click.option("--api-concurrency", type=int, default=DEFAULT_API_CONCURRENCY, show_default=True,
              help="Requests in flight against the control plane at once (Retry-After is "
                   "honoured up to 30 s).")  # fmt: skip
@click.option("--timeout", "timeout_s", type=float, default=DEFAULT_TIMEOUT_S, show_default=True,
              help="Seconds per collector.")  # fmt: skip
@click.option("--deadline", "deadline_s", type=float, default=DEFAULT_DEADLINE_S, show_default=True,
              help="Seconds for the whole run; unfinished collectors are recorded.")  # fmt: skip
@click.option("--bundle", type=_path(), help="Write the encrypted bundle here.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON on stdout.")
@redaction_options
@seal_options
def command(seal: SealOptions, as_json: bool, bundle: Path | None, **options: Any) -> None:
    """Collect evidence from a fleet into an encrypted bundle, and check it live.

    Without --bundle nothing is written: the check runs in memory and its
    summary (and, with --json, the result) is printed.

    \b
    bundler doctor --profile flux --server URL --bundle support.zip --generate-password
    bundler doctor --profile lyftdata --inventory fleet.yaml --json
    bundler doctor --local --bundle host.zip --recipient support.pub
    bundler doctor --profile flux --bundle s.zip --generate-password --obfuscate network \\
        --rules acme-rules.yaml --keyword acme-prod
    """
    if bundle is None and (seal.password_env or seal.password_file or seal.generate_password
                           or seal.recipients):  # fmt: skip
        raise click.UsageError("password and --recipient options need --bundle PATH")
    from ..doctor.progress import PlainProgress, RichProgress
    from ..doctor.request import DoctorRequest
    from ..doctor.run import run_doctor
    from ..doctor.summary import render_summary

    request = DoctorRequest(
        bundle=bundle,
        seal=seal,
        ssh=_words(options.pop("ssh")),
        keywords=_words(options.pop("keywords")),
        obfuscate=_words(options.pop("obfuscate")),
        **options,
    )
    from rich.console import Console

    console = Console(stderr=True)
    progress = RichProgress(console) if console.is_terminal else PlainProgress(sys.stderr)
    try:
        outcome = run_doctor(
            request,
            progress=progress,
            warn=lambda m: console.print(m, markup=False, highlight=False, soft_wrap=True),
        )
    finally:
        progress.close()
    render_summary(console, outcome.summary)
    if as_json:
        click.echo(outcome.json_text())
    click.get_current_context().exit(int(outcome.exit_code))
