"""``bundler serve BUNDLE``: the product's own CLI answered from a bundle (read-only, in memory)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click

from ..analyze.opening import open_for_analysis
from ..errors import UsageError
from ..exit_codes import ExitCode
from ..plurals import counted
from ..printable import printable
from ..serve import is_loopback, start_server
from ..serve.loading import LoadedReplay, load_replay
from ..timetext import utc
from .options import OpenSecrets, open_options

NETWORK_WARNING = (
    "WARNING: serving on {host}, which is not a loopback address: anyone who can reach it "
    "reads the bundle's (redacted) contents without the password."
)


@click.command("serve")
@click.argument("bundle", type=click.Path(path_type=Path))
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on. A non-loopback one also needs --allow-network.",
)
@click.option(
    "--port", type=click.IntRange(0, 65535), default=0, show_default=True, help="0 = a free port."
)
@click.option(
    "--allow-network",
    is_flag=True,
    help="Allow a --host other than loopback (the bundle becomes readable on the network).",
)
@open_options
def command(bundle: Path, host: str, port: int, allow_network: bool, secrets: OpenSecrets) -> None:
    """Serve the control-plane API captured in BUNDLE, read-only, for the product's own CLI.

    Every request doctor made answers with the captured status, content type
    and (redacted) body, matched by path and query. A route that was not
    captured answers 404 (header X-Bundler-Replay: not-captured); routes
    doctor refuses to call (e.g. Flux's /workers/{name}/connect) and every
    method but GET answer 405. The bundle is decrypted in memory; nothing is
    written to disk. Each request is logged on stderr. Stop with Ctrl-C
    (or SIGTERM).

    \b
    Exit codes: 130 stopped with Ctrl-C or SIGTERM (the normal end) ·
    2 unreadable bundle, a bundle without captured API state, or usage error
    (e.g. a non-loopback --host without --allow-network) · 70 internal error.
    """
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]  # a URL's IPv6 form: checked and bound as the bare address
    if not is_loopback(host):
        if not allow_network:
            raise UsageError(
                f"--host {host} is not a loopback address",
                hint="add --allow-network to serve the bundle's contents on the network",
            )
        click.echo(NETWORK_WARNING.format(host=host), err=True)
    with open_for_analysis(bundle, secrets) as opened:
        loaded = load_replay(opened, str(bundle))
    server = start_server(loaded.replay, host, port, sys.stderr)
    # SIGTERM reaches here as KeyboardInterrupt (the CLI's terminate_as_interrupt), which
    # socketserver does not swallow as a failed request, wherever in a request it lands.
    try:
        _banner(bundle, loaded, server.url)
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        served = sum(server.counts.values())
        missed = server.counts.get("not-captured", 0)
        server.write_log(
            f"bundler serve: stopped after {counted(served, 'request')}, {missed} not captured"
        )
        click.get_current_context().exit(int(ExitCode.INTERRUPTED))
    finally:
        server.server_close()


def _banner(bundle: Path, loaded: LoadedReplay, url: str) -> None:
    """What is served and the exact commands to try (stdout, flushed: scripts read the URL)."""
    manifest = loaded.manifest
    product = loaded.profile.title if loaded.profile is not None else (manifest.profile or "?")
    server = manifest.target.server_url or "an unrecorded server"
    answered = [r for r in loaded.routes if r.status is not None]
    status_only = sum(1 for r in answered if r.member is None)
    routes = counted(len(answered), "captured route") + (
        f" ({status_only} with a status and no body)" if status_only else ""
    )
    # The bundle's own words (server URL, product, worker names in the commands) are shown
    # through printable: an ESC sequence in a recorded URL must not act on the terminal.
    click.echo(printable(f"Serving {product} API captured in {bundle} (read-only)"))
    click.echo(printable(f"  from {server} at {utc(manifest.created_at)}"))
    click.echo(f"  {routes}; everything else answers 404 not-captured")
    click.echo(f"URL: {url}")
    for problem in loaded.problems:
        click.echo(printable(f"  warning: {problem}"), err=True)
    if loaded.reconstructed:
        click.echo(
            "  note: this bundle predates recorded requests; paths and statuses were "
            "rebuilt from the profile's plan",
            err=True,
        )
    click.echo("Try:")
    for line in _commands(loaded, url):
        click.echo(printable(f"  {line}"))
    click.echo("Ctrl-C to stop.")
    sys.stdout.flush()


def _commands(loaded: LoadedReplay, url: str) -> list[str]:
    """Commands that get a captured answer: routes with a body first, then status-only ones.

    A bundle whose every request was refused (401 with a rejected token) still
    answers those statuses, and they are what the engineer wants to see.
    """
    answered = [r for r in loaded.routes if r.status is not None]
    answered.sort(key=lambda r: r.member is None)  # stable: manifest order within each group
    captured = [(r.path, r.query) for r in answered]
    suggest = getattr(loaded.profile, "replay_commands", None)
    if callable(suggest):
        lines: list[str] = suggest(url, captured)
        return lines
    return [
        f"curl -s {shlex.quote(url + path + ('?' + q if q else ''))}" for path, q in captured[:4]
    ]
