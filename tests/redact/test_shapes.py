"""Support-bundle shapes the catalog must hold, each with the decoys that sit beside it.

Every case runs both passes over a small bundle (:func:`tests.support.redaction.run`):
the secrets must be gone from every member (also decoded), the decoys must be
there, unchanged, and no line may be lost.
"""

from __future__ import annotations

import base64
import json

import pytest

from bundler.source import MemorySource
from redactors import Policy
from redactors.review import review_source
from redactors.tokens import TOKEN_RE
from tests.support.redaction import assert_shape_redacted, run

GHP = "ghp_" + "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"
SLACK_HOOK = "T0AB12CD3/B0EF45GH6/Zx81kQm2Pw9vLr4TyU6nBq3D"

Files = dict[str, bytes | str]
CASES: dict[str, tuple[Files, list[str], list[str]]] = {
    "prefixed-token-in-prose-path-and-name": (
        {
            "w.log": "2026-03-01 WARN upstream shopify rejected "
            "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 for /v1/orders\n"
            "2026-03-01 INFO cache at /var/cache/rzp_live_oE9IEkoNYnmwkG/state ok\n"
            "2026-03-01 INFO image 2018-250-xoxo-indieweb-1.jpg and video_box.ico-7af3 served\n",
        },
        ["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", "rzp_live_oE9IEkoNYnmwkG"],
        ["2018-250-xoxo-indieweb-1.jpg", "video_box.ico-7af3", "/v1/orders", "/var/cache/"],
    ),
    "connection-string-passphrase-to-its-semicolon": (
        {
            "app.config": 'connectionString="Server=db;Database=app;User Id=sa;'
            'Password=correct horse battery;"\n'
            "Server=db;Port=5432;User Id=app;Password=two quiet words;Timeout=15\n"
            "Password=lead pair phrase;Server=db\n"
            "Data Source=db;User ID=sa;Pwd=pass phrase nine;\n",
            "w.log": "2026-12-07 login password=abc9x failed; retrying in 5s\n"
            'ts=1 msg="x" password=Hunter2x9 attempt 3; next=4\n',
        },
        ["horse battery", "quiet words", "pair phrase", "phrase nine", "abc9x", "Hunter2x9"],
        ["Timeout=15", ";Server=db", "failed; retrying in 5s", "attempt 3; next=4"],
    ),
    "hex-bootstrap-token-in-a-log-message": (
        {
            "w.log": "INFO worker: joining with bootstrap token "
            "3f9a1c2b7d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8\n"
            "INFO image digest sha256 "
            "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\n"
            "INFO token refresh scheduled in 3600s\n"
        },
        ["3f9a1c2b7d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8"],
        ["9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "token refresh"],
    ),
    "token-in-a-url-path": (
        {
            "access.log": '10.0.0.7 - - [01/Mar/2026:10:00:00 +0000] "GET /account/reset-password/'
            'q8Zr2Xk7Lm4Np9Vt3Wy6 HTTP/1.1" 200 512\n'
            '10.0.0.7 - - [01/Mar/2026:10:00:01 +0000] "GET /api/v1/workers/worker-0001/status'
            ' HTTP/1.1" 200 77\n'
            '10.0.0.7 - - "GET /reset-password/forgot-your-password HTTP/1.1" 200 1\n'
        },
        ["q8Zr2Xk7Lm4Np9Vt3Wy6"],
        ["/api/v1/workers/worker-0001/status", "/reset-password/forgot-your-password"],
    ),
    "sql-statements-and-a-sqlite-dump": (
        {
            "postgres.log": "LOG:  statement: CREATE USER report WITH PASSWORD 'Rep0rt-Pw!';\n"
            "LOG:  statement: ALTER USER app IDENTIFIED BY 'Al7er-pw';\n"
            "LOG:  statement: UPDATE users SET password = 'Upd4te-pw' WHERE id = 3;\n"
            "LOG:  statement: SELECT count(*) FROM jobs WHERE state = 'running';\n",
            "dump.sql": "CREATE TABLE sessions (id INTEGER PRIMARY KEY, user TEXT, token TEXT,"
            " created TEXT);\n"
            "INSERT INTO \"sessions\" VALUES(1,'alice','c3Vw3r-S3ss10n-T0k3n-A1','2026-03-01');\n"
            "CREATE TABLE jobs (id INTEGER, name TEXT, state TEXT);\n"
            "INSERT INTO \"jobs\" VALUES(1,'nightly-etl','running');\n"
            "INSERT INTO users (id, login, password_hash) VALUES (2, 'bob',"
            " '$2b$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW');\n",
            "pg.sql": "COPY public.api_clients (id, name, client_secret) FROM stdin;\n"
            "1\tci-runner\tCl13nt-S3cr3t-Z9\n\\.\n"
            "COPY public.jobs (id, name) FROM stdin;\n1\tnightly-backup\n\\.\n",
        },
        [
            "Rep0rt-Pw!",
            "Al7er-pw",
            "Upd4te-pw",
            "c3Vw3r-S3ss10n-T0k3n-A1",
            "$2b$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW",
            "Cl13nt-S3cr3t-Z9",
        ],
        [
            "'nightly-etl','running'",
            "state = 'running'",
            "2026-03-01",
            "'alice'",
            "'bob'",
            "1\tci-runner\t",
            "1\tnightly-backup",
        ],
    ),
    "aws-presigned-url": (
        {
            "har.txt": "https://bkt.s3.amazonaws.com/a.tgz?X-Amz-Algorithm=AWS4-HMAC-SHA256"
            "&X-Amz-Credential=AKIAQWERTYUIOPASDF23%2F20260301%2Fus-east-1%2Fs3%2Faws4_request"
            "&X-Amz-Date=20260301T100000Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host"
            "&X-Amz-Signature=3b0c4f5e6a7d8c9b0a1f2e3d4c5b6a7f8e9d0c1b2a3f4e5d6c7b8a9f0e1d2c3b\n"
        },
        [
            "AKIAQWERTYUIOPASDF23",
            "3b0c4f5e6a7d8c9b0a1f2e3d4c5b6a7f8e9d0c1b2a3f4e5d6c7b8a9f0e1d2c3b",
        ],
        ["X-Amz-Algorithm=AWS4-HMAC-SHA256", "X-Amz-SignedHeaders=host", "bkt.s3.amazonaws.com"],
    ),
    "cli-secret-flags-in-shell-history": (
        {
            ".bash_history": "redis-cli -h cache01 -a 'R3dis!pw' ping\n"
            "PGPASSWORD=Pg-Env-pw9 psql -h db -U app\n"
            "mysql -uroot -pMy5ql-pw db\n"
            "psql --password --host db\n"
            "kubectl --token=kube-t0k3n-abc get pods\n"
            "docker run -p 8080:80 nginx\n"
            "grep -a pattern /var/log/syslog\n"
            "redis-cli -a $REDIS_PASSWORD info\n"
        },
        ["R3dis!pw", "Pg-Env-pw9", "My5ql-pw", "kube-t0k3n-abc"],
        [
            "docker run -p 8080:80 nginx",
            "grep -a pattern",
            "$REDIS_PASSWORD",
            "psql --password --host db",
            "] psql -h db -U app\n",  # the command after an env assignment is not its value
        ],
    ),
    "url-userinfo-keeps-host-and-path": (
        {
            "git.log": f"cloning https://x-access-token:{GHP}@github.com/acme/repo.git\n"
            "db postgres://app:S3cret-pw9@db.internal:5432/flux?sslmode=require\n"
        },
        [GHP, "S3cret-pw9"],
        [
            "@github.com/acme/repo.git",
            "https://x-access-token:",
            "@db.internal:5432/flux?sslmode=require",
        ],
    ),
    "literal-propagation-keeps-words-and-keys": (
        {
            "w.log": "ERROR auth-cache.db: database disk image is malformed\n",
            "state.json": '{"database": "flux", "database_ok": false, "auth": "database"}\n',
            "c.env": 'api_key = ""\ntoken: ~\n'
            "FLUX=${FLUX_BOOTSTRAP_TOKEN:?set the bootstrap token}\n",
        },
        [],
        [
            "database disk image is malformed",
            '"database": "flux"',
            '"database_ok": false',
            'api_key = ""',
            "token: ~",
            "${FLUX_BOOTSTRAP_TOKEN:?set the bootstrap token}",
        ],
    ),
    "placeholders-are-kept-only-whole": (
        {
            "p.conf": "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n"
            "github_token = ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n"
            "slack = <your-slack-token>\n"
            "password = ********\n"
            "password2 = hunter2xxxxxxxx\n"
        },
        ["hunter2xxxxxxxx"],
        [
            "AKIAIOSFODNN7EXAMPLE",
            "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "<your-slack-token>",
            "********",
        ],
    ),
    "templates-and-code-references": (
        {
            "t.py": "secret = {hunter2}\nsecret = get_secret_key()\n"
            'secret = request.headers["apikey"]\nSUMO_ACCESS_KEY=${SUMO_ACCESS_KEY:=$2}\n'
            "password = os.environ['DB_PASSWORD']\nDB_PASSWORD=${DB_PASSWORD:-Def4ult-pw}\n"
        },
        ["Def4ult-pw"],
        ["{hunter2}", "get_secret_key()", 'request.headers["apikey"]', "${SUMO_ACCESS_KEY:=$2}"],
    ),
    "pem-needs-a-body": (
        {
            "k.log": "-----BEGIN OPENSSH PRIVATE KEY----------END OPENSSH PRIVATE KEY-----\n"
            "next line stays\nand this one\n"
        },
        [],
        ["-----BEGIN OPENSSH PRIVATE KEY----------END OPENSSH PRIVATE KEY-----", "next line stays"],
    ),
    "bare-key-with-a-generated-value": (
        {
            "ceph.json": '{"auth_dump": [{"entity": "osd.0", "key": '
            '"AQBaLV9kQ2XtJBAAm3LhS3YvKqZx8W1pQ2RtLw==", "caps": {"mon": "allow profile osd"}},'
            ' {"key": "cache-entry-1"}]}\n'
        },
        ["AQBaLV9kQ2XtJBAAm3LhS3YvKqZx8W1pQ2RtLw=="],
        ['"entity": "osd.0"', '"key": "cache-entry-1"', "allow profile osd"],
    ),
    "host-key-fingerprints-are-public": (
        {
            "doctor.log": "host h01: key SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8 is not"
            " in known_hosts (refused)\n"
        },
        [],
        ["SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8"],
    ),
    # INI, .properties and env files end a value at the end of its line, spaces included:
    # a passphrase of words lost only its first word.
    "passphrase-with-spaces-owning-its-line": (
        {
            "app.ini": "[db]\npassword = orchid lantern pebble\nuser = admin\n",
            "app.properties": "db.password=velvet harbor quartz\ndb.user=admin\n",
            "worker.env": "BOOTSTRAP_TOKEN=amber falcon meadow\nLOG_LEVEL=info\n",
            "notes.txt": "  secret: cobalt willow tundra\n# password = saffron glacier rivet\n",
            "c.ini": "password = maple ember zenith # rotated 2026-11\n",
        },
        [
            "lantern pebble",
            "harbor quartz",
            "falcon meadow",
            "willow tundra",
            "glacier rivet",
            "ember zenith",
        ],
        ["user = admin", "db.user=admin", "LOG_LEVEL=info", "# rotated 2026-11"],
    ),
    # A password named in prose has no separator to say where it is: a word shaped like one
    # (letters and digits) right after the keyword goes; plain words, paths, versions stay.
    "password-named-in-prose": (
        {
            "app.log": "ERROR login failed: password is Hunter2-Prose\n"
            "INFO using password Sup3r-Secret-X for db\n"
            "WARN the password was: Pl4in-old.\n"
            "INFO passwd Pw0rd-77 accepted\n"
            "INFO password reset email sent to user42\n"
            "WARN password for alice2 rejected after 3 attempts\n"
            "INFO password policy v2.1 applied; password check took 35ms\n"
            "INFO password file /etc/app/pw2.txt loaded\n",
            "j.json": '{"MESSAGE": "sshd: password is Hunter2-Prose", "PRIORITY": "4"}\n',
        },
        ["Hunter2-Prose", "Sup3r-Secret-X", "Pl4in-old", "Pw0rd-77"],
        [
            "password reset email sent to user42",
            "password for alice2 rejected after 3 attempts",
            "password policy v2.1 applied; password check took 35ms",
            "password file /etc/app/pw2.txt loaded",
            "the password was: [REDACTED:",
            '"PRIORITY": "4"',
        ],
    ),
    # ...but a line that starts with a key is not always one value: logfmt fields, a token
    # followed by prose about it, a state under a weak key, and a key in the middle of prose.
    "line-leading-keys-with-more-on-the-line": (
        {
            "a.log": "password=Solo-Pw-1 level=info msg=started\n"
            f"token: {'Zq8' * 8}Lm4 (expires in 3600s)\n"
            "auth: database unavailable\n"
            "2026-12-01 INFO connecting with password=Mid-Pw-2 then retrying\n",
        },
        ["Solo-Pw-1", "Zq8Zq8Zq8Zq8Zq8Zq8Zq8Zq8Lm4", "Mid-Pw-2"],
        [
            "level=info msg=started",
            "(expires in 3600s)",
            "auth: database unavailable",
            "then retrying",
        ],
    ),
    # A key's last words decide: keyStorePassword holds a password (not a "key"), whatever it
    # looks like; --password-stdin says where the password comes from and holds none.
    "keys-that-say-where-a-password-is": (
        {
            "run.sh": "java -Djavax.net.ssl.keyStorePassword=marblefinch -jar app.jar\n"
            "cat /run/secrets/pw | docker login -u ci --password-stdin registry.example.com\n",
        },
        ["marblefinch"],
        ["] -jar app.jar\n", "--password-stdin registry.example.com\n"],
    ),
    # Short flags of known tools that take a secret: the tool decides (ssh-keygen -N is the
    # new passphrase, wget -U a user agent, snmpd -c a config file).
    "secret-flags-of-more-known-tools": (
        {
            ".bash_history": "sshpass -pAtt4ched-pw ssh host\n"
            "curl -U proxy:hollowreed -x proxy:3128 https://x\n"
            "lftp -u alice,mossyledge ftp.example.com\n"
            "ldappasswd -x -D cn=admin -w Ld4p-adm -a oldphrase -s newphrase uid=alice\n"
            "ssh-keygen -p -P keyphrase -N 'new key phrase' -f id\n"
            "snmpwalk -v3 -u mon -A silverbrook -X copperfield host\n"
            "ipmitool -I lanplus -H bmc -U admin -P ironlantern power status\n"
            "usermod -p plaincedar alice\n"
            "vsql -U dbadmin -w verticareed\n"
            "ssh-keygen -t ed25519 -N '' -f id\nwget -U Mozilla/5.0 https://x\n"
            "snmpd -c /etc/snmp/snmpd.conf\nldapsearch -x -s sub -b dc=x\n"
            "ipmitool -H bmc -p 623 sel list\nlftp -u alice ftp.example.com\n",
        },
        [
            "Att4ched-pw",
            "hollowreed",
            "mossyledge",
            "oldphrase",
            "newphrase",
            "keyphrase",
            "new key phrase",
            "silverbrook",
            "copperfield",
            "ironlantern",
            "plaincedar",
            "verticareed",
        ],
        [
            "] ssh host\n",  # not taken for the value of a flag named "-pAtt4ched-pw"
            "curl -U proxy:[REDACTED:",
            "lftp -u alice,[REDACTED:",
            "-N '' -f id\nwget -U Mozilla/5.0 https://x\n",
            "snmpd -c /etc/snmp/snmpd.conf\nldapsearch -x -s sub -b dc=x\n",
            "ipmitool -H bmc -p 623 sel list\nlftp -u alice ftp.example.com\n",
        ],
    ),
    # Passwords on command lines (shell history, ps listings, cron, CI logs) that no key or
    # flag names: the argument's place, the pipe into a tool that reads standard input, a
    # user flag beside -p. Digit-less passwords count when the syntax says "password".
    "passwords-as-command-arguments": (
        {
            ".bash_history": "net user alice Net-Us3r! /add\n"
            "net use \\\\srv\\share /user:dom\\alice orchidlantern\n"
            "htpasswd -b -c /etc/nginx/.htpasswd alice pebblequartz\n"
            "htpasswd -bB users bob 'two words'\n"
            "rabbitmqctl add_user alice velvetharbor\n"
            "mysqladmin -uroot -pMy-0ld-pw password amberfalcon\n"
            "redis-cli -h cache AUTH default cobaltwillow\n"
            "nmcli dev wifi connect Office password saffronrivet\n"
            "sqlplus -s scott/mapleember@orcl @/opt/report.sql\n"
            "net user alice\nnet user bob * /add\nhtpasswd -D users carol\n"
            "rabbitmqctl list_users\nsqlplus / as sysdba\n",
        },
        [
            "Net-Us3r!",
            "orchidlantern",
            "pebblequartz",
            "two words",
            "velvetharbor",
            "amberfalcon",
            "cobaltwillow",
            "saffronrivet",
            "mapleember",
        ],
        [
            "net user alice [REDACTED:password:",
            "] /add\n",
            "net use \\\\srv\\share /user:dom\\alice [REDACTED:",
            "htpasswd -b -c /etc/nginx/.htpasswd alice [REDACTED:",
            "rabbitmqctl add_user alice [REDACTED:",
            "redis-cli -h cache AUTH default [REDACTED:",
            "sqlplus -s scott/[REDACTED:password:",
            "]@orcl @/opt/report.sql",
            "net user alice\nnet user bob * /add\nhtpasswd -D users carol\n",
            "rabbitmqctl list_users\nsqlplus / as sysdba\n",
        ],
    ),
    "passwords-piped-to-standard-input": (
        {
            "deploy.sh": "echo Dock3r-pw! | docker login --password-stdin\n"
            "echo 'granitetulip' | docker login -u ci --password-stdin registry.example.com\n"
            "echo 'alice:Chp4ss-pw!' | chpasswd\n"
            "echo hazelcomet | sudo -S systemctl restart flux-worker\n"
            "passwd --stdin alice <<< 'lunar meadow'\n"
            "chpasswd <<'USERS'\nbob:emberquill\ncarol:$NOT_EXPANDED\nUSERS\n"
            'echo "$REGISTRY_PASSWORD" | docker login --password-stdin\n'
            "echo hello | grep passwd\n"
            "yes saffronkite | passwd alice\n"
            "(echo umberlynx; echo umberlynx) | smbpasswd -s -a alice\n"
            "{ echo cobaltwren; echo cobaltwren; } | passwd bob\n"
            "yes | apt-get install nginx\n"
            "(echo hello; echo world) | grep passwd\n",
        },
        [
            *("Dock3r-pw!", "granitetulip", "Chp4ss-pw!", "hazelcomet", "lunar meadow"),
            *("emberquill", "saffronkite", "umberlynx", "cobaltwren"),
        ],
        [
            "--password-stdin registry.example.com\n",
            "yes [REDACTED:password:",
            "(echo [REDACTED:password:",
            "; echo [REDACTED:password:",
            "{ echo [REDACTED:password:",
            "yes | apt-get install nginx\n",
            "(echo hello; echo world) | grep passwd\n",
            "echo 'alice:[REDACTED:password:",
            "bob:[REDACTED:password:",
            "carol:$NOT_EXPANDED\n",
            "sudo -S systemctl restart flux-worker",
            'echo "$REGISTRY_PASSWORD" | docker login --password-stdin',
            "echo hello | grep passwd",
        ],
    ),
    "password-flags-of-tools-the-catalog-does-not-know": (
        {
            ".bash_history": "az login -u alice@corp.example -p thistlecrane\n"
            "psexec \\\\host -u corp\\alice -p Ps3xec-pw cmd\n"
            "schtasks /create /s h /u alice /p junipercrest /tn backup\n"
            "xfreerdp /u:alice /p:quartzmeadow /v:host\n"
            "myapp --verbose -p S3cretPass! --db x\n"
            "myapp -p 'S3cret Pass' start\n"
            "mkdir -p /var/lib/x\nssh -p 2222 host\ndocker run -u app -p 80:80 nginx\n"
            "cp -p a b\ngrep -p x file\njournalctl -u nginx -p err\nmysql -u root -p mydb\n"
            "docker compose -p proj2 up\nsudo -u www-data -p 'Password 1: ' ls\n",
        },
        [
            "thistlecrane",
            "Ps3xec-pw",
            "junipercrest",
            "quartzmeadow",
            "S3cretPass!",
            "S3cret Pass",
        ],
        [
            "az login -u alice@corp.example -p [REDACTED:",
            "mkdir -p /var/lib/x\nssh -p 2222 host\ndocker run -u app -p 80:80 nginx\n",
            "cp -p a b\ngrep -p x file\njournalctl -u nginx -p err\nmysql -u root -p mydb\n",
            "docker compose -p proj2 up\nsudo -u www-data -p 'Password 1: ' ls\n",
        ],
    ),
    # A command line kept as a list: a flag and its value are two elements (a pod's args, docker
    # inspect's Args and Cmd), a Python repr or a JSON list in a log line, /proc/PID/cmdline.
    "command-lines-written-as-lists": (
        {
            "k8s/pod.yaml": "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: app\n"
            "    args:\n    - --api-key\n    - ArgvApiKey12345\n    - --db-password\n"
            "    - amber\n    - --port\n    - '8080'\n    - --token-file\n"
            "    - /var/run/secrets/token\n    - --password-file\n    - /etc/pw\n"
            "    - --secret-name\n    - db-creds\n    - --client-secret\n    - ${CLIENT_SECRET}\n"
            '    command: ["worker", "--token", "JsonArgvTok3n"]\n',
            "docker/inspect.json": '[{"Args": ["--db-password", "DockerArgPw7", "--port", "8080"],'
            ' "Config": {"Cmd": ["serve", "-p", "S3cretP4ss!"]}},\n'
            ' {"Args": ["run", "-p", "8080:80", "nginx"], "Cmd": ["mkdir", "-p", "/x"]},\n'
            ' {"Cmd": ["/usr/bin/redis-cli", "-a", "cobaltfinch", "ping"]},\n'
            ' {"Cmd": ["mysql", "-uroot", "-pgravelmoss", "app"]},\n'
            ' {"Cmd": ["curl", "-u", "svc:copperwren", "https://x"]},\n'
            ' {"Cmd": ["sh", "-c", "mysql -uroot -pSh-C-pw7 app"]}]\n',
            "app.log": 'INFO starting argv=["serve", "--api-key", "LogArgvKey6789",'
            ' "--port", "8080"]\n'
            "INFO python argv ['worker', '--token', 'PyReprTok3n', '--token-file', '/run/tok']\n",
            "proc/1/cmdline": "worker\0--token\0NulTok3nValue\0--port\0" + "8080\0",
            "proc/2/cmdline": "/usr/bin/redis-cli\0-h\0cache\0-a\0ashlantern\0ping\0",
        },
        [
            "ArgvApiKey12345",
            "amber",
            "JsonArgvTok3n",
            "DockerArgPw7",
            "S3cretP4ss!",
            "cobaltfinch",
            "gravelmoss",
            "copperwren",
            "Sh-C-pw7",
            "LogArgvKey6789",
            "PyReprTok3n",
            "NulTok3nValue",
            "ashlantern",
        ],
        [
            "- --port\n    - '8080'\n",
            "- --token-file\n    - /var/run/secrets/token\n",
            "- --password-file\n    - /etc/pw\n",
            "- --secret-name\n    - db-creds\n",
            "- --client-secret\n    - ${CLIENT_SECRET}\n",
            '"--port", "8080"',
            '["run", "-p", "8080:80", "nginx"]',
            '["mkdir", "-p", "/x"]',
            '"-p[REDACTED:password:',  # the flag stays; only the value glued to it goes
            '"-u", "svc:[REDACTED:',
            "'--token-file', '/run/tok'",
            "worker\0--token\0[REDACTED:token:",
            "\0--port\0" + "8080\0",
            "\0-h\0cache\0-a\0[REDACTED:password:",
        ],
    ),
    # Configurations that name a secret by position: keepalived, SSSD, MySQL's SET PASSWORD,
    # Cisco/Arista running-configs, rclone's KEY VALUE arguments.
    "service-and-network-device-configs": (
        {
            "keepalived.conf": "vrrp_instance VI_1 {\n  authentication {\n    auth_type PASS\n"
            "    auth_pass Keepal1vedPw\n  }\n}\n",
            "sssd.conf": "[domain/corp]\nldap_default_authtok_type = password\n"
            "ldap_default_authtok = S5sdAuthTok\n",
            "mysql.log": "Query\tSET PASSWORD FOR 'root'@'localhost' = 'MyS3tPassw0rd';\n"
            "Query\tSET PASSWORD FOR 'app'@'%' = PASSWORD('MyOldPassw0rd')\n",
            "router.cfg": "snmp-server community S3cr3tCommunity RO\n"
            "snmp-server community public RO\n"
            "username admin privilege 15 password 7 0822455D0A16544541\n"
            "username ops secret 5 $1$mERr$hx5rVt7rPNoS4wqbXKX7m0\n"
            "username auditor privilege 1 nopassword\n"
            "enable password ciscoblue\n"
            "enable secret 9 $9$nhEmQVczB7dqsO$X.HsgL6x1il0RxkOSSvyQYwucySCt7qFm4v7pqCxkKM\n"
            "tacacs-server key 7 094F471A1A0A5C1C\n"
            "snmp-server enable traps\n"
            "line vty 0 4\n password 7 121A0C0411045D5679\n login\n",
            ".bash_history": "rclone config create remote s3 provider AWS access_key_id AKID"
            " secret_access_key RcloneS3cr3t\n"
            "rclone config update box pass quillmarsh --obscure\n"
            "rclone copy remote:bucket/x /tmp/x\n",
        },
        [
            "Keepal1vedPw",
            "S5sdAuthTok",
            "MyS3tPassw0rd",
            "MyOldPassw0rd",
            "S3cr3tCommunity",
            "community public",  # a default community is the real one until changed
            "0822455D0A16544541",
            "hx5rVt7rPNoS4wqbXKX7m0",
            "ciscoblue",
            "X.HsgL6x1il0RxkOSSvyQYwucySCt7qFm4v7pqCxkKM",
            "094F471A1A0A5C1C",
            "121A0C0411045D5679",
            "RcloneS3cr3t",
            "quillmarsh",
        ],
        [
            "auth_type PASS\n    auth_pass [REDACTED:",
            "ldap_default_authtok_type = password\n",
            "SET PASSWORD FOR 'root'@'localhost' = '[REDACTED:",
            "snmp-server community [REDACTED:",
            "username admin privilege 15 password 7 [REDACTED:password:",
            "username ops secret 5 [REDACTED:password-hash:",
            "username auditor privilege 1 nopassword\n",
            "enable secret 9 [REDACTED:password-hash:",
            "snmp-server enable traps\n",
            "line vty 0 4\n password 7 [REDACTED:",
            "access_key_id AKID secret_access_key [REDACTED:",
            "rclone copy remote:bucket/x /tmp/x\n",
        ],
    ),
    # ps auxww: the command line follows the user, PID, usage and time columns.
    "command-lines-in-a-process-listing": (
        {
            "ps.txt": "USER   PID %CPU %MEM    VSZ   RSS TTY STAT START   TIME COMMAND\n"
            "root  1234  0.0  0.1  12345  6789 ?   S    10:00   0:00 sshpass -p slatecanyon ssh h\n"
            "root  1235  0.0  0.1  12345  6789 ?   S    10:00   0:00 /usr/bin/htpasswd -b u c"
            " fernglade\n"
            "app   1236  0.2  1.1  99999  8888 ?   Sl   10:00   1:02 /opt/agent -U svc"
            " -P tidepool\n"
            "root  1237  0.0  0.0   4321   999 ?   Ss   10:00   0:00 /usr/sbin/sshd -D -p 22\n",
        },
        ["slatecanyon", "fernglade", "tidepool"],
        ["/usr/sbin/sshd -D -p 22\n", "0:00 sshpass -p [REDACTED:", "/opt/agent -U svc -P [RED"],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_shape(name: str) -> None:
    assert_shape_redacted(*CASES[name])


@pytest.mark.parametrize(
    "name", ["command-lines-written-as-lists", "service-and-network-device-configs"]
)
def test_review_finds_the_shape_and_passes_its_redaction(name: str) -> None:
    """Review judges these shapes by the redactor's rules: each input holds findings, and
    what this version writes of it holds none."""
    files, _, _ = CASES[name]
    assert all(review_source(MemorySource({m: t})).findings for m, t in files.items())
    outputs, _, _ = run(files)
    assert review_source(MemorySource(outputs)).findings == []


def test_double_base64_is_decoded() -> None:
    inner = base64.b64encode(json.dumps({"password": "Tw1ce-b64-pw"}).encode())
    twice = base64.b64encode(inner).decode()
    once = base64.b64encode(b"secret=0nce-b64-secret").decode()
    cursor = base64.b64encode(json.dumps({"offset": 100, "limit": 50}).encode()).decode()
    outputs, _, _ = run({"a.log": f"blob {twice}\nraw {once}\ncursor {cursor}\n"})
    assert twice.encode() not in outputs["a.log"]
    assert once.encode() not in outputs["a.log"]
    assert cursor.encode() in outputs["a.log"]


def test_the_same_value_has_one_token_whatever_rule_found_it() -> None:
    outputs, _, _ = run(
        {
            "a.log": f"git https://x-access-token:{GHP}@github.com/acme/repo.git\n",
            "b.env": f"token={GHP}\n",
            "c.txt": f"bare {GHP} here\n",
            "d.log": "postgres://app:Same-pw-77@db/x\n",
            "e.env": "password=Same-pw-77\n",
        }
    )
    tokens = {m: TOKEN_RE.findall(data) for m, data in outputs.items()}
    assert tokens["a.log"] == tokens["b.env"] == tokens["c.txt"]
    assert tokens["a.log"][0][0] == b"github-token"
    assert tokens["d.log"] == tokens["e.env"]


def test_a_secret_in_a_file_name_is_redacted_in_the_name_and_the_report() -> None:
    hook_name = f"notify-hooks.slack.com_services_{SLACK_HOOK.replace('/', '_')}.json"
    outputs, redactor, _ = run(
        {hook_name: '{"ok": true}\n', f"logs/{GHP}/app.log": "started\n", "plain.log": f"{GHP}\n"}
    )
    report = redactor.report().model_dump_json(by_alias=True)
    names = "\n".join(outputs)
    for secret in (GHP, SLACK_HOOK.split("/")[-1]):
        assert secret not in names
        assert secret not in report
        assert all(secret.encode() not in data for data in outputs.values())
    assert "notify-hooks.slack.com_services_REDACTED-webhook-url-" in names


def test_obfuscate_network_pseudonymizes_names_in_every_syntax() -> None:
    files: Files = {
        "hosts/h01/sysinfo.json": '{"alias": "h01", "hostname": "worker-07.corp.acme.test"}\n',
        "c.yaml": "db:\n  host: db01.corp.acme.test\n  user: alice\n  port: 5432\n",
        "c.env": "DB_HOST=db01.corp.acme.test\nDB_USER=alice\nUSER_AGENT=curl/8\n",
        "a.log": "connecting to db01.corp.acme.test:5432 as alice from worker-07\n"
        "user_id=42 host_port=22\n",
    }
    outputs, redactor, _ = run(files, Policy(obfuscate_network=True))
    joined = b"\n".join(outputs.values())
    for name in (b"worker-07", b"db01.corp.acme.test", b"alice"):
        assert name not in joined, name
    for kept in (b"user_id=42", b"host_port=22", b"USER_AGENT=curl/8", b'"alias": "h01"'):
        assert kept in joined
    db = json.loads(outputs["hosts/h01/sysinfo.json"])["hostname"].split(".")[0]
    assert db.startswith("host-")
    assert db.encode() in outputs["a.log"]
    assert outputs["c.yaml"].split(b"host: ")[1].split(b"\n")[0] in outputs["c.env"]
    assert redactor.report().pseudonyms["hostname"] >= 2
