"""Hypothesis properties of redaction: fixed point, consistent tokens, no leaks, no lost cuts."""

from __future__ import annotations

import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redactors import BUILTIN_RULES, BundleRedactor, Policy, is_placeholder
from redactors.keys import looks_secret
from redactors.tokens import TOKEN_RE
from tests.support.redaction import run

SAFE_TEXT = st.text(
    alphabet=st.sampled_from(list(string.ascii_lowercase + " .,:-_/\n\t0123456789")), max_size=300
)
PASSWORDS = st.text(
    alphabet=string.ascii_letters + string.digits + "!#%^*()-_", min_size=8, max_size=24
).filter(
    # "null", "undefined", "********" mean "no value"; digit-only values are not propagated
    # to other text (they would hit ids and timestamps), so they are not planted twice here.
    lambda s: not is_placeholder(s.encode()) and not s.isdigit()
)
TOKENS = st.text(alphabet=string.ascii_letters + string.digits, min_size=36, max_size=36).map(
    lambda s: "ghp_" + s
)
PLANTERS = [
    lambda v: f"password={v}\n",
    lambda v: f'{{"client_secret": "{v}"}}\n',
    lambda v: f"postgres://app:{v}@db:5432/x\n",
    lambda v: f"--token {v}\n",
    lambda v: f"Authorization: Bearer {v}\n",
]
COMMON = settings(
    max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


@COMMON
@given(SAFE_TEXT, PASSWORDS, st.integers(0, len(PLANTERS) - 1), SAFE_TEXT)
def test_planted_secrets_never_leak(before: str, secret: str, planter: int, after: str) -> None:
    text = before + "\n" + PLANTERS[planter](secret) + after
    outputs, _, _ = run({"f.log": text})
    assert secret.encode() not in outputs["f.log"]


@COMMON
@given(SAFE_TEXT, TOKENS, SAFE_TEXT)
def test_known_format_tokens_never_leak(before: str, token: str, after: str) -> None:
    outputs, _, _ = run({"f.log": f"{before} {token} {after}"})
    assert token.encode() not in outputs["f.log"]


@COMMON
@given(SAFE_TEXT, PASSWORDS, SAFE_TEXT)
def test_redacting_twice_changes_nothing(before: str, secret: str, after: str) -> None:
    once, _, _ = run(
        {"f.log": f"{before}\npassword={secret}\n{after}", "g.json": f'{{"token": "{secret}x"}}'}
    )
    twice, _, _ = run(once)
    assert twice == once


SECRET_LIKE = PASSWORDS.filter(lambda s: looks_secret(s.encode()))
"""Values literal propagation hunts down everywhere (a plain word is redacted only where a
rule finds it: see test_learned_words_are_not_propagated)."""


@COMMON
@given(
    SECRET_LIKE,
    st.sampled_from(["password={v}\n", "secret: {v}\n", '{{"pw": "{v}"}}', "redis://:{v}@h\n"]),
)
def test_the_same_value_gets_the_same_token_in_every_file(secret: str, template: str) -> None:
    files = {
        "a.conf": f"db_password={secret}\n",
        "b.log": template.format(v=secret),
        "c.txt": f"used {secret} here\n",
    }
    outputs, _, _ = run(files)
    tokens = {TOKEN_RE.search(data).group(2) for data in outputs.values()}  # type: ignore[union-attr]
    assert len(tokens) == 1
    assert all(secret.encode() not in data for data in outputs.values())


@settings(max_examples=40, deadline=None, derandomize=True)
@given(PASSWORDS, st.integers(1, 300), st.integers(200, 1200))
def test_a_secret_anywhere_around_a_cut_is_caught(secret: str, offset: int, chunk: int) -> None:
    filler = "".join(f"row {i} ok\n" for i in range(400))
    data = (filler[: 4096 - offset] + f"\napi_key={secret}\n" + filler).encode()
    redactor = BundleRedactor(Policy(chunk_size=4096, overlap=512), key=b"k" * 32)
    pieces = [data[i : i + chunk] for i in range(0, len(data), chunk)]
    out = b"".join(redactor.transform("x.log", pieces, media_type="text/plain"))
    assert secret.encode() not in out


CATALOG_TEXTS = sorted(
    {text for rule in BUILTIN_RULES for text, _ in rule.examples}
    | {text for rule in BUILTIN_RULES for text in rule.decoys}
)
LINE_NOISE = st.text(
    alphabet=st.sampled_from(
        list(string.ascii_letters + string.digits + " \t=:\"'{}[]<>-_/.@\n\r")
    ),
    max_size=80,
)


def test_every_catalog_text_keeps_its_line_count() -> None:
    """Each example and decoy of every rule, alone and as a whole file, keeps its lines."""
    files = {f"t{i}.txt": text + "\n" for i, text in enumerate(CATALOG_TEXTS)}
    files["all.log"] = "\n".join(CATALOG_TEXTS) + "\n"
    outputs, _, _ = run(files)
    changed = {
        name: (files[name].count("\n"), outputs[name].count(b"\n"))
        for name in files
        if outputs[name].count(b"\n") != files[name].count("\n")
    }
    assert changed == {}


@COMMON
@given(
    st.lists(st.one_of(st.sampled_from(CATALOG_TEXTS), LINE_NOISE), min_size=1, max_size=12),
    st.sampled_from(["\n", "\r\n", " ", "", "\n\n"]),
    st.sampled_from(["x.log", "x.json", "x.yaml", "x.env"]),
)
def test_line_count_in_is_line_count_out(parts: list[str], joiner: str, name: str) -> None:
    text = joiner.join(parts)
    outputs, _, _ = run({name: text})
    assert outputs[name].count(b"\n") == text.encode().count(b"\n")
