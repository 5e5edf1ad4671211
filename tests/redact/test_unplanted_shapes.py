"""Shapes nobody planted: each leaked a secret or lost evidence until its rule was made general.

Every case runs both passes over a small bundle (:func:`tests.support.redaction.run`): the
secrets must be gone from every member (also decoded), the text that is evidence must be
there unchanged, and no line may be lost. Review must find something in each input that
holds a secret, and nothing in what this version writes.
"""

from __future__ import annotations

import pytest

from bundler.source import MemorySource
from redactors.review import review_source
from tests.support.redaction import (
    ALNUM,
    ShapeFiles,
    assert_shape_redacted,
    rand,
    redacted_lines_kept,
)

GHP = "ghp_" + "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"
XOXB = "xoxb-" + "1234567890123-1234567890123-" + "aB3dE6gH9jK2mN5pQ8sT1vW4"
OPENAI = (
    "sk-proj-"
    + rand(ALNUM, 48, "proj")
    + "_"
    + rand(ALNUM, 20, "p2")
    + "T3BlbkFJ"
    + rand(ALNUM, 40, "p3")
)
ANTHROPIC = "sk-ant-api03-" + rand(ALNUM, 60, "ant") + "-" + rand(ALNUM, 30, "a2") + "-AA"
SVCACCT = "sk-svcacct-" + rand(ALNUM, 64, "svc")

Files = ShapeFiles
CASES: dict[str, tuple[Files, list[str], list[str]]] = {
    # name: (files, secrets that must go, evidence that must stay as written)
    "a-negated-flag-takes-no-value": (
        {
            "history.txt": "pg_dump --no-password mydb > dump.sql\n"
            "psql --no-password --host db appdb\n"
            "mysqldump --skip-password inventory\n"
            "psql --password Hunter2-Quill --host db appdb\n",
        },
        ["Hunter2-Quill"],
        ["--no-password mydb >", "--skip-password inventory", "--host db appdb"],
    ),
    "a-key-at-the-end-of-a-quoted-prompt": (
        {
            "deploy.sh": 'read -p "Token: " token\n'
            'echo "starting deploy of service web"\n'
            "printf 'Password: ' ; read -s pw\n",
            "app.log": '{"token": "Zq8rT5vWKx9w"}\n'
            "can't login, password: 'Pebble-77x'\n"
            'msg="login failed, Token: Yh7Gt5Rd3Es1" attempt=2\n',
        },
        ["Zq8rT5vWKx9w", "Pebble-77x", "Yh7Gt5Rd3Es1"],
        [
            'read -p "Token: " token\necho "starting deploy of service web"\n',
            "printf 'Password: ' ; read -s pw",
        ],
    ),
    "a-yaml-alias-under-a-secret-key": (
        {
            "values.yaml": "defaults: &base\n"
            "  password: emberquillfox\n"
            "shared: &dbpw s3cretvalue99\n"
            "prod:\n"
            "  password: *dbpw\n"
            "  <<: *base\n"
            "staging: {password: *dbpw, user: app}\n",
            "app.ini": "password = *Secret1\n",
        },
        ["emberquillfox", "s3cretvalue99", "Secret1"],
        ["  password: *dbpw\n  <<: *base\n", "{password: *dbpw, user: app}"],
    ),
    "an-assignment-before-a-command-without-options": (
        {
            "history.txt": "PGPASSWORD=amberfoxglow psql mydb\n"
            "MYSQL_PWD=quietlarkspur /usr/bin/mysql inventory\n"
            "RESTIC_PASSWORD=tundrawillow restic backup /srv\n",
            "app.env": "DB_PASSWORD=correct horse battery\n",
        },
        ["amberfoxglow", "quietlarkspur", "tundrawillow", "correct horse battery"],
        [" psql mydb\n", " /usr/bin/mysql inventory\n", " restic backup /srv\n"],
    ),
    "a-directive-that-owns-its-line-takes-a-value-with-blanks": (
        {
            "redis.conf": "requirepass correct horse battery\nport 6379\n"
            "masterauth amber falcon # rotated\n",
            "nslcd.conf": "bindpw quiet meadow lark\n",
            "snmpd.conf": "rocommunity n0tpublic 10.0.0.0/8\n",
        },
        ["horse battery", "amber falcon", "meadow lark", "n0tpublic"],
        ["port 6379", " # rotated", " 10.0.0.0/8"],
    ),
    "a-terminal-line-section-password": (
        {
            "running-config.txt": "hostname edge-1\n!\n"
            "line con 0\n password 7 0822455D0A16\n exec-timeout 5 0\n"
            "line vty 0 4\n password ciscohorse\n login\n transport input ssh\n!\nend\n",
            "app.log": "line 42:\n  password reset email sent to the user\n",
        },
        ["ciscohorse", "0822455D0A16"],
        ["line vty 0 4\n password [REDACTED:", " login\n", "  password reset email sent"],
    ),
    "a-mysql-password-after-a-lone-p": (
        {
            "history.txt": "mysql -u root -p hunterpass mydb\n"
            "mysqladmin -u root -p adminhorse status\n"
            "redis-cli -h cache -a plainword ping\n"
            "sshpass -p sshwordplain ssh ops@h\n"
            "mysql -u root -p inventory\n"
            "mysql -p reports -e 'select 1'\n"
            "mysqladmin -u root -p processlist\n"
            "mysqldump -u root -p appdb users\n",
            "pod.json": '{"args": ["mysql", "-u", "root", "-p", "listpassword", "mydb"]}\n',
        },
        ["hunterpass", "adminhorse", "plainword", "sshwordplain", "listpassword"],
        [
            "-p inventory\n",
            "-p reports -e",
            "-p processlist\n",
            "-p appdb users\n",
            '"-p", "[REDACTED:password:',
        ],
    ),
    "a-list-of-arguments-inside-a-log-line": (
        {
            "worker.log": '2026-01-01 INFO exec ["redis-cli","-a","redisplainword","ping"]\n'
            "2026-01-01 DEBUG argv=['sshpass', '-p', 'quietlarkword', 'ssh', 'ops@h']\n"
            '2026-01-01 INFO cmd "worker","--api-key","k3yHorse99","--port","8080"\n'
            '2026-01-01 INFO exec ["docker","run","-p","8080:80","nginx"]\n',
            "job.json": '{"args": ["mysql", "-uroot", "-pListPw-7", "appdatabase"]}\n',
        },
        ["redisplainword", "quietlarkword", "k3yHorse99", "ListPw-7"],
        [
            '"-a","[REDACTED:',
            '"ping"]',
            '"--port","8080"',
            '["docker","run","-p","8080:80"',
            '"appdatabase"]',
        ],
    ),
    "a-command-line-split-over-command-and-args": (
        {
            "pod.yaml": "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n"
            "  - name: app\n    command: [app, --password]\n    args: [hunter2horse]\n"
            "  - name: cache\n    command:\n    - redis-cli\n    args:\n    - -a\n"
            "    - batterystaple\n    - ping\n",
            "inspect.json": '{"Config": {"Entrypoint": ["app", "--api-key"], '
            '"Cmd": ["fernwhistle99", "--port", "8080"]}}\n',
        },
        ["hunter2horse", "batterystaple", "fernwhistle99"],
        ["command: [app, --password]", "    - ping\n", '"--port", "8080"]'],
    ),
    "a-distinctive-token-glued-to-a-word": (
        {
            "proxy.log": f"WARN got token{GHP} from header\n"
            f"INFO auth Bearer{XOXB} sent\n"
            "INFO key idAKIAQWERTYUIOPASDF23 rotated\n"
            f"INFO stripe xsk_live_{'4eC39HqLyjWDarjtT1zdp7dc'} ok\n"
            f"INFO bare {GHP} again\n"
            "INFO image 2018-250-xoxo-indieweb-1.jpg and video_box.ico-7af3 served\n"
            "INFO SLOVAKIAQWERTYUIOPASDFG region\n",
        },
        [GHP, XOXB, "AKIAQWERTYUIOPASDF23", "4eC39HqLyjWDarjtT1zdp7dc"],
        [
            "WARN got [REDACTED:github-token:",
            "] from header\n",
            "INFO auth [REDACTED:slack-token:",
            "2018-250-xoxo-indieweb-1.jpg and video_box.ico-7af3",
            "SLOVAKIAQWERTYUIOPASDFG region",
        ],
    ),
    "an-openai-or-anthropic-key-glued-to-a-word": (
        {
            "agent.log": f"DEBUG using token{OPENAI} for completions\n"
            f"DEBUG sending claude{ANTHROPIC} now\n"
            f"DEBUG Bearer{SVCACCT} sent\n"
            "INFO mounted /mnt/disk-proj-archive-2021-backup-volume-for-customer-data-01\n"
            "INFO queue task-admin-notifications-dispatch-worker-retry-loop-handler-v2 up\n"
            "INFO risk-ant-api01-" + "x" * 80 + " scored\n",
        },
        [OPENAI, ANTHROPIC, SVCACCT],
        [
            "DEBUG using [REDACTED:openai-key:",
            "] for completions\n",
            "DEBUG sending [REDACTED:anthropic-key:",
            "/mnt/disk-proj-archive-2021-backup-volume-for-customer-data-01\n",
            "task-admin-notifications-dispatch-worker-retry-loop-handler-v2 up\n",
            "INFO risk-ant-api01-" + "x" * 80 + " scored\n",
        ],
    ),
    "chpasswd-input-outside-its-command-line": (
        {
            "session.log": "root@web01:~# cat users.txt\n"
            "alice:S3cr3tPass\n"
            "bob:Tr0ub4dor&3\n"
            "root@web01:~# cat users.txt | chpasswd\n"
            "root@web01:~# cat hosts.txt\n"
            "web:8080\n"
            "root@web01:~# chpasswd\n"
            "carol:typedhorse\n"
            "^D\n",
            "provision.sh": "printf 'dave:printfhorse\\nerin:secondhorse\\n' > /root/new.txt\n"
            "cat > /root/more.txt <<EOF\nfrank:heredochorse\nEOF\n"
            "chpasswd < /root/new.txt\n"
            "chpasswd < /root/more.txt\n"
            "echo 'gina:notfed' > /tmp/notes.txt\n",
            "user-data.yaml": "#cloud-config\nchpasswd:\n  expire: false\n  list: |\n"
            "    root:cloudhorse\n    ubuntu:ubuntuhorse\nruncmd:\n  - [ls, /]\n",
            "notes.txt": "# chpasswd input\nalice:kept-as-prose\nserver:8080\n",
        },
        [
            "S3cr3tPass",
            "Tr0ub4dor&3",
            "typedhorse",
            "printfhorse",
            "secondhorse",
            "heredochorse",
            "cloudhorse",
            "ubuntuhorse",
        ],
        [
            "alice:[REDACTED:",
            "web:8080\n",
            "carol:[REDACTED:",
            "gina:notfed",
            "alice:kept-as-prose\nserver:8080\n",
            "  - [ls, /]\n",
        ],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_secrets_go_and_evidence_stays(name: str) -> None:
    assert_shape_redacted(*CASES[name])


@pytest.mark.parametrize("name", sorted(n for n, case in CASES.items() if case[1]))
def test_review_finds_the_input_and_passes_the_output(name: str) -> None:
    files, _, _ = CASES[name]
    assert review_source(MemorySource(dict(files))).findings
    outputs = redacted_lines_kept(files)
    assert review_source(MemorySource(outputs)).findings == []


def test_a_glued_token_gets_the_token_it_gets_standing_free() -> None:
    """The glued word goes with the token (review calls letters glued to a token a cut
    value), and the token is the one the same value gets elsewhere."""
    outputs = redacted_lines_kept({"a.log": f"x token{GHP} y\nx {GHP} y\n"})
    glued, free = outputs["a.log"].decode().splitlines()
    assert glued == free


def test_redacting_the_output_again_changes_nothing() -> None:
    """A token's own kind is no context: ``[REDACTED:cookie:…]; SameSite=Lax`` is not a
    ``Cookie:`` header whose pairs are values, so a second run keeps ``Lax``."""
    files: Files = {
        "headers.log": "< Set-Cookie: sid=Zq8rT5vWKx9w; Path=/; HttpOnly; SameSite=Lax\n"
        "> Cookie: sid=Zq8rT5vWKx9w; theme=dark\n",
    }
    once = redacted_lines_kept(files)
    assert b"SameSite=Lax" in once["headers.log"]
    twice = redacted_lines_kept(dict(once))
    assert twice == once
