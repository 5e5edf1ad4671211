"""Credentials in the formats of services a worker host runs, where no plain ``key: value``
stands: CLI report lines, LDIF, IPsec, Redis ACLs, SNMPv3 users, Juniper and PostgreSQL
hashes, pgbouncer, Windows unattend files, WireGuard, Oracle JDBC URLs, alerting services'
keys and auth schemes, Docker's registry tokens, object-store CLIs.

Each of these reached the bundle before, and `bundler review` passed most of them.
"""

from __future__ import annotations

import pytest

from tests.support.redaction import gone_and_reviewed, pass_one

CASES = [
    # CLI report lines: spaced, capitalized keys, aligned separators
    (
        "nomad.txt",
        "Accessor ID  = 1f3a1b2c-4d5e\nSecret ID    = {s}\n",
        "8f3a1b2c-4d5e-6f70-8192-a3b4c5d6e7f8",
    ),
    ("keys.txt", "API Key: {s}\n", "Ak-simple-9x"),
    ("keys.txt", "Secret Key:   {s}\n", "Sk-simple-9x"),
    ("keys.txt", "Access Token     = {s}\n", "At-simple-9x"),
    ("vault-init.txt", "Unseal Key 1: {s}\n", "4jYbl2CBIv6SpkKj6Hos9iD32k5RfGkLzlosrrq/JgOm"),
    ("vault-init.txt", "Recovery Key 2: {s}\n", "9x8w7v6u5t4s3r2q1p0oNmLkJiHgFeDcBa/ZyXwVuTsR"),
    # LDIF and LDAP hash schemes
    (
        "users.ldif",
        "dn: uid=alice,dc=example\nuserPassword:: {s}\n",
        "e1NTSEF9a1hZWjEyMzQ1Njc4OTA=",
    ),
    ("users.ldif", "userPassword: {{SSHA}}{s}\n", "kXYZ1234567890abcdefghijkl"),
    # strongSwan
    ("ipsec.secrets", ': PSK "{s}"\n', "Ipsec-Psk-Secret-77"),
    ("ipsec.secrets", "moon sun : PSK 0x{s}\n", "a1b2c3d4e5f60718"),
    ("ipsec.secrets", 'carol : XAUTH "{s}"\n', "Xauth-pass-9"),
    # Redis ACLs
    ("redis.log", "127.0.0.1:6379> ACL SETUSER alice on >{s} ~cached:* +get\n", "p1pp0-Secret"),
    ("users.acl", "user worker on >{s} ~* +@all\n", "Wk-acl-pass-9"),
    ("users.acl", "user worker on #{s} ~* +@all\n", "ab" * 32),
    # net-snmp
    ("snmpd.conf", 'createUser snmpadmin SHA "{s}" AES "Snmp-priv-pass9"\n', "Snmp-auth-pass9"),
    ("snmpd.conf", 'createUser snmpadmin SHA "Snmp-auth-pass9" AES "{s}"\n', "Snmp-priv-pass9"),
    # hashes and reversible encodings
    ("juniper.conf", 'authentication-key "{s}"; ## SECRET-DATA\n', "$9$Hk5FCtO1IcrKv8X-b2aJZ"),
    ("pg_authid.txt", "etl | md5{s}\n", "a1b2c3d4e5f60718293a4b5c6d7e8f90"),
    (
        "auth_user.csv.txt",
        "1|alice|pbkdf2_sha256$600000$Zq8rT5vWxK29${s}\n",
        "Kx9wLm2pQ7Rt5vW8sN3mLabcdEFGH1234=",
    ),
    (
        "mosquitto.passwd",
        "alice:$7$101$abcdefghijklmnop${s}\n",
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij0123456789+/ab==",
    ),
    ("userlist.txt", '"etl" "{s}"\n', "Plain-pgb-pass9"),
    # alerting and registry credentials, object-store CLIs
    ("pagerduty.yaml", "routing_key: {s}\n", "9f8e7d6c5b4a39281706f5e4d3c2b1a1"),
    ("alerts.log", "Authorization: GenieKey {s}\n", "8f3a1b2c-4d5e-6f70-8192-a3b4c5d6e7f9"),
    ("okta.log", "Authorization: SSWS {s}\n", "00Qk2mN5pW7xT3vB9cL4hJ6zq8Rk2mN5pW7xT3vB9c"),
    (
        "config.json",
        '{{"auths": {{"r.example.com": {{"identitytoken": "{s}"}}}}}}\n',
        "Idt-tok-99x-abcdef",
    ),
    (".bash_history", "mc alias set minio http://minio:9000 minioadmin {s}\n", "Mn-secret-99x"),
    (".bash_history", "aws configure set aws_secret_access_key {s}\n", "Aws-secret-99x"),
    # a multipart form's field, raw and in a HAR's postData
    (
        "login.trace",
        '--XyZ\r\nContent-Disposition: form-data; name="password"\r\n\r\n{s}\r\n--XyZ--\r\n',
        "Hunter2-multipart",
    ),
    (
        "capture.har",
        '{{"postData": {{"text": "--b\\r\\nContent-Disposition: form-data; name=\\"password\\"'
        '\\r\\n\\r\\n{s}\\r\\n--b--"}}}}\n',
        "Hunter2-har-mp",
    ),
    # Windows, WireGuard, Oracle JDBC
    (
        "unattend.xml",
        "<Password><Value>{s}</Value><PlainText>true</PlainText></Password>\n",
        "Unattend-pw-9",
    ),
    ("unattend.xml", "<AdministratorPassword>\n<Value>{s}</Value>\n", "Admin-pw-99x"),
    ("wg0.conf", "[Peer]\nPresharedKey = {s}\n", "gN65BkIKy1eCE9pP1wdc8ROUtkHLF2PfAqYdO4pfMSY="),
    (
        "app.properties",
        "jdbc.url=jdbc:oracle:thin:scott/{s}@//db.internal:1521/orcl\n",
        "T1ger-pw9",
    ),
]


@pytest.mark.parametrize(("name", "template", "secret"), CASES)
def test_the_credential_goes_and_review_agrees(name: str, template: str, secret: str) -> None:
    data = template.format(s=secret).encode()
    gone_and_reviewed(name, data, [secret])


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("notes.txt", "Token Type: Bearer\n"),
        ("app.log", "user alice logged in from 10.0.0.5 > 3 times\n"),
        ("app.log", "user alice redirected to <https://example.com/home>\n"),
        ("app.log", "PSK authentication failed for peer 10.0.0.2\n"),
        ("ipsec.secrets", ": RSA moonKey.pem\n"),
        ("snmpd.conf", "createUser failed: unknown user\n"),
        ("build.log", "md5sum d41d8cd98f00b204e9800998ecf8427e  dist/app.tar.gz\n"),
        (
            "settings.py",
            "PASSWORD_HASHERS = ['django.contrib.auth.hashers.PBKDF2PasswordHasher']\n",
        ),
        ("app.properties", "jdbc.url=jdbc:oracle:thin:@//db.internal:1521/orcl\n"),
        ("users.ldif", "objectClass: {SSHA}\n"),
        (".bash_history", "aws configure set region us-east-1\n"),
        (
            "login.trace",
            '--b\r\nContent-Disposition: form-data; name="username"\r\n\r\netl\r\n--b--',
        ),
        ("app.log", '{"csrftoken": "abc123", "tokenizer": "bpe"}\n'),
    ],
)
def test_what_holds_no_credential_stays(name: str, text: str) -> None:
    assert pass_one(name, text.encode()) == text.encode()
