"""Where bundle passwords come from: an environment variable, a file, a prompt, or nowhere.

A password never comes from a plain argument (it would sit in shell history
and ``ps``), never appears in an error, a log line or the manifest. Sealing
refuses short user-chosen passwords; ``--generate-password`` makes a strong
one and shows it once; ``--recipient`` needs no password at all.

Opening resolves lazily: the reader first looks at the bundle, so the prompt
(or the error when there is no terminal) can say whether a password or an
identity is needed.

How a person is asked is the caller's choice (a :data:`Prompt`): the CLI
passes click's hidden prompt; the default here asks the terminal through
:mod:`getpass`, so the library never needs click.
"""

from __future__ import annotations

import getpass
import os
import secrets
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from schemas import EncryptionInfo

    from .keys import Identity, PublicKey
    from .sealing import Envelope

from ..errors import DecryptionFailed, UsageError
from ..secret_options import OpenSecrets, SealOptions
from .password_comment import PASSWORD_COMMENT
from .secret import Secret

MIN_PASSWORD_CHARS = 12
PASSWORD_ALPHABET = "23456789abcdefghijkmnpqrstuvwxyz"  # noqa: S105 (an alphabet)
"""32 symbols without look-alikes (0/o, 1/l): 5 bits each."""
GENERATED_GROUPS, GROUP_LENGTH = 5, 6
"""30 symbols = 150 bits, shown as five dash-separated groups."""
MAX_PASSWORD_FILE_BYTES = 64 * 1024

Prompt = Callable[[str, bool], str]
"""``prompt(text, confirm)``: ask a person for a hidden value (twice when ``confirm``)."""
Announce = Callable[[str], None]


def generate_password() -> str:
    groups = (
        "".join(secrets.choice(PASSWORD_ALPHABET) for _ in range(GROUP_LENGTH))
        for _ in range(GENERATED_GROUPS)
    )
    return "-".join(groups)


def stdin_is_interactive() -> bool:
    """True when a person can answer a prompt (tests patch this)."""
    return sys.stdin is not None and sys.stdin.isatty()


def terminal_prompt(text: str, confirm: bool) -> str:
    """The default :data:`Prompt`: hidden input from the terminal, asked twice to confirm."""
    value = getpass.getpass(f"{text}: ", stream=sys.stderr)
    if confirm and getpass.getpass("Repeat for confirmation: ", stream=sys.stderr) != value:
        raise UsageError("the two passwords differ")
    return value


def stderr_announce(text: str) -> None:
    """The default :data:`Announce`: one line on stderr (never stdout, which may be piped)."""
    print(text, file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Sealing:
    """How a new bundle is encrypted: its password and, in recipient mode, who can unwrap it."""

    mode: Literal["password", "recipient"]
    password: Secret
    recipients: tuple[PublicKey, ...] = ()

    @classmethod
    def with_password(cls, password: Secret | str | bytes) -> Sealing:
        secret = password if isinstance(password, Secret) else Secret(password)
        return cls("password", secret)

    @classmethod
    def to_recipients(cls, recipients: tuple[PublicKey, ...]) -> Sealing:
        from .sealing import new_archive_password  # public-key code: only when sealing to keys

        return cls("recipient", new_archive_password(), recipients)

    def zip_comment(self) -> bytes:
        if self.mode == "recipient":
            from .sealing import seal

            return seal(self.password, self.recipients)
        return PASSWORD_COMMENT

    def encryption_info(self) -> EncryptionInfo:
        from schemas import EncryptionInfo, RecipientInfo  # pydantic models: only when sealing

        return EncryptionInfo(
            mode=self.mode,
            recipients=[
                RecipientInfo(fingerprint=key.fingerprint, comment=key.comment)
                for key in self.recipients
            ],
        )


def resolve_seal(
    options: SealOptions,
    *,
    environ: Mapping[str, str] | None = None,
    interactive: bool | None = None,
    prompt: Prompt = terminal_prompt,
    announce: Announce = stderr_announce,
) -> Sealing:
    """Turn ``--password-env/--password-file/--generate-password/--recipient`` into a Sealing."""
    if options.recipients:
        from .keys import PublicKey

        keys = tuple(PublicKey.load(path) for path in options.recipients)
        if len({key.raw for key in keys}) != len(keys):
            raise UsageError("the same --recipient key is given twice")
        return Sealing.to_recipients(keys)
    if options.generate_password:
        generated = generate_password()
        announce(f"bundler: bundle password (shown once, stored nowhere): {generated}")
        return Sealing.with_password(generated)
    password = _given_password(options.password_env, options.password_file, environ)
    if password is None:
        if not (stdin_is_interactive() if interactive is None else interactive):
            raise UsageError(
                "no password for the new bundle",
                hint="use --generate-password, --recipient PUB, --password-env VAR "
                "or --password-file FILE",
            )
        password = prompt("New bundle password", True)
    if len(password) < MIN_PASSWORD_CHARS:
        raise UsageError(
            f"the bundle password is too short (at least {MIN_PASSWORD_CHARS} characters)",
            hint="use --generate-password for a strong one, or --recipient PUB",
        )
    return Sealing.with_password(password)


class KeySource(Protocol):
    """Produces a bundle's candidate passwords once the reader has seen whether it is sealed."""

    def passwords_for(self, envelope: Envelope | None) -> list[Secret]:
        """Candidates, best first; the reader keeps the first one that opens the bundle.

        More than one only for an identity: anyone holding the public key can
        add a stanza for it, so a forged stanza must not hide the real one.
        """
        ...


@dataclass(frozen=True)
class PasswordKey:
    password: Secret

    def passwords_for(self, envelope: Envelope | None) -> list[Secret]:
        return [self.password]


@dataclass(frozen=True)
class IdentityKey:
    identity: Identity

    def passwords_for(self, envelope: Envelope | None) -> list[Secret]:
        if envelope is None:
            raise DecryptionFailed(
                "this bundle is password-protected, not sealed to a recipient",
                hint="open it with --password-env VAR or --password-file FILE",
            )
        from .sealing import unseal_all

        return unseal_all(envelope, self.identity)


@dataclass(frozen=True)
class PromptKey:
    """Ask for the password, or explain what is needed when nobody can answer."""

    interactive: bool
    prompt: Prompt = terminal_prompt

    def passwords_for(self, envelope: Envelope | None) -> list[Secret]:
        if envelope is not None:
            raise UsageError(
                "this bundle is sealed to recipients: open it with --identity FILE",
                hint=f"sealed to: {', '.join(envelope.fingerprints[:5])}",
            )
        if not self.interactive:
            raise UsageError(
                "this bundle needs its password",
                hint="use --password-env VAR or --password-file FILE (or run in a terminal)",
            )
        value = self.prompt("Bundle password", False)
        if not value:
            raise UsageError("no password given")
        return [Secret(value)]


def resolve_open(
    secrets_: OpenSecrets,
    *,
    environ: Mapping[str, str] | None = None,
    interactive: bool | None = None,
    prompt: Prompt = terminal_prompt,
) -> KeySource:
    """Turn ``--password-env/--password-file/--identity`` into a :class:`KeySource`."""
    if secrets_.identity is not None:
        from .keys import Identity

        return IdentityKey(Identity.load(secrets_.identity))
    password = _given_password(secrets_.password_env, secrets_.password_file, environ)
    if password is not None:
        return PasswordKey(Secret(password))
    return PromptKey(stdin_is_interactive() if interactive is None else interactive, prompt)


def _given_password(
    env_var: str | None, file: Path | None, environ: Mapping[str, str] | None
) -> str | None:
    if env_var:
        env = os.environ if environ is None else environ
        value = env.get(env_var)
        if value is None:
            raise UsageError(f"environment variable {env_var} is not set")
        if value == "":
            raise UsageError(f"environment variable {env_var} is empty")
        return value
    if file is not None:
        return _password_from_file(file)
    return None


def _password_from_file(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_PASSWORD_FILE_BYTES)
    except OSError as exc:
        raise UsageError(f"cannot read password file {path}: {exc.strerror or exc}") from exc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"password file {path} is not UTF-8 text") from exc
    first = text.splitlines()[0] if text else ""
    if first == "":
        raise UsageError(f"password file {path} is empty (the password is its first line)")
    return first
