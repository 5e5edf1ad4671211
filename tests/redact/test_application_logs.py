"""What applications print about their own requests and logins, in their debug logs.

Each secret here reached the bundle before and ``review`` passed it, or (MySQL's
``using password: YES``) a line lost the very fact a support engineer reads it for.
"""

from __future__ import annotations

import base64

from tests.support.redaction import gone_and_reviewed, pass_one

BASIC = base64.b64encode(b"etl:B4sic-hdr-pw").decode()


def test_basic_credentials_written_in_prose_go() -> None:
    text = (
        f"DEBUG: Authorization header: Basic {BASIC}\n"
        f"2026-12-01 10:00:00 sending auth Basic {BASIC} to https://registry.corp\n"
        "INFO basic authentication is enabled for /admin\n"
    )
    out = gone_and_reviewed("client.log", text.encode(), [BASIC])
    assert b"basic authentication is enabled" in out
    assert out.count(b"[REDACTED:basic-auth:") == 2


def test_a_telegram_token_in_urllib3_s_request_line_goes() -> None:
    token = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawq"
    text = (
        "DEBUG:urllib3.connectionpool:Starting new HTTPS connection (1): api.telegram.org:443\n"
        f'DEBUG:urllib3.connectionpool:https://api.telegram.org:443 "POST /bot{token}'
        '/sendMessage HTTP/1.1" 200 None\n'
    )
    out = gone_and_reviewed("alerts.log", text.encode(), [token, token.split(":")[1]])
    assert b"/sendMessage HTTP/1.1" in out


def test_a_password_in_a_command_an_ssh_option_runs_goes() -> None:
    text = "ssh -o 'ProxyCommand=sshpass -p Jump-pw-4 ssh -W %h:%p bastion' worker-7\n"
    out = gone_and_reviewed("history", text.encode(), ["Jump-pw-4"])
    assert b"ssh -W %h:%p bastion' worker-7" in out


def test_mysql_says_whether_a_password_was_sent_and_that_stays() -> None:
    data = (
        b"ERROR 1045 (28000): Access denied for user 'etl'@'10.0.0.5' (using password: YES)\n"
        b"java.sql.SQLException: Access denied for user 'etl'@'10.0.0.5' (using password: NO)\n"
    )
    assert pass_one("etl.log", data) == data


def test_a_command_in_the_audit_log_loses_its_password_in_both_records() -> None:
    """auditd's EXECVE record parts the arguments into a0, a1, ... (hex when one holds a
    blank), and the same event's PROCTITLE holds the command line again in hex."""
    title = b"mysql\0-u\0root\0-pAud1t-pw-7".hex().upper()
    spaced = b"Tok3n with spaces".hex().upper()
    text = (
        "type=SYSCALL msg=audit(1701423600.123:456): arch=c000003e syscall=59 success=yes"
        ' exit=0 ppid=100 pid=101 auid=1000 uid=0 comm="mysql" exe="/usr/bin/mysql"\n'
        'type=EXECVE msg=audit(1701423600.123:456): argc=4 a0="mysql" a1="-u" a2="root"'
        ' a3="-pAud1t-pw-7"\n'
        f"type=PROCTITLE msg=audit(1701423600.123:456): proctitle={title}\n"
        f'type=EXECVE msg=audit(1701423601.0:457): argc=3 a0="curl" a1="--token" a2={spaced}\n'
        'type=EXECVE msg=audit(1701423602.0:458): argc=3 a0="ssh" a1="-p" a2="2222"\n'
    )
    out = gone_and_reviewed("audit.log", text.encode(), ["Aud1t-pw-7", title, spaced])
    assert b'a0="mysql" a1="-u" a2="root" a3="-p[REDACTED:password:' in out
    assert b'a0="ssh" a1="-p" a2="2222"' in out
