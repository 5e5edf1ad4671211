"""Where a credential is kept, and where a logon goes, are evidence; the credential is
the secret.

``GOOGLE_APPLICATION_CREDENTIALS=/etc/gcp/key.json`` names the key file a worker uses
(the wrong one is a common cause of a job that cannot authenticate): the path was
replaced, and with it what a support engineer needed. ``gsutil -o
"Credentials:gs_service_key_file=…"`` lost its option name as well (the whole
``option=value`` was read as the value of ``Credentials:``), against the rule that
redaction replaces values and never rewrites keys. An Oracle logon's
``scott/PW@db.example.com`` read as a mailbox, ``PW@db.example.com``: the database host
went with the password.
"""

from __future__ import annotations

import pytest

from tests.support.redaction import pass_one, reviews_clean


@pytest.mark.parametrize(
    "line",
    [
        "GOOGLE_APPLICATION_CREDENTIALS=/etc/gcp/key.json",
        "export GOOGLE_APPLICATION_CREDENTIALS=/var/lib/flux/.config/gcloud/sa-worker.json",
        "credentials: ~/.config/gcloud/application_default_credentials.json",
        "credentials = C:\\keys\\sa.json",
        "AUTH=/etc/nginx/.htpasswd",
        'gsutil -o "Credentials:gs_service_key_file=/etc/gcp/sa.json" ls gs://bucket',
        "-o Credentials:gs_json_host=storage.example.com",
    ],
)
def test_a_path_to_a_credential_file_is_kept_and_reviews_clean(line: str) -> None:
    data = f"{line}\n".encode()
    assert pass_one("worker.env", data) == data
    assert reviews_clean("worker.env", data)


@pytest.mark.parametrize(
    ("line", "secret"),
    [
        (
            'gsutil -o "Credentials:gs_oauth2_refresh_token={s}" ls',
            "1//0gWq8kTz3LmNpXr5Vb7Yc9Ad2Fh4Jk6",
        ),
        ("-o Credentials:aws_secret_access_key={s}", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq81Tk"),
        ("credentials: {s}", "/aB3+xK9zQ/mW7pR2tY=="),  # generated, though it starts with /
        ("secret_key=/{s}", "x8Kd/9slQ+aB3zT"),
        ("GOOGLE_APPLICATION_CREDENTIALS={s}", "eyJ0eXBlIjoic2VydmljZV9hY2NvdW50In0"),
    ],
)
def test_a_secret_beside_them_is_still_replaced_and_the_key_kept(line: str, secret: str) -> None:
    data = f"{line.format(s=secret)}\n".encode()
    out = pass_one("worker.env", data)
    assert secret.encode() not in out
    key_part = line.split("{s}")[0].rstrip("/")
    assert out.startswith(key_part.encode()), out
    assert not reviews_clean("worker.env", data)
    assert reviews_clean("worker.env", out)


@pytest.mark.parametrize(
    ("line", "host"),
    [
        ("url=jdbc:oracle:thin:scott/{s}@db1.example.com:1521:ORCL", "@db1.example.com:1521:ORCL"),
        ("jdbc:oracle:thin:scott/{s}@db1.example.com:1521/ORCL", "@db1.example.com:1521/ORCL"),
        ("sqlplus -s scott/{s}@db1.example.com/ORCL @report.sql", "@db1.example.com/ORCL"),
        ("expdp userid=system/{s}@prod.example.com schemas=hr", "@prod.example.com schemas=hr"),
    ],
)
@pytest.mark.parametrize("secret", ["Tiger-pw9", "Tiger!pw9"])
def test_an_oracle_logon_keeps_its_database_host(line: str, host: str, secret: str) -> None:
    data = f"{line.format(s=secret)}\n".encode()
    out = pass_one("etl.log", data)
    assert secret.encode() not in out
    assert b"pw9" not in out
    assert host.encode() in out
    assert b"[REDACTED:password:" in out
    assert b"[REDACTED:email:" not in out
    assert reviews_clean("etl.log", out)


def test_a_mailbox_elsewhere_is_still_one() -> None:
    out = pass_one("notes.txt", b"escalate to ops/alice@example.com\n")
    assert b"alice@example.com" not in out
    assert b"[REDACTED:email:" in out


@pytest.mark.parametrize(
    "line",
    [
        "api_key_last4=9f3c card_last4=4242",
        "token_suffix=x9Qz api_key_masked=sk-****abcd",
        "password_preview=hu**** default_pass_scheme = SHA512-CRYPT",
    ],
)
def test_what_a_key_shows_of_itself_is_kept(line: str) -> None:
    """The last four characters a console shows, a masked preview: how a support engineer
    tells which key a worker holds without the key."""
    data = f"{line}\n".encode()
    assert pass_one("worker.log", data) == data
    assert reviews_clean("worker.log", data)


def test_go_test_verdicts_keep_the_names_of_the_tests() -> None:
    """``go test -v`` in a job's log: ``--- PASS: TestLogin (0.01s)`` read as the key
    ``PASS`` lost which tests passed. A ``PASS:`` key anywhere else still holds a password."""
    data = (
        b"=== RUN   TestLogin\n--- PASS: TestLogin (0.01s)\n"
        b"    --- PASS: TestAuth/valid_token (0.00s)\n--- FAIL: TestLogout (0.20s)\nPASS\n"
    )
    assert pass_one("job.log", data) == data
    assert reviews_clean("job.log", data)
    out = pass_one("job.env", b"PASS: Gh8-s3cret-x\n")
    assert b"Gh8-s3cret-x" not in out


@pytest.mark.parametrize(
    "line",
    [
        "ERROR invalid token: Signature has expired",
        "jwt.exceptions: Invalid token: Signature verification failed",
        "401 Invalid API key: Missing",
    ],
)
def test_an_error_about_a_token_keeps_its_words(line: str) -> None:
    """PyJWT's and API gateways' errors: the word after ``invalid token:`` is the error's, and
    a generated token is never a plain word. A token there still goes, and a password word
    after ``wrong password:`` too (it may be the password tried)."""
    data = f"{line}\n".encode()
    assert pass_one("api.log", data) == data
    assert reviews_clean("api.log", data)
    assert b"Zq81xLmN0pQ" not in pass_one("api.log", b"invalid token: Zq81xLmN0pQ\n")
    assert b"hunter" not in pass_one("api.log", b"wrong password: hunter\n")


@pytest.mark.parametrize(
    "line",
    [
        "token: expired at 2026-12-01T10:00:00Z",
        "password: not set",
        "api_key: not set",
        "Refresh token: rotated (old revoked)",
        "token: [hidden]",
        "SaslAuthenticationException: Authentication failed: Invalid username or password",
    ],
)
def test_a_statement_about_a_secret_is_kept(line: str) -> None:
    """What a log says of a secret (expired, not set, rotated, hidden) opens with a word no
    secret opens with; and a Java exception's class is no key, whatever words it holds."""
    data = f"{line}\n".encode()
    assert pass_one("worker.log", data) == data
    assert reviews_clean("worker.log", data)


@pytest.mark.parametrize(
    ("line", "secret"),
    [
        ("password: Not4You!", "Not4You!"),
        ("token: expired2024-Zq8x", "expired2024-Zq8x"),
        ("password: not-a-real-pw", "not-a-real-pw"),
    ],
)
def test_a_secret_that_starts_like_a_state_still_goes(line: str, secret: str) -> None:
    assert secret.encode() not in pass_one("worker.log", f"{line}\n".encode())
