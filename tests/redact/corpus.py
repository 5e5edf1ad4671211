# ruff: noqa: E501, RUF005 - a data table: one case per entry reads better than wrapped strings
"""The adversarial corpus of redaction.md §5 (71 cases) with ground truth.

Each case: files (name -> content), the secret values that must not survive at
any decoding layer, decoys that must survive verbatim, and the policy. Values
are synthetic but realistic (right prefix, length, alphabet).
"""

from __future__ import annotations

import base64
import gzip
import json
from dataclasses import dataclass, field
from typing import Any

from tests.support.redaction import ALNUM, B64, rand


@dataclass
class Case:
    number: int
    title: str
    files: dict[str, bytes | str]
    secrets: list[str] = field(default_factory=list)
    keep: list[str] = field(default_factory=list)
    policy: dict[str, Any] = field(default_factory=dict)
    refused: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.number:02d}-{self.title}"


def b64(text: str | bytes) -> str:
    return base64.b64encode(text.encode() if isinstance(text, str) else text).decode()


def pem(label: str, n: int, width: int = 64, seed: object = 0) -> tuple[str, list[str]]:
    body = [rand(B64, width, f"{label}{seed}{i}") for i in range(n)]
    text = "\n".join([f"-----BEGIN {label}-----", *body, f"-----END {label}-----"])
    return text, body


RSA, RSA_BODY = pem("RSA PRIVATE KEY", 8)
P8, P8_BODY = pem("PRIVATE KEY", 6, seed=1)
ENC, ENC_BODY = pem("ENCRYPTED PRIVATE KEY", 6, seed=2)
EC, EC_BODY = pem("EC PRIVATE KEY", 3, seed=3)
DSA, DSA_BODY = pem("DSA PRIVATE KEY", 4, seed=4)
SSH, SSH_BODY = pem("OPENSSH PRIVATE KEY", 5, width=70, seed=5)
PGP_BODY = [rand(B64, 64, f"pgp{i}") for i in range(4)]
PGP = "\n".join(["-----BEGIN PGP PRIVATE KEY BLOCK-----", "Version: x", "", *PGP_BODY, "=" + "Ab12",
                 "-----END PGP PRIVATE KEY BLOCK-----"])  # fmt: skip
CERT, CERT_BODY = pem("CERTIFICATE", 4, seed=9)
PUTTY_PRIV = [rand(B64, 64, f"putty{i}") for i in range(3)]
PUTTY = "\n".join(["PuTTY-User-Key-File-3: ssh-ed25519", "Encryption: none", "Comment: k",
                   "Public-Lines: 2", rand(B64, 64, "pub1"), rand(B64, 20, "pub2"), "Private-Lines: 3",
                   *PUTTY_PRIV, "Private-MAC: " + "ab12" * 16])  # fmt: skip

GH = "ghp_" + rand(ALNUM, 36, "gh")
GHO = "gho_" + rand(ALNUM, 36, "gho")
GHS = "ghs_" + rand(ALNUM, 36, "ghs")
GHPAT = "github_pat_" + rand(ALNUM + "_", 82, "pat")
GLPAT = "glpat-" + rand(ALNUM + "-_", 20, "gl")
GLRT = "glrt-" + rand(ALNUM + "-_", 24, "glrt")
AKIA = "AKIA" + rand("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16, "akia")
ASIA = "ASIA" + rand("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16, "asia")
AWS_SECRET = rand(B64, 40, "aws")
SESSION = "IQoJb3JpZ2luX2VjE" + rand(B64, 200, "sts")
JWT_HEAD = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').rstrip(b"=").decode()
JWT_BODY = base64.urlsafe_b64encode(b'{"sub":"1234567890","name":"x"}').rstrip(b"=").decode()
JWT = f"{JWT_HEAD}.{JWT_BODY}.{rand(ALNUM + '-_', 43, 'jwt')}"
NONE_HEAD = base64.urlsafe_b64encode(b'{"alg":"none"}').rstrip(b"=").decode()
JWT_NONE = f"{NONE_HEAD}.{JWT_BODY}."
JWE_HEAD = base64.urlsafe_b64encode(b'{"alg":"RSA-OAEP","enc":"A256GCM"}').rstrip(b"=").decode()
JWE = ".".join([JWE_HEAD, rand(ALNUM + "-_", 40, "k"), rand(ALNUM, 16, "iv"),
                rand(ALNUM + "-_", 60, "ct"), rand(ALNUM, 22, "tag")])  # fmt: skip
SLACK_B = "xoxb-" + rand("0123456789", 11, "s1") + "-" + rand(ALNUM, 24, "s2")
SLACK_P = "xoxp-" + rand("0123456789", 11, "s3") + "-" + rand(ALNUM, 32, "s4")
XAPP = (
    "xapp-1-A"
    + rand("0123456789", 10, "x1")
    + "-"
    + rand("0123456789", 13, "x2")
    + "-"
    + rand("0123456789abcdef", 64, "x3")
)
HOOK = (
    "T"
    + rand("ABCDEFGHIJ0123456789", 8, "h1")
    + "/B"
    + rand("ABCDEFGHIJ0123456789", 8, "h2")
    + "/"
    + rand(ALNUM, 24, "h3")
)
AIZA = "AIza" + rand(ALNUM + "-_", 35, "aiza")
AZURE_KEY = rand(B64, 86, "azure") + "=="
SAS_SIG = rand(ALNUM, 30, "sig") + "%2B" + rand(ALNUM, 10, "sig2") + "%3D"
STRIPE = "sk_live_" + rand(ALNUM, 24, "stripe")
RK = "rk_live_" + rand(ALNUM, 24, "rk")
OPENAI = "sk-proj-" + rand(ALNUM + "-_", 64, "openai")
OPENAI_OLD = "sk-" + rand(ALNUM, 20, "oa1") + "T3BlbkFJ" + rand(ALNUM, 20, "oa2")
ANTHROPIC = "sk-ant-api03-" + rand(ALNUM + "-_", 93, "ant")
NPM = "npm_" + rand(ALNUM, 36, "npm")
PYPI = "pypi-AgEIcHlwaS5vcmc" + rand(ALNUM + "-_", 70, "pypi")
SENDGRID = "SG." + rand(ALNUM + "-_", 22, "sg1") + "." + rand(ALNUM + "-_", 43, "sg2")
VAULT = "hvs." + rand(ALNUM, 90, "vault")
DATADOG = rand("0123456789abcdef", 32, "dd")
GCP_SA = {
    "type": "service_account", "project_id": "acme-prod-1234",
    "private_key_id": rand("0123456789abcdef", 40, "pkid"),
    "private_key": P8 + "\n", "client_email": "svc@acme-prod-1234.iam.gserviceaccount.com",
    "client_id": "104857600000000000000",
}  # fmt: skip


def _helm_blob() -> str:
    release = json.dumps({"name": "app", "config": {"db": {"password": "helm-s3cret-pw"}}}).encode()
    return b64(b64(gzip.compress(release, mtime=0)))


def _utf16() -> bytes:
    return "\ufeffEvent 4625: logon failure\r\npassword=Utf16-Secret-9\r\n".encode("utf-16-le")


CASES: list[Case] = [
    # A. Multi-line and structural
    Case(1, "pkcs1-rsa", {"k.pem": RSA + "\n"}, RSA_BODY, keep=["-----BEGIN RSA PRIVATE KEY-----"]),
    Case(2, "pkcs8-enc-ec-dsa", {"keys.txt": "\n".join([P8, ENC, EC, DSA]) + "\n"},
         P8_BODY + ENC_BODY + EC_BODY + DSA_BODY),
    Case(3, "openssh-putty-pgp", {"id": SSH + "\n", "k.ppk": PUTTY + "\n", "pgp.asc": PGP + "\n"},
         SSH_BODY + PUTTY_PRIV + PGP_BODY + ["ab12" * 16]),
    Case(4, "crlf-key", {"k.pem": RSA.replace("\n", "\r\n") + "\r\n"}, RSA_BODY),
    Case(5, "yaml-block-scalar", {"secret.yaml": "apiVersion: v1\nkind: Secret\nstringData:\n  tls.key: |\n    "
                                  + RSA.replace("\n", "\n    ") + "\n  tls.crt: |\n    " + CERT.replace("\n", "\n    ") + "\n"},
         RSA_BODY, keep=CERT_BODY),
    Case(6, "json-escaped-key", {"sa.json": json.dumps(GCP_SA, indent=2)},
         P8_BODY + [GCP_SA["private_key_id"], "svc@acme-prod-1234.iam.gserviceaccount.com"],
         keep=["acme-prod-1234", "104857600000000000000"]),
    Case(7, "double-escaped-key", {"app.log": json.dumps({"log": json.dumps({"msg": "loaded", "key": RSA})}) + "\n"},
         RSA_BODY),
    Case(8, "syslog-prefixed-key", {"syslog": "".join(
        f"Nov 29 12:00:{i:02d} host app[12]: {line}\n" for i, line in enumerate(RSA.splitlines()))}, RSA_BODY),
    Case(9, "truncated-keys", {"cut.log": "start\n" + "\n".join(RSA.splitlines()[:5]),
                               "tail.log": "\n".join(RSA.splitlines()[4:]) + "\nnext line\n"},
         RSA_BODY, keep=["next line"]),
    Case(10, "two-keys-and-cert", {"bundle.pem": "\n".join([RSA, CERT, EC]) + "\n"}, RSA_BODY + EC_BODY, keep=CERT_BODY),
    Case(11, "kubeconfig", {"config": "apiVersion: v1\nkind: Config\nusers:\n- name: admin\n  user:\n"
                            f"    client-certificate-data: {b64(CERT)}\n    client-key-data: {b64(RSA)}\n"
                            f"    token: {rand(ALNUM, 40, 'kubetok')}\n"},
         [b64(RSA), rand(ALNUM, 40, "kubetok")] + RSA_BODY, keep=[b64(CERT)[:40]]),
    Case(12, "k8s-secret-data", {"s.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n"
                                 f"  conn: {b64('postgres://app:k8s-Pa55word@db:5432/x')}\n  note: {b64('plain-note-value')}\n"},
         [b64("postgres://app:k8s-Pa55word@db:5432/x"), "k8s-Pa55word"], keep=["name: db"]),
    Case(13, "yaml-folded-password", {"c.yaml": "db:\n  password: >-\n    folded-secret-77\n  host: db\n"},
         ["folded-secret-77"], keep=["host: db"]),
    Case(14, "split-assignments", {"settings.py": "secret_key = (\n    'django-insecure-Zx81kQwe'\n)\n",
                                   "env.sh": "export API_TOKEN=\\\n  tok-Split-4471\necho done\n"},
         ["django-insecure-Zx81kQwe", "tok-Split-4471"], keep=["echo done"]),
    Case(15, "json-name-value", {"pod.log": 'env: [{"name": "DB_PASSWORD",\n  "value": "nv-S3cret!"},\n'
                                 ' {"name": "LOG_LEVEL", "value": "debug"}]\n'},
         ["nv-S3cret!"], keep=['"value": "debug"']),
    # B. Encodings
    Case(16, "escaped-json-in-log", {"a.log": 'msg="{\\"password\\":\\"p4ss-w0rd!\\"}" x=1\n'}, ["p4ss-w0rd!"], keep=["x=1"]),
    Case(17, "unicode-escapes", {"a.log": 'body=\\u0022password\\u0022:\\u0022Un1c0de-pw\\u0022 and token\\u003dUni-Tok-881\n'},
         ["Un1c0de-pw", "Uni-Tok-881"]),
    Case(18, "percent-encoded", {"access.log": 'GET https://u:p%40ss%3Aword@host/ ok\nGET /login?user=bob&password=p%26q-xyz1 200\n'
                                 "GET /cb?next=https%3A%2F%2Fadmin%3Ahid-Den-77%40internal%2F 302\n"},
         ["p%40ss%3Aword", "p@ss:word", "p%26q-xyz1", "p&q-xyz1", "hid-Den-77"]),
    Case(19, "basic-auth", {"h.txt": "Authorization: Basic dXNlcjpzM2NyM3QtdmFsdWU=\n",
                            "other.log": "login with s3cr3t-value failed\n"},
         ["dXNlcjpzM2NyM3QtdmFsdWU=", "s3cr3t-value"]),
    Case(20, "base64-docker-config", {"pull.yaml": "kind: Secret\ntype: kubernetes.io/dockerconfigjson\ndata:\n  .dockerconfigjson: "
                                      + b64(json.dumps({"auths": {"r.io": {"auth": b64("robot:D0cker-Pw-1")}}})) + "\n",
                                      "d.log": "loaded " + b64(json.dumps({"auths": {"r.io": {"auth": b64("robot:D0cker-Pw-2")}}})) + "\n"},
         ["D0cker-Pw-1", "D0cker-Pw-2"]),
    Case(21, "double-base64", {"s.yaml": f"kind: Secret\ndata:\n  t: {b64(b64('dbl-b64-Secret-x'))}\n"}, ["dbl-b64-Secret-x"]),
    Case(22, "hex-encoded", {"a.conf": "password_hex=68756e746572322d48657821\n",
                             "b.conf": "password: hex-Prop-4242\n", "c.log": "dump 6865782d50726f702d34323432 end\n"},
         ["68756e746572322d48657821", "hunter2-Hex!", "hex-Prop-4242"], keep=["dump", "end"]),
    Case(23, "html-entities", {"p.html": "<pre>{&quot;password&quot;:&quot;ht-Ml-pw-9&quot;}</pre>\n"}, ["ht-Ml-pw-9"]),
    Case(24, "helm-base64-gzip", {"helm.json": json.dumps({"apiVersion": "v1", "kind": "Secret", "type": "helm.sh/release.v1",
                                                           "data": {"release": _helm_blob()}}),
                                  "h2.log": "blob " + b64(gzip.compress(b'{"password": "gz-Pw-31337"}', mtime=0)) + "\n"},
         ["helm-s3cret-pw", "gz-Pw-31337"]),
    Case(25, "utf16le", {"events.txt": _utf16()}, ["Utf16-Secret-9"], keep=["logon failure"]),
    # C. Key/value contexts
    Case(26, "cli-flags", {"history": "db --password hunter2-a\ndb --password=hunter2-b\nsshpass -p hunter2-c ssh h\n"
                           "mysql -uroot -phunter2-d app\ncurl -u admin:hunter2-e https://x\n"},
         ["hunter2-a", "hunter2-b", "hunter2-c", "hunter2-d", "hunter2-e"], keep=["-uroot", "admin:"]),
    Case(27, "proc-environ", {"environ": b"PATH=/usr/bin\0PGPASSWORD=Pg-Env-1\0MYSQL_PWD=My-Env-2\0"
                              b"AWS_SECRET_ACCESS_KEY=" + AWS_SECRET.encode() + b"\0HOME=/root\0"},
         ["Pg-Env-1", "My-Env-2", AWS_SECRET], keep=["PATH=/usr/bin", "HOME=/root"]),
    Case(28, "netrc-pgpass", {".netrc": "machine api.example.com login bob password Netrc-Pw-7\n",
                              ".pgpass": "db.internal:5432:app:bob:Pg-Pass-8\n"}, ["Netrc-Pw-7", "Pg-Pass-8"]),
    Case(29, "ado-odbc", {"c.txt": 'Server=db;User Id=sa;Password="a;b=c-Ado";Database=x\nDriver={x};Pwd={od}}bc-9};\n'},
         ["a;b=c-Ado", "od}}bc-9"], keep=["Database=x"]),
    Case(30, "urls", {"u.log": "postgres://u:Pg-Url-1@h/db mongodb+srv://u:p@ss-Mongo2@cluster0.example.net/ "
                      "redis://:Redis-Pw-3@h:6379 amqp://guest:Amqp-Pw-4@h jdbc:mysql://h/db?user=u&password=Jdbc-Pw-5\n"},
         ["Pg-Url-1", "p@ss-Mongo2", "ss-Mongo2", "Redis-Pw-3", "Amqp-Pw-4", "Jdbc-Pw-5"], keep=["cluster0.example.net"]),
    Case(31, "http-headers", {"h.txt": f"Authorization: Bearer {rand(ALNUM, 40, 'bear')}\nAuthorization: Token tok-{rand(ALNUM, 20, 't')}\n"
                              "Proxy-Authorization: Basic " + b64("px:Proxy-Pw-6") + f"\nX-Api-Key: {rand(ALNUM, 32, 'xak')}\n"
                              f"X-Auth-Token: {rand(ALNUM, 32, 'xat')}\nCookie: sid={rand(ALNUM, 26, 'sid')}; theme=dark\n"
                              f"Set-Cookie: session={rand(ALNUM, 30, 'sc')}; Path=/; HttpOnly; Secure\n"},
         [rand(ALNUM, 40, "bear"), "tok-" + rand(ALNUM, 20, "t"), "Proxy-Pw-6", rand(ALNUM, 32, "xak"),
          rand(ALNUM, 32, "xat"), rand(ALNUM, 26, "sid"), rand(ALNUM, 30, "sc")], keep=["Path=/; HttpOnly; Secure"]),
    Case(32, "non-standard-keys", {"c.json": json.dumps({"pw": "Pw-Short-1", "passphrase": "Phrase-2x", "sharedKey": "Shared-3x",
                                                         "client_secret": "Client-4x", "webhook_url": "https://h.example/hook/Wh-5x"}),
                                   ".env": "NOTIFY_WEBHOOK_URLS=https://ntfy.example/Nt-6x\nDASHBOARD_AUTH_HASH_B64=JDJ5JDEwJGFiY2Q=\n"},
         ["Pw-Short-1", "Phrase-2x", "Shared-3x", "Client-4x", "Wh-5x", "Nt-6x", "JDJ5JDEwJGFiY2Q="]),
    Case(33, "spaces-and-quotes", {"c.yaml": "password: \"pa ss'word-1\"\n", "c.sh": "password='p\"q-word-2'\n",
                                   "c.ini": "password = hunter2-word-3 # comment kept\n"},
         ["pa ss'word-1", 'p"q-word-2', "hunter2-word-3"], keep=["# comment kept"]),
    Case(34, "many-on-one-line", {"l.log": f"token={GH} password=Many-Pw-1 url=https://u:Many-Pw-2@h/x\n"}, [GH, "Many-Pw-1", "Many-Pw-2"]),
    Case(35, "same-secret-three-syntaxes", {"app.conf": "db_password=Tr1ple-S3cret!\n",
                                           "access.log": "GET /x?p=Tr1ple-S3cret%21 200\n",
                                           "trace.log": 'Traceback: connect("Tr1ple-S3cret!") failed\n'},
         ["Tr1ple-S3cret!", "Tr1ple-S3cret%21"]),
    Case(36, "no-delimiter-xml-ini", {"a.log": "token:abc123def456x,next=1\n", "n.config": '<add key="ClearTextPassword" value="Nuget-Pw-7" />\n'
                                      "<password>Xml-Pw-8</password>\n", "credentials": f"[default]\naws_secret_access_key = {AWS_SECRET}\n"},
         ["abc123def456x", "Nuget-Pw-7", "Xml-Pw-8", AWS_SECRET], keep=["next=1"]),
    Case(37, "short-human-passwords", {"c.env": "DB_PASSWORD=hunter2\nADMIN_PASSWORD=Winter2026!\n"}, ["hunter2", "Winter2026!"]),
    # D. Known-format tokens
    Case(38, "aws", {"credentials": f"[default]\naws_access_key_id = {AKIA}\naws_secret_access_key = {AWS_SECRET}\n"
                     f"[tmp]\naws_access_key_id={ASIA}\naws_session_token={SESSION}\n"}, [AKIA, AWS_SECRET, ASIA, SESSION]),
    Case(39, "github-gitlab", {"t.log": f"{GH} {GHO} {GHS}\n{GHPAT}\n{GLPAT} {GLRT}\n"}, [GH, GHO, GHS, GHPAT, GLPAT, GLRT]),
    Case(40, "slack", {"s.log": f"{SLACK_B} {SLACK_P} {XAPP} https://hooks.slack.com/services/{HOOK}\n"}, [SLACK_B, SLACK_P, XAPP, HOOK]),
    Case(41, "jwt-jwe", {"j.log": f"a {JWT}\nb {JWT_NONE}\nc {JWE}\nhttps://app/cb#id_token={JWT}&x=1\n"}, [JWT, JWT_NONE, JWE]),
    Case(42, "gcp-azure", {"g.log": f"key={AIZA}\n", "sa.json": json.dumps(GCP_SA),
                           "az.txt": f"DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={AZURE_KEY};EndpointSuffix=core.windows.net\n"
                           f"https://acme.blob.core.windows.net/c/b?sv=2022-11-02&ss=b&sig={SAS_SIG}&se=2026\n"},
         [AIZA, AZURE_KEY, SAS_SIG, GCP_SA["private_key_id"]] + P8_BODY, keep=["AccountName=acme", "sv=2022-11-02"]),
    Case(43, "saas-keys", {"k.log": f"{STRIPE} {RK}\n{OPENAI}\n{OPENAI_OLD}\n{ANTHROPIC}\n{NPM}\n{PYPI}\n{SENDGRID}\n{VAULT}\n"
                           f"datadog api_key={DATADOG}\n"},
         [STRIPE, RK, OPENAI, OPENAI_OLD, ANTHROPIC, NPM, PYPI, SENDGRID, VAULT, DATADOG]),
    # E. PII / identifiers
    Case(44, "emails", {"m.log": 'to alice+ops@mail.corp.example.com, mailto:bob@example.org, "Carol D" <carol.d@sub.example.net>,'
                        " DAVE@EXAMPLE.COM\n"},
         ["alice+ops@mail.corp.example.com", "bob@example.org", "carol.d@sub.example.net", "DAVE@EXAMPLE.COM"], keep=["Carol D"]),
    Case(45, "ipv4", {"n.log": "net 10.20.30.0/24 host 10.20.30.41:8080 peer [10.20.30.42] X-Forwarded-For: 198.51.100.7, 10.20.30.43\n"},
         ["10.20.30.41", "10.20.30.42", "198.51.100.7", "10.20.30.43"], policy={"obfuscate_network": True}),
    Case(46, "ipv6", {"n6.log": "a 2001:0db8:85a3:0000:0000:8a2e:0370:7334 b 2001:db8::8a2e:370:7335 c fe80::1ff:fe23:4567:890a%eth0 "
                      "d [2001:db8::1]:443 e ::ffff:10.1.2.3\n"},
         ["2001:0db8:85a3:0000:0000:8a2e:0370:7334", "2001:db8::8a2e:370:7335", "fe80::1ff:fe23:4567:890a",
          "2001:db8::1]", "10.1.2.3"], keep=["%eth0"], policy={"obfuscate_network": True}),
    Case(47, "ips-in-hostnames", {"h.log": "node ip-10-1-2-3.ec2.internal and dhcp-192-168-0-66 and abc-10.159.14.1\n"},
         ["10-1-2-3", "192-168-0-66", "10.159.14.1"], policy={"obfuscate_network": True}),
    Case(48, "macs", {"ip.txt": "link/ether aa:bb:cc:dd:ee:01 brd ff:ff:ff:ff:ff:ff\nwin AA-BB-CC-DD-EE-02\ncisco aabb.ccdd.ee03\n"
                      "ib 80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:01:23:45\n"},
         ["aa:bb:cc:dd:ee:01", "AA-BB-CC-DD-EE-02", "aabb.ccdd.ee03", "fe:80:00:00:00:00:00:00:00:02:c9:03"],
         policy={"obfuscate_network": True}),
    Case(49, "hostnames", {"syslog": "Nov 29 12:00:01 db01 postgres[9]: ready\nNov 29 12:00:02 db01-old kernel: up\n",
                           "hosts": "10.0.0.5 db01.corp.acme-internal.com db01\n", "app.log": "connecting to db01 and db01-old now\n"},
         ["db01", "acme-internal", "db01-old"], policy={"obfuscate_network": True, "known_hosts": ("db01.corp.acme-internal.com",)}),
    Case(50, "usernames", {"u.log": "open /home/alicia/.bashrc\nC:\\Users\\alicia\\AppData\nuid=1000(alicia) gid=1000\n"
                           "sshd[1]: Accepted publickey for alicia from 10.0.0.9 port 22\n"},
         ["alicia"], keep=["uid=1000(", "/home/"], policy={"obfuscate_network": True}),
    Case(51, "identifiers-in-member-names", {"pods/payments_api-7f9_alice@acme-corp.com/0.log": "ok\n",
                                            "sosreport-db01.corp.acme-internal.com/x.txt": "ok\n"},
         ["alice@acme-corp.com", "db01", "acme-internal"],
         policy={"obfuscate_network": True, "known_hosts": ("db01.corp.acme-internal.com",)}),
    Case(52, "customer-literal", {"l.log": "Tenant ACME ready; acmecorp-billing up; project-Acme-prod\n"},
         ["ACME", "acme", "Acme"], keep=["Tenant", "ready", "-billing up", "project-", "-prod"], policy={"keywords": ("acme",)}),
    # F. Precision decoys
    Case(53, "ids-and-digests", {"d.log": "req 123e4567-e89b-12d3-a456-426614174000 trace 4bf92f3577b34da6a3ce929d0e0e4736 "
                                 "commit 3f9a1c2b4d5e6f708192a3b4c5d6e7f8091a2b3c image@sha256:" + "ab" * 32 + " "
                                 "integrity sha512-" + rand(B64, 86, "sri") + "==\n"},
         keep=["123e4567-e89b-12d3-a456-426614174000", "4bf92f3577b34da6a3ce929d0e0e4736",
               "3f9a1c2b4d5e6f708192a3b4c5d6e7f8091a2b3c", "sha256:" + "ab" * 32, "sha512-" + rand(B64, 86, "sri")]),
    Case(54, "versions-like-ips", {"rpms": "389-ds-base-1.3.4.0 v2.1.1.108 oid 1.3.6.1.4.1.311 sos-4.5.3-5.el8\n"},
         keep=["389-ds-base-1.3.4.0", "v2.1.1.108", "1.3.6.1.4.1.311", "sos-4.5.3-5.el8"], policy={"obfuscate_network": True}),
    Case(55, "timestamps", {"t.log": "at 16:00:01 took 12:34:56:78 and 00:00:00.000\n"},
         keep=["16:00:01", "12:34:56:78", "00:00:00.000"], policy={"obfuscate_network": True}),
    Case(56, "placeholders", {"p.env": "A_PASSWORD=${DB_PASSWORD}\nB_PASSWORD={{ .Values.password }}\nC_PASSWORD=<redacted>\n"
                              "D_PASSWORD=********\nE_PASSWORD=REDACTED\nF_PASSWORD=\nG_PASSWORD=changeme\n"},
         ["changeme"], keep=["${DB_PASSWORD}", "{{ .Values.password }}", "<redacted>", "********", "=REDACTED", "F_PASSWORD=\n"]),
    Case(57, "keyword-lookalikes", {"k.conf": "keyboard=us\nmonkey=see\ntokenizer: bpe\nauthorName: Bob Smith\npassthrough=true\n"
                                    "secretary: Jane\n"},
         keep=["keyboard=us", "monkey=see", "tokenizer: bpe", "authorName: Bob Smith", "passthrough=true", "secretary: Jane"]),
    Case(58, "public-material", {"pub": CERT + "\nssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rand(B64, 43, "pk") + " ops@bastion\n"},
         keep=CERT_BODY + ["AAAAC3NzaC1lZDI1NTE5AAAAI" + rand(B64, 43, "pk"), "ops@bastion"]),
    Case(59, "benign-blobs", {"b.html": '<img src="data:image/png;base64,' + b64(bytes(range(256)) * 4) + '">\n',
                              "w.txt": "labels gAWVHgAAAAAAAAB9lIwEem9uZZSMAWGUjAR0aWVylIwEZ29sZJR1Lg==\n"},
         keep=[b64(bytes(range(256)) * 4), "gAWVHgAAAAAAAAB9lIwEem9uZZSMAWGUjAR0aWVylIwEZ29sZJR1Lg=="]),
    Case(60, "already-redacted", {"r.log": "password=[REDACTED:password:3f9a1c2b] token [REDACTED:jwt:0011aabb]\n"},
         keep=["password=[REDACTED:password:3f9a1c2b] token [REDACTED:jwt:0011aabb]"]),
    Case(61, "low-entropy-and-loopback", {"m.log": "reg 0x0000000000000000 on localhost 127.0.0.1 0.0.0.0 ::1\n"},
         keep=["0x0000000000000000", "localhost", "127.0.0.1", "0.0.0.0", "::1"], policy={"obfuscate_network": True}),
    # G. Stream and container mechanics (62, 63, 69 are in test_stream.py / test_tree.py)
    Case(64, "journald-split", {"j.log": "Nov 29 12:00:01 h app[7]: " + "x" * 40 + " password=\nNov 29 12:00:01 h app[7]: Split-Pw-64 tail\n"},
         ["Split-Pw-64"], keep=["tail"]),
    Case(65, "line-endings-nul", {"a.log": "password=NoNewline-65", "b.log": "x\rtoken=Cr-Only-65b\ry\r",
                                  "c.log": b"a\0password=Nul-Pw-65c\0b\n"}, ["NoNewline-65", "Cr-Only-65b", "Nul-Pw-65c"]),
    Case(66, "invalid-utf8", {"l.log": b"\xff\xfe\xe9password=Latin-Pw-66\xe9\xff next\n"}, ["Latin-Pw-66"], keep=["next"]),
    Case(67, "nested-compressed", {"old.log.gz": gzip.compress(b"rotated password=Gz-Pw-67\n", mtime=0),
                                   "inner.zip": b"PK\x03\x04" + b"\0" * 26 + b"password=Zip-Pw-67",
                                   "inner.tar": b"x" * 257 + b"ustar\0" + b"\0" * 250 + b"password=Tar-Pw-67"},
         ["Gz-Pw-67", "Zip-Pw-67", "Tar-Pw-67"], refused=["inner.zip", "inner.tar"]),
    Case(68, "binary-files", {"flux.db": b"SQLite format 3\0" + b"\0" * 100 + b"session_token=Db-Tok-68",
                              "core": b"\x7fELF" + b"\0" * 60 + b"password=Core-Pw-68"},
         ["Db-Tok-68", "Core-Pw-68"], refused=["flux.db", "core"]),
    Case(70, "ansi-and-progress", {"t.log": "pass\x1b[0mword=Ansi-Pw-70\ndl 10%\rtoken=Prog-Tok-70\r\npassword\t=\tTab-Pw-70\n"},
         ["Ansi-Pw-70", "Prog-Tok-70", "Tab-Pw-70"]),
    Case(71, "zero-width-homoglyphs", {"z.log": "pa\u200bssword=Zw-Pw-71\n\u0440assword=Cyr-Pw-71\n"}, ["Zw-Pw-71", "Cyr-Pw-71"]),
]  # fmt: skip
