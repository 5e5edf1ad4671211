"""``bundler redact SRC --out DST``: redact a file or a tree into a directory or a bundle.

Exit codes: 0 done · 2 usage error or unreadable input.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from ..errors import UsageError
from ..redaction.handoff import new_key
from ..redaction.mapfile import write_map
from ..redaction.tree import RedactConfig, redact_to_bundle, redact_to_directory
from .options import SealOptions, seal_options
from .secrets_input import map_password


@click.command(
    "redact",
    epilog="\b\nExit codes: 0 redacted (the report lists what, where) · 2 usage error, a bad\n"
    "rule file, unreadable input, or an output that exists or cannot be written.",
)
@click.argument("src", type=click.Path(path_type=Path, exists=True, file_okay=True, dir_okay=True))
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(path_type=Path),
    help="Output directory (same relative paths), or a path ending in .zip for a bundle.",
)
@click.option(
    "--rules",
    "rules",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="Custom rule file (YAML or TOML): literals, regexes, key names, file globs, allow.",
)
@click.option(
    "--keyword",
    "keywords",
    multiple=True,
    metavar="WORD",
    help="Redact this word everywhere, case-insensitively (repeatable).",
)
@click.option(
    "--report",
    "report_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Also write the redaction report here (it is always inside the output).",
)
@click.option(
    "--obfuscate",
    "obfuscate",
    type=click.Choice(["network"]),
    multiple=True,
    help="'network': replace IPs, MACs, host and user names with consistent pseudonyms.",
)
@click.option(
    "--keep-binary",
    is_flag=True,
    help="Keep binary files (unredacted) instead of leaving them out.",
)
@click.option(
    "--map-out",
    "map_out",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write the reversible map (token -> original), encrypted, to this file (keep it private).",
)
@click.option(
    "--map-password-env",
    metavar="VAR",
    help="Password for --map-out from this environment variable.",
)
@click.option(
    "--map-password-file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Password for --map-out from this file (first line).",
)
@click.option(
    "--workers", type=click.IntRange(1, 64), help="Processes for pass one (default: CPU count)."
)
@click.option("--force", is_flag=True, help="Replace an existing output bundle.")
@seal_options
def command(
    src: Path,
    out: Path,
    rules: Path | None,
    keywords: tuple[str, ...],
    report_path: Path | None,
    obfuscate: tuple[str, ...],
    keep_binary: bool,
    map_out: Path | None,
    map_password_env: str | None,
    map_password_file: Path | None,
    workers: int | None,
    force: bool,
    seal: SealOptions,
) -> None:
    """Redact SRC (a file or a directory tree, e.g. an extracted bundle) into --out.

    \b
    bundler redact ./logs --out ./logs-redacted
    bundler redact ./logs --out support.zip --generate-password --obfuscate network
    bundler redact ./extracted --out ./clean --rules acme-rules.yaml --keyword acme-prod

    Symlinks are never followed (they are listed as skipped in the report);
    binary files are left out unless --keep-binary.
    """
    if map_out is not None and map_out.exists():
        raise UsageError(f"map file {map_out} already exists")
    bundle = out.suffix.lower() == ".zip"
    if not bundle and (
        seal.password_env or seal.password_file or seal.generate_password or seal.recipients
    ):
        raise UsageError("sealing options apply to a .zip output only")
    config = RedactConfig(
        key=secrets.token_bytes(32),
        handoff_key=new_key(),
        obfuscate_network="network" in obfuscate,
        keep_binary=keep_binary,
        keywords=tuple(keywords),
        rules_path=str(rules) if rules else None,
        keep_map=map_out is not None,
    )
    map_secret = (
        map_password(map_out, map_password_env, map_password_file, seal) if map_out else None
    )
    if bundle:
        from ..archive import resolve_seal

        sealing = resolve_seal(seal)
        options = {
            "obfuscate": list(obfuscate),
            "keywords": len(keywords),
            "keep_binary": keep_binary,
            "custom_rules": bool(rules),
        }
        with _phases() as progress:
            outcome = redact_to_bundle(
                src,
                out,
                config,
                sealing,
                workers=workers,
                overwrite=force,
                options=options,
                progress=progress,
            )
    else:
        with _phases() as progress:
            outcome = redact_to_directory(src, out, config, workers=workers, progress=progress)
    if report_path is not None:
        report_path.write_text(outcome.report.model_dump_json(by_alias=True, indent=2))
    if map_out is not None and map_secret is not None:
        write_map(map_out, outcome.token_map, map_secret)
    report = outcome.report
    kinds = ", ".join(
        f"{k} {n}" for k, n in sorted(report.by_kind.items(), key=lambda kv: -kv[1])[:8]
    )
    click.echo(
        f"bundler: redacted {outcome.files} file(s), {outcome.bytes_in / 1e6:.1f} MB: "
        f"{report.total} redaction(s){' (' + kinds + ')' if kinds else ''}; "
        f"{len(report.skipped)} skipped -> {outcome.output}",
        err=True,
    )


@contextmanager
def _phases() -> Iterator[Callable[[str], None] | None]:
    """On a terminal, a transient status line with the phase; elsewhere, nothing.

    Pipes, CI logs and scripts keep their one summary line on stderr.
    """
    from rich.console import Console  # not at import time: --help stays fast

    console = Console(stderr=True)
    if not console.is_terminal:
        yield None
        return
    with console.status("bundler: starting", spinner="dots") as status:
        yield lambda text: status.update(f"bundler: {text}")
