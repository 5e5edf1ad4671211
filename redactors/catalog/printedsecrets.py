"""The output of a command that prints a secret, in a terminal transcript.

Tickets and shell logs hold what someone ran and what came back: ``aws ecr
get-login-password`` prints a registry password, ``vault kv get -field=password`` the field,
``kubectl get secret … | base64 -d`` the decoded value, ``openssl rand -hex 32`` a key about
to be used. The value stands alone on the next line, with no key and often no shape a
format rule knows (an ECR password is base64 of JSON whose keys name no secret). The rule
starts from the command and takes the next non-empty line when it is one word: an error
message (``Unable to locate credentials. …``) has blanks and stays.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..keys import is_placeholder
from ..rules import Hit, Rule, View, line_end_or_hold

AFTER_COMMAND = 2
"""Lines read after the command for its output (a blank line may come first)."""
MIN_VALUE = 6
_PROMPTS = (b"$", b"#", b">", b"%", b"PS ", b"PS>")
_DECODED = re.compile(rb"\|[ \t]*base64[ \t]+(?:-d|--decode|-D)\b")


def _printed(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    data = view.data
    if match.start() and data[match.start() - 1] not in b" \t\n|;&(":
        return  # the command's first word, not the tail of another word
    line_end = line_end_or_hold(view, match.end(), match.start())
    if line_end is None:
        return
    if view.low.startswith(b"kubectl", match.start()) and not _DECODED.search(
        data, match.end(), line_end
    ):
        return  # kubectl get secret: only its value decoded (… | base64 -d) is the secret
    pos = line_end + 1
    for _ in range(AFTER_COMMAND):
        if pos > len(data):
            return
        end = line_end_or_hold(view, pos, match.start())
        if end is None:
            return
        line = data[pos:end].strip()
        if line:
            if line.startswith(_PROMPTS) or len(line) < MIN_VALUE or b" " in line:
                return
            start = data.index(line, pos)
            if not is_placeholder(line):
                yield Hit(start, start + len(line), rule.kind, rule.id)
            return
        pos = end + 1


PRINTED_SECRET = Rule(
    "printed-secret",
    "secret",
    "cli",
    "The one-word output of a command that prints a secret, on the line after it in a"
    " transcript: registry passwords and access tokens (aws ecr get-login-password, gcloud"
    " auth print-access-token, az account get-access-token -o tsv, gh auth token), a secret"
    " store's value (vault kv get -field, aws secretsmanager get-secret-value, gcloud secrets"
    " versions access, az keyvault secret show, op read, pass show, kubectl get secret piped"
    " to base64 -d), generated keys (openssl rand, wg genkey, consul keygen).",
    rb"(?:get-login-password|get-authorization-token|print-access-token|print-identity-token"
    rb"|get-access-token|gh[ \t]+auth[ \t]+token|auth:token|vault[ \t]+print[ \t]+token"
    rb"|vault[ \t]+kv[ \t]+get[ \t]+-field|vault[ \t]+read[ \t]+-field"
    rb"|get-secret-value|get-parameter|secrets[ \t]+versions[ \t]+access"
    rb"|keyvault[ \t]+secret[ \t]+show|op[ \t]+read|pass[ \t]+show|bw[ \t]+get[ \t]+password"
    rb"|find-generic-password|secret-tool[ \t]+lookup|kubectl[ \t]+get[ \t]+secrets?"
    rb"|openssl[ \t]+rand|wg[ \t]+genkey|wg[ \t]+genpsk|consul[ \t]+keygen"
    rb"|nomad[ \t]+operator[ \t]+keygen)(?![a-z])",
    lower=True,
    handler=_printed,
    examples=(
        (
            "$ aws ecr get-login-password --region us-east-1\n"
            "eyJwYXlsb2FkIjoiQVFJQkFIaDhqS3dUeXh6eXpLZjJ3In0=\n",
            "eyJwYXlsb2FkIjoiQVFJQkFIaDhqS3dUeXh6eXpLZjJ3In0=",
        ),
        ("$ vault kv get -field=password secret/etl\nEtl-pass-99x\n", "Etl-pass-99x"),
        (
            "$ kubectl get secret db -o jsonpath='{.data.password}' | base64 -d\nPg-pass-99x\n",
            "Pg-pass-99x",
        ),
        ("# openssl rand -hex 16\n\n9f8e7d6c5b4a39281706f5e4d3c2b1a0\n", "9f8e7d6c5b4a3928"),
    ),
    decoys=(
        "$ aws ecr get-login-password\nUnable to locate credentials. Run aws configure.\n",
        "$ kubectl get secret db -o yaml\napiVersion: v1\n",
        "$ gh auth token\n$ ls\n",
        "vault kv get -field=password secret/etl\n",
    ),
)


def _new_value(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    data = view.data
    end = line_end_or_hold(view, match.end(), match.start())
    if end is None:
        return
    value = data[match.end() : end].strip()
    if value and not is_placeholder(value):
        start = data.index(value, match.end())
        yield Hit(start, start + len(value), rule.kind, rule.id)


ELASTIC_RESET = Rule(
    "elastic-reset-password",
    "password",
    "cli",
    "The password elasticsearch-reset-password prints after resetting a user's: the line"
    " after 'user successfully reset.'.",
    rb"user successfully reset\.[ \t]*\r?\n[ \t]*new value:[ \t]*",
    lower=True,
    handler=_new_value,
    examples=(
        (
            "Password for the [elastic] user successfully reset.\nNew value: Es-new-pass-9x\n",
            "Es-new-pass-9x",
        ),
    ),
    decoys=("Password for the [elastic] user successfully reset.\n",),
)
