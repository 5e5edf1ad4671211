"""Password sources for sealing and opening: env, file, prompt, generated; never leaked."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bundler.archive import PasswordKey, Secret, generate_password, resolve_open, resolve_seal
from bundler.archive.keys import keygen
from bundler.archive.passwords import (
    MIN_PASSWORD_CHARS,
    PASSWORD_ALPHABET,
    IdentityKey,
    PromptKey,
)
from bundler.archive.sealing import Envelope
from bundler.cli.options import OpenSecrets, SealOptions
from bundler.errors import UsageError

GOOD = "a long enough passphrase"


def _no_prompt(text: str, confirm: bool) -> str:
    raise AssertionError("must not prompt")


def test_secret_never_prints_itself() -> None:
    secret = Secret("hunter2hunter2")
    assert "hunter2" not in repr(secret) + str(secret) + f"{secret}" + repr([secret])
    assert secret.reveal() == b"hunter2hunter2"
    with pytest.raises(ValueError, match="empty"):
        Secret("")


def test_generated_passwords_are_strong_and_readable() -> None:
    password = generate_password()
    assert re.fullmatch(r"[a-z2-9]{6}(-[a-z2-9]{6}){4}", password)
    assert set(password.replace("-", "")) <= set(PASSWORD_ALPHABET)
    assert len(PASSWORD_ALPHABET) == 32  # 30 symbols x 5 bits = 150 bits >= 128
    assert len({generate_password() for _ in range(50)}) == 50


def test_seal_from_env() -> None:
    sealing = resolve_seal(SealOptions(password_env="PW"), environ={"PW": GOOD})
    assert sealing.mode == "password"
    assert sealing.password == Secret(GOOD)


@pytest.mark.parametrize(("environ", "message"), [({}, "is not set"), ({"PW": ""}, "is empty")])
def test_env_problems_are_usage_errors(environ: dict[str, str], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        resolve_seal(SealOptions(password_env="PW"), environ=environ)
    with pytest.raises(UsageError, match=message):
        resolve_open(OpenSecrets(password_env="PW"), environ=environ)


def test_seal_from_file_uses_the_first_line(tmp_path: Path) -> None:
    path = tmp_path / "pw"
    path.write_text(GOOD + "\nsecond line\n")
    sealing = resolve_seal(SealOptions(password_file=path))
    assert sealing.password == Secret(GOOD)


def test_file_problems_are_one_line_usage_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot read password file"):
        resolve_seal(SealOptions(password_file=tmp_path / "missing"))
    empty = tmp_path / "empty"
    empty.write_text("\n")
    with pytest.raises(UsageError, match="empty"):
        resolve_open(OpenSecrets(password_file=empty))
    with pytest.raises(UsageError, match="cannot read password file"):
        resolve_open(OpenSecrets(password_file=tmp_path))


def test_short_passwords_are_refused_for_sealing_only() -> None:
    short = "x" * (MIN_PASSWORD_CHARS - 1)
    with pytest.raises(UsageError, match="too short") as info:
        resolve_seal(SealOptions(password_env="PW"), environ={"PW": short})
    assert short not in str(info.value)
    assert short not in (info.value.hint or "")
    key = resolve_open(OpenSecrets(password_env="PW"), environ={"PW": short})
    assert isinstance(key, PasswordKey)


def test_generate_password_announces_it_once() -> None:
    shown: list[str] = []
    sealing = resolve_seal(SealOptions(generate_password=True), announce=shown.append)
    assert len(shown) == 1
    assert sealing.password.reveal().decode() in shown[0]
    assert "shown once" in shown[0]


def test_interactive_sealing_prompts_with_confirmation() -> None:
    asked: list[tuple[str, bool]] = []

    def prompt(text: str, confirm: bool) -> str:
        asked.append((text, confirm))
        return GOOD

    sealing = resolve_seal(SealOptions(), interactive=True, prompt=prompt)
    assert asked == [("New bundle password", True)]
    assert sealing.password == Secret(GOOD)


def test_no_terminal_and_no_source_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="no password") as info:
        resolve_seal(SealOptions(), interactive=False, prompt=_no_prompt)
    assert "--generate-password" in (info.value.hint or "")


def test_recipients_need_no_password(tmp_path: Path) -> None:
    _, _, pub = keygen(tmp_path / "k")
    sealing = resolve_seal(SealOptions(recipients=(pub,)), prompt=_no_prompt)
    assert sealing.mode == "recipient"
    assert len(sealing.recipients) == 1
    with pytest.raises(UsageError, match="twice"):
        resolve_seal(SealOptions(recipients=(pub, pub)))


def test_open_with_identity(tmp_path: Path) -> None:
    keygen(tmp_path / "k")
    assert isinstance(resolve_open(OpenSecrets(identity=tmp_path / "k")), IdentityKey)


def test_open_prompt_only_when_the_bundle_is_password_sealed() -> None:
    key = resolve_open(OpenSecrets(), interactive=True, prompt=lambda text, confirm: GOOD)
    assert isinstance(key, PromptKey)
    assert key.passwords_for(None) == [Secret(GOOD)]
    envelope = Envelope(bundler_envelope=1, scheme="s", recipients=[])
    with pytest.raises(UsageError, match="--identity"):
        key.passwords_for(envelope)


def test_open_without_terminal_explains_the_options() -> None:
    key = resolve_open(OpenSecrets(), interactive=False, prompt=_no_prompt)
    with pytest.raises(UsageError, match="needs its password") as info:
        key.passwords_for(None)
    assert "--password-env" in (info.value.hint or "")
