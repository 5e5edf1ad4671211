"""Mail and file-transfer credentials in the transcripts clients print in debug mode.

Each of these reached the bundle before, and ``review`` passed it: nothing in them names
the secret with a key (``AUTH PLAIN`` carries it in base64, ``AUTH LOGIN`` sends it as
the line after a challenge, IMAP's ``LOGIN`` and FTP's ``PASS`` as bare arguments).
"""

from __future__ import annotations

import base64

import pytest

from tests.support.redaction import gone_and_reviewed, pass_one

PLAIN = base64.b64encode(b"\0alerts@example.com\0Smtp-Pl41n-pw").decode()
LOGIN_USER = base64.b64encode(b"alerts@example.com").decode()
LOGIN_PASSWORD = base64.b64encode(b"Smtp-L0gin-pw").decode()

CURL_SMTP = f"""\
*   Trying 10.0.0.25:587...
* Connected to mail.example.com (10.0.0.25) port 587
< 220 mail.example.com ESMTP Postfix
> EHLO worker-3
< 250-mail.example.com
< 250-AUTH PLAIN LOGIN
< 250 8BITMIME
> AUTH PLAIN {PLAIN}
< 235 2.7.0 Authentication successful
> MAIL FROM:<alerts@example.com>
< 250 2.1.0 Ok
"""

SWAKS_LOGIN = f"""\
=== Trying mail.example.com:587...
<-  220 mail.example.com ESMTP
 -> EHLO worker-3
<-  250-STARTTLS
 -> STARTTLS
<-  220 2.0.0 Ready to start TLS
=== TLS started with cipher TLSv1.3:TLS_AES_256_GCM_SHA384:256
 ~> EHLO worker-3
<~  250-AUTH LOGIN PLAIN
 ~> AUTH LOGIN
<~  334 VXNlcm5hbWU6
 ~> {LOGIN_USER}
<~  334 UGFzc3dvcmQ6
 ~> {LOGIN_PASSWORD}
<~  235 2.7.0 Authentication successful
"""

SWAKS_PLAIN = f"""\
 ~> AUTH PLAIN
<~  334
 ~> {PLAIN}
<~  235 2.7.0 Authentication successful
"""

SMTPLIB_DEBUG = f"""\
send: 'ehlo worker-3\\r\\n'
reply: b'250-AUTH PLAIN LOGIN\\r\\n'
send: 'AUTH PLAIN {PLAIN}\\r\\n'
reply: b'235 2.7.0 Authentication successful\\r\\n'
"""

IMAP_SESSION = """\
* OK [CAPABILITY IMAP4rev1 LITERAL+ SASL-IR LOGIN-REFERRALS ID ENABLE IDLE AUTH=PLAIN] ready
a001 LOGIN reports@example.com "Imap pw with spaces"
a001 OK [CAPABILITY IMAP4rev1] Logged in
a002 SELECT INBOX
"""

FTP_CURL = """\
< 220 (vsFTPd 3.0.3)
> USER ingest
< 331 Please specify the password.
> PASS Ftp-s3cret-81
< 230 Login successful.
> PWD
"""

POP3_SESSION = """\
+OK POP3 server ready
USER reports
+OK
PASS Pop3-s3cret-22
+OK Logged in.
"""

CASES = {
    "curl-smtp.log": (CURL_SMTP, [PLAIN]),
    "swaks.txt": (SWAKS_LOGIN, [LOGIN_PASSWORD]),
    "swaks-plain.txt": (SWAKS_PLAIN, [PLAIN]),
    "alerts.log": (SMTPLIB_DEBUG, [PLAIN]),
    "imap-session.txt": (IMAP_SESSION, ["Imap pw with spaces"]),
    "ftp-fetch.log": (FTP_CURL, ["Ftp-s3cret-81"]),
    "pop3.txt": (POP3_SESSION, ["Pop3-s3cret-22"]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_transcript_loses_the_credential_and_keeps_the_conversation(name: str) -> None:
    text, secrets = CASES[name]
    out = gone_and_reviewed(name, text.encode(), secrets).decode()
    # every command and reply stays, the user names too: only the credential went
    assert out.count("[REDACTED:password:") == len(secrets)
    for word in ("Authentication successful", "Logged in", "Login successful", "USER", "EHLO"):
        assert (word in out) == (word in text), word
    if name == "swaks.txt":
        assert LOGIN_USER in out


@pytest.mark.parametrize("chunk", [1, 7, 64])
@pytest.mark.parametrize("name", ["swaks.txt", "curl-smtp.log", "ftp-fetch.log"])
def test_the_line_after_a_challenge_is_found_across_a_stream_s_pieces(
    name: str, chunk: int
) -> None:
    text, secrets = CASES[name]
    whole = pass_one(name, text.encode())
    assert pass_one(name, text.encode(), chunk=chunk) == whole
    for secret in secrets:
        assert secret.encode() not in whole


def test_a_bare_auth_plain_answered_after_the_empty_challenge() -> None:
    text = f"> AUTH PLAIN\n< 334 \n> {PLAIN}\n< 235 2.7.0 Authentication successful\n"
    gone_and_reviewed("curl.log", text.encode(), [PLAIN])


@pytest.mark.parametrize(
    "line",
    [
        "250-AUTH PLAIN LOGIN CRAM-MD5",
        "Dec  1 10:00:00 mail postfix/smtpd[12]: warning: SASL LOGIN authentication failed",
        "PASS tests/e2e/login.spec.ts",
        "user login failed for alice",
        "the relay asks for AUTH PLAIN before MAIL FROM",
    ],
)
def test_mentions_of_the_commands_are_kept(line: str) -> None:
    data = (line + "\n").encode()
    assert pass_one("mail.log", data) == data


def test_the_influx_cli_token_flag() -> None:
    gone_and_reviewed(
        "history",
        b"influx query 'from(bucket:\"w\")' --org ops -t Infl-tok-93x\n",
        ["Infl-tok-93x"],
    )
