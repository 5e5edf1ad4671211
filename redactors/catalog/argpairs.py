"""Secrets given as ``KEY VALUE`` argument pairs: ``rclone config create|update|password``.

``rclone config create REMOTE s3 access_key_id AKIA… secret_access_key X`` names each
secret by the word before it, parted by a blank: no ``=`` or ``:`` a key/value rule could
stand on, and no flag. The rule reads the pairs after the remote's name (and, for
``create``, its type) and takes the value of every key named like a secret
(:func:`~redactors.keys.secret_kind`; a bare ``key``, Azure Blob's account key, when it is
a generated one). ``KEY=VALUE`` arguments are the key/value rules'.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..keys import BARE_KEY_NAMES, generated_secret, secret_kind
from ..rules import Hit, Rule, View
from .shellwords import Word, command_words, is_flag, is_reference

__all__ = ["RCLONE_CONFIG"]

_SUBCOMMANDS = {b"create": 2, b"update": 1, b"password": 1}
"""``rclone config`` subcommands that take pairs, and how many names come before them."""
_VALUED_FLAGS = frozenset({b"--config", b"--state", b"--result", b"--log-file", b"--log-level"})
"""rclone flags that take the next word as their value (not a key of the pairs)."""


def _arguments(data: bytes, args: list[Word]) -> list[Word] | None:
    """The ``KEY VALUE`` words after ``config <subcommand> NAME [TYPE]``, flags left out."""
    plain: list[Word] = []
    skip = False
    for word in args:
        text = word.value(data)
        if skip:
            skip = False
        elif is_flag(data, word):
            skip = text in _VALUED_FLAGS
        else:
            plain.append(word)
    if len(plain) < 2 or plain[0].value(data).lower() != b"config":
        return None
    names = _SUBCOMMANDS.get(plain[1].value(data).lower())
    return None if names is None else plain[2 + names :]


def _rclone_config(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    args = command_words(view, match)
    if args is None:
        return
    data = view.data
    pairs = _arguments(data, args)
    if pairs is None:
        return
    index = 0
    while index + 1 < len(pairs):
        key = pairs[index].value(data)
        if b"=" in key:  # KEY=VALUE: one word, the key/value rules' to judge
            index += 1
            continue
        value = pairs[index + 1]
        text = value.value(data)
        name = key.decode("latin-1")
        kind = secret_kind(name)
        if kind is None and name.lower() in BARE_KEY_NAMES and generated_secret(text):
            kind = "secret-key"
        if kind is not None and text and not is_reference(text, value.quote):
            yield Hit(value.value_start, value.value_end, kind, rule.id)
        index += 2


RCLONE_CONFIG = Rule(
    "rclone-config-pairs",
    "secret",
    "cli",
    "`rclone config create|update|password REMOTE [TYPE] KEY VALUE ...`: the values of"
    " secret-named keys (secret_access_key, pass, client_secret, token...).",
    rb"rclone(?:\.exe)?[ \t]",
    lower=True,
    handler=_rclone_config,
    examples=(
        (
            "rclone config create remote s3 provider AWS access_key_id AKID"
            " secret_access_key RcloneS3cr3t",
            "RcloneS3cr3t",
        ),
        ("rclone config update box pass 'two words' --obscure", "two words"),
        ("rclone --config /etc/rc.conf config password sftp1 pass sftphorse", "sftphorse"),
    ),
    decoys=(
        "rclone config create remote s3 provider AWS access_key_id AKID",
        "rclone config update box pass $BOX_PASS",
        "rclone copy secret_access_key/ dst:",
        "rclone config show remote",
    ),
)
