"""Commands whose argument is a secret being stored or made: the value goes, the command stays.

Shell history, CI logs and runbooks pasted into a ticket hold the commands that put a
secret somewhere: ``az keyvault secret set --value X``, ``aws ssm put-parameter --value X``,
``aws secretsmanager create-secret --secret-string X``, ``gh secret set NAME --body X``,
``kubectl create secret generic NAME --from-literal=KEY=X`` (every literal of such a
Secret is its data, whatever its key is called), and PowerShell's ``ConvertTo-SecureString
"X" -AsPlainText``. The flag that carries the value (``--value``, ``--body``) names no
secret, so the key rules never took it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..rules import Hit, Rule, View
from .shellwords import Word, is_flag, is_reference, line_end, words

_VALUE_FLAGS: tuple[tuple[bytes, frozenset[bytes]], ...] = (
    (b"keyvault secret set", frozenset({b"--value"})),
    (b"secret set", frozenset({b"--body", b"-b"})),
    (b"ssm put-parameter", frozenset({b"--value"})),
    (b"secretsmanager create-secret", frozenset({b"--secret-string"})),
    (b"secretsmanager put-secret-value", frozenset({b"--secret-string"})),
    (b"secretsmanager update-secret", frozenset({b"--secret-string"})),
)
"""Each command (as its words are spelled after the tool) and the flags whose value is the
secret. ``keyvault secret set`` holds ``secret set`` too: the index reports both, and each
phrase reads only its own flags."""
_LITERAL = b"--from-literal"


def _value_of(data: bytes, args: list[Word], index: int) -> Word | None:
    """The value of the flag ``args[index]``: attached after ``=`` or the next word."""
    flag = args[index]
    text = flag.text(data)
    if b"=" in text:
        cut = flag.start + text.index(b"=") + 1
        value = next(words(data, cut, flag.end), None)
        return value if value is not None and value.start == cut else None
    if index + 1 < len(args) and not is_flag(data, args[index + 1]):
        return args[index + 1]
    return None


def _hit(data: bytes, word: Word, rule: Rule, skip: int = 0) -> Iterable[Hit]:
    start = word.value_start + skip
    value = data[start : word.value_end]
    if value and not is_reference(value, word.quote):
        yield Hit(start, word.value_end, rule.kind, rule.id)


def _store_command(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    data = view.data
    low = view.low
    end = line_end(view, match.end(), match.start())
    if end is None:
        return
    args = list(words(data, match.end(), end))
    phrase = low[match.start() : match.end()]
    if phrase.startswith(b"create secret"):  # kubectl create secret generic NAME
        for index, arg in enumerate(args):
            text = arg.text(data)
            if text == _LITERAL or text.startswith(_LITERAL + b"="):
                value = _value_of(data, args, index)
                if value is None:
                    continue
                pair = data[value.value_start : value.value_end]
                if b"=" in pair:  # KEY=VALUE: the value
                    yield from _hit(data, value, rule, pair.index(b"=") + 1)
        return
    flags = next((f for p, f in _VALUE_FLAGS if phrase == p), None)
    if flags is None:
        return
    for index, arg in enumerate(args):
        if arg.text(data).split(b"=", 1)[0].lower() in flags:
            value = _value_of(data, args, index)
            if value is not None:
                yield from _hit(data, value, rule)


def _securestring(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``ConvertTo-SecureString [-String] "X" -AsPlainText [-Force]``: X (without
    ``-AsPlainText`` the argument is an encrypted standard string, not the secret)."""
    data = view.data
    end = line_end(view, match.end(), match.start())
    if end is None:
        return
    args = list(words(data, match.end(), end))
    if not any(a.text(data).lower() == b"-asplaintext" for a in args):
        return
    index = 0
    while index < len(args):
        text = args[index].text(data).lower()
        if text == b"-string":
            index += 1
            break
        if not is_flag(data, args[index]):
            break
        index += 1
    if index < len(args) and not is_flag(data, args[index]):
        yield from _hit(data, args[index], rule)


SECRET_STORE_COMMAND = Rule(
    "secret-store-command",
    "secret",
    "cli",
    "The value given to a command that stores it as a secret (the flag az keyvault secret"
    " set, gh secret set, aws ssm put-parameter and aws secretsmanager take it with, each"
    " literal of kubectl create secret generic).",
    rb"(?:keyvault secret set|secret set|ssm put-parameter|secretsmanager"
    rb" (?:create-secret|put-secret-value|update-secret)|create secret generic)(?=[ \t])",
    lower=True,
    handler=_store_command,
    examples=(
        ("az keyvault secret set --vault-name v --name db --value Kv-s3cret-9", "Kv-s3cret-9"),
        ("gh secret set DB_PASSWORD --body 'Gh s3cret 9' --repo o/r", "Gh s3cret 9"),
        ("gh secret set NPM -b Gh-s3cret-9", "Gh-s3cret-9"),
        (
            "aws ssm put-parameter --name /db/pw --value=Ssm-s3cret-9 --type SecureString",
            "Ssm-s3cret-9",
        ),
        (
            """aws secretsmanager create-secret --name db --secret-string '{"pw":"Sm-s3cret-9"}'""",
            '{"pw":"Sm-s3cret-9"}',
        ),
        ("kubectl create secret generic db --from-literal=username=Kc-s3cret-9", "Kc-s3cret-9"),
        ("kubectl create secret generic db --from-literal 'dsn=Kc s3cret 9'", "Kc s3cret 9"),
    ),
    decoys=(
        "gh secret set DB_PASSWORD < pw.txt",
        "gh secret set DB_PASSWORD --body $DB_PASSWORD",
        "az keyvault secret set --vault-name v --name db --file pw.txt",
        "kubectl create secret generic db --from-file=./pw.txt",
        "the secret set is empty",
    ),
)

SECURESTRING = Rule(
    "powershell-securestring",
    "password",
    "cli",
    'The plain text given to PowerShell\'s ConvertTo-SecureString "..." -AsPlainText.',
    rb"convertto-securestring(?=[ \t])",
    lower=True,
    handler=_securestring,
    examples=(
        ('$pw = ConvertTo-SecureString "Ps-s3cret-9" -AsPlainText -Force', "Ps-s3cret-9"),
        ("ConvertTo-SecureString -String 'Ps s3cret 9' -AsPlainText -Force", "Ps s3cret 9"),
        ("ConvertTo-SecureString -AsPlainText -Force -String Ps-s3cret-9", "Ps-s3cret-9"),
    ),
    decoys=(
        "$pw = ConvertTo-SecureString $env:DB_PASSWORD -AsPlainText -Force",
        "$pw = ConvertTo-SecureString $encrypted",
        "ConvertTo-SecureString -String '01000000d08c9ddf0115d1118c7a00c04fc297eb'",
    ),
)
