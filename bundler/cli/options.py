"""Option groups shared by several commands, declared once.

Every command that *reads* a bundle takes the same opening options
(:func:`open_options`); every command that *writes* one takes the same sealing
options (:func:`seal_options`). Passwords never come from a plain argument:
only from an environment variable, a file, or an interactive prompt.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from ..secret_options import OpenSecrets, SealOptions

__all__ = [
    "OpenSecrets",
    "SealOptions",
    "click_prompt",
    "open_options",
    "redaction_options",
    "seal_options",
]

F = TypeVar("F", bound=Callable[..., Any])


def click_prompt(text: str, confirm: bool) -> str:
    """The archive's :data:`~bundler.archive.passwords.Prompt`, through click (hidden input).

    Commands pass it to the library so a prompt behaves like every other
    click prompt (and ``CliRunner`` can answer it in tests).
    """
    value: str = click.prompt(text, hide_input=True, confirmation_prompt=confirm, err=True)
    return value


def open_options(func: F) -> F:
    """Add --password-env / --password-file / --identity and pass ``secrets: OpenSecrets``."""

    @click.option(
        "--identity",
        "identity",
        type=click.Path(path_type=Path, dir_okay=False),
        help="X25519 identity file (from `bundler keygen`) for recipient-sealed bundles.",
    )
    @click.option(
        "--password-file",
        "password_file",
        type=click.Path(path_type=Path, dir_okay=False),
        help="Read the bundle password from this file (first line).",
    )
    @click.option(
        "--password-env",
        "password_env",
        metavar="VAR",
        help="Read the bundle password from environment variable VAR.",
    )
    def wrapper(
        *args: Any,
        password_env: str | None,
        password_file: Path | None,
        identity: Path | None,
        **kwargs: Any,
    ) -> Any:
        given = [x for x in (password_env, password_file, identity) if x]
        if len(given) > 1:
            raise click.UsageError("use only one of --password-env, --password-file and --identity")
        secrets = OpenSecrets(password_env, password_file, identity)
        return func(*args, secrets=secrets, **kwargs)

    _copy_metadata(wrapper, func)
    return wrapper  # type: ignore[return-value]


def seal_options(func: F) -> F:
    """Add --password-env / --password-file / --generate-password / --recipient."""

    @click.option(
        "--recipient",
        "recipients",
        multiple=True,
        type=click.Path(path_type=Path, dir_okay=False),
        help=(
            "Seal to this public key (NAME.pub from `bundler keygen`); repeatable. "
            "No shared password is needed: the recipient opens it with --identity."
        ),
    )
    @click.option(
        "--generate-password",
        is_flag=True,
        help="Generate a strong random password and print it once (to stderr).",
    )
    @click.option(
        "--password-file",
        "password_file",
        type=click.Path(path_type=Path, dir_okay=False),
        help="Read the bundle password from this file (first line).",
    )
    @click.option(
        "--password-env",
        "password_env",
        metavar="VAR",
        help="Read the bundle password from environment variable VAR.",
    )
    def wrapper(
        *args: Any,
        password_env: str | None,
        password_file: Path | None,
        generate_password: bool,
        recipients: tuple[Path, ...],
        **kwargs: Any,
    ) -> Any:
        modes = [bool(password_env), bool(password_file), generate_password, bool(recipients)]
        if sum(modes) > 1:
            raise click.UsageError(
                "choose one of --password-env, --password-file, --generate-password or --recipient"
            )
        seal = SealOptions(password_env, password_file, generate_password, tuple(recipients))
        return func(*args, seal=seal, **kwargs)

    _copy_metadata(wrapper, func)
    return wrapper  # type: ignore[return-value]


def _copy_metadata(wrapper: Callable[..., Any], func: Callable[..., Any]) -> None:
    """Keep click's accumulated params and the docstring on the wrapper."""
    wrapper.__name__ = func.__name__
    wrapper.__doc__ = func.__doc__
    params = getattr(func, "__click_params__", [])
    wrapper.__click_params__ = params + getattr(wrapper, "__click_params__", [])  # type: ignore[attr-defined]


def redaction_options(func: F) -> F:
    """Add --rules / --keyword / --obfuscate: what to redact beyond the built-in catalog.

    ``bundler redact`` and ``bundler doctor`` take them alike (``rules``,
    ``keywords``, ``obfuscate`` keyword arguments).
    """
    func = click.option(
        "--obfuscate",
        "obfuscate",
        type=click.Choice(["network"]),
        multiple=True,
        help="'network': replace IPs, MACs, host and user names with consistent pseudonyms.",
    )(func)
    func = click.option(
        "--keyword",
        "keywords",
        multiple=True,
        metavar="WORD",
        help="Redact this word everywhere, case-insensitively (repeatable).",
    )(func)
    return click.option(
        "--rules",
        "rules",
        type=click.Path(path_type=Path, dir_okay=False, exists=True),
        help="Custom rule file (YAML or TOML): literals, regexes, key names, file globs, allow.",
    )(func)
