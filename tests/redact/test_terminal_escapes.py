"""Terminal escapes around a secret: the value goes, the colour stays.

Before: ``password=\\x1b[31mhunter2\\x1b[0m`` lost its escapes into the token (the value ran
to the end of the line), ``\\x1b[31mghp_…`` took the escape's ``31m`` for a word glued to
the token and left a broken ``\\x1b[`` behind, ``\\x1b[1;31m`` cut a value at its ``;``, and
a whole-line value found in the text without its escapes swallowed the reset between its
words. An escape is how a terminal showed the text (evidence, as ``bundler analyze`` reads
coloured logs): every one must be there after redaction, exactly as it came.
"""

from __future__ import annotations

import re

import pytest

from bundler.source import MemorySource
from redactors.review import review_source
from tests.support.redaction import layers, redacted_lines_kept

E = "\x1b"
TERMINAL_ESCAPE = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")
GHP = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
HF = "hf_" + "AbCdEfGhIjAbCdEfGhIjAbCdEfGhIjKlMn"
COLOURED: list[tuple[str, str, str]] = [
    # (line, the secret, what the line must start with after redaction)
    (f"password={E}[31mHunter2-Ansi1{E}[0m", "Hunter2-Ansi1",
     f"password={E}[31m[REDACTED:password:"),
    (f"export PASSWORD={E}[1;31mHunter2-Ansi2{E}[m", "Hunter2-Ansi2",
     f"export PASSWORD={E}[1;31m[REDACTED:password:"),
    (f"{E}[1mtoken:{E}[0m {GHP}", GHP, f"{E}[1mtoken:{E}[0m [REDACTED:github-token:"),
    (f"{E}[1mpassword:{E}[0m Hunter2-Ansi3", "Hunter2-Ansi3", f"{E}[1mpassword:{E}[0m [REDACTED:"),
    (f"{E}[1mpassword:{E}[0m{E}[31mHunter2-Ansi4{E}[0m", "Hunter2-Ansi4",
     f"{E}[1mpassword:{E}[0m{E}[31m[REDACTED:password:"),
    (f'{{"password": "{E}[31mHunter2-Ansi5{E}[0m"}}', "Hunter2-Ansi5",
     f'{{"password": "{E}[31m[REDACTED:password:'),
    (f"password: {E}[31mHunter2-Ansi6{E}[39;49m rest", "Hunter2-Ansi6",
     f"password: {E}[31m[REDACTED:password:"),
    (f"got {E}[31m{GHP}{E}[0m ok", GHP, f"got {E}[31m[REDACTED:github-token:"),
    (f"got {E}[1;33mAKIAQWERTYUIOPASDF23{E}[0m ok", "AKIAQWERTYUIOPASDF23",
     f"got {E}[1;33m[REDACTED:aws-access-key-id:"),
    (f"got {E}[31m{HF}{E}[0m ok", HF, f"got {E}[31m[REDACTED:huggingface-token:"),
    (f"Authorization: {E}[33mBearer Zq8rT5vWKx9wAbCdEf12{E}[0m", "Zq8rT5vWKx9wAbCdEf12",
     f"Authorization: {E}[33mBearer [REDACTED:bearer-token:"),
    (f"password = {E}[1mcorrect horse battery staple{E}[0m", "correct horse battery staple",
     f"password = {E}[1m[REDACTED:password:"),
    (f"{E}[33mpassword = correct horse battery stapled{E}[0m  {E}[0m",
     "correct horse battery stapled", f"{E}[33mpassword = [REDACTED:password:"),
]  # fmt: skip


@pytest.mark.parametrize(("line", "secret", "expected"), COLOURED)
def test_the_value_goes_and_every_escape_stays(line: str, secret: str, expected: str) -> None:
    output = redacted_lines_kept({"app.log": line + "\n"})["app.log"]
    assert output.startswith(expected.encode()), output
    assert not any(secret.encode() in layer for layer in layers(output)), output
    escapes = TERMINAL_ESCAPE.findall(line.encode())
    assert TERMINAL_ESCAPE.findall(output) == escapes, output


@pytest.mark.parametrize(("line", "secret", "expected"), COLOURED)
def test_review_finds_the_coloured_value_and_passes_the_output(
    line: str, secret: str, expected: str
) -> None:
    assert review_source(MemorySource({"app.log": (line + "\n").encode()})).findings
    output = redacted_lines_kept({"app.log": line + "\n"})
    assert review_source(MemorySource(output)).findings == []


@pytest.mark.parametrize(
    "line",
    [
        f"{E}[32mINFO{E}[0m connected to db01 in 12ms",
        f"password={E}[31m{E}[0m",  # a coloured nothing: no value
        f"{E}[1mhost{E}[0m=db01 {E}[1mport{E}[0m=5432",
        f"{E}[33mWARN{E}[0m password policy: {E}[1mstrict{E}[0m",
    ],
)
def test_coloured_text_without_a_secret_is_kept(line: str) -> None:
    text = line + "\n"
    assert redacted_lines_kept({"app.log": text})["app.log"] == text.encode()


def test_a_coloured_whole_line_value_is_the_same_secret_as_the_plain_one() -> None:
    """A whole-line value (``password = correct horse battery staple``) in colour took the
    closing reset into the value: the reset was gone from the evidence, and the token differed
    from the plain line's, so one password read as two."""
    plain = "password = correct horse battery staple\n"
    coloured = f"password = {E}[1mcorrect horse battery staple{E}[0m\n"
    output = redacted_lines_kept({"a.log": plain, "b.log": coloured})
    token = re.compile(rb"\[REDACTED:[a-z-]+:[0-9a-f]{8}\]")
    assert token.findall(output["a.log"]) == token.findall(output["b.log"])
    assert output["b.log"].endswith(f"{E}[0m\n".encode())
