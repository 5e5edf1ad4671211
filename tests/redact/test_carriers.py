"""Credentials where a worker host keeps them: each carrier's secret is gone, its lines stay.

A sweep of the files and lines a support bundle picks up from a host (``.netrc``,
``.pgpass``, git and AWS credentials, systemd ``Environment=``, JAAS, docker config,
kubeconfig, connection strings, shell history flags, Redis, OpenLDAP and SNMP directives,
password hashes, Java XML properties, PHP ``define``, HTTP Digest, OpenVPN static keys,
HashiCorp SecretIDs, XML CDATA...). Each case: the secret (or the part named in
``MARKERS``) is not in the redacted output, no line is lost, and review finds nothing left.
"""

# ruff: noqa: E501  (each case is one file's line, as a host writes it)

from __future__ import annotations

import base64

import pytest

from bundler.source import MemorySource
from redactors.review import review_source
from tests.support.redaction import run

S = "Zq8rT5vW-Kx9wLm2p"
B = base64.b64encode(b"Zq8rT5vWKx9wLm2pQ7Rt5vW8sN3mL012").decode()
CASES = {
    "netrc": ("x.netrc", f"machine api.example.com login deploy password {S}\n"),
    "netrc2": (".netrc", f"machine api.example.com\n  login deploy\n  password {S}\n"),
    "pgpass": (".pgpass", f"db.internal:5432:flux:flux:{S}\n"),
    "gitcred": (".git-credentials", f"https://deploy:{S}@github.com\n"),
    "aws": (
        "credentials",
        f"[default]\naws_access_key_id = AKIAZ7RT5VWKX9WLM2PQ\naws_secret_access_key = {S}abcdEFGH1234\n",
    ),
    "props": ("app.properties", f"spring.datasource.password={S}\n"),
    "xml": ("conf.xml", f"<config><password>{S}</password></config>\n"),
    "xmlentry": ("conf.xml", f'<entry key="db.password">{S}</entry>\n'),
    "xmlattr": ("conf.xml", f'<datasource user="flux" password="{S}"/>\n'),
    "connstr": ("app.log", f"connecting Server=db;Database=flux;User Id=sa;Password={S};\n"),
    "basic": ("access.log", "GET / Authorization: Basic ZGVwbG95Olpx" + "OHJUNXZXLUt4OXdMbTJw\n"),
    "systemd": ("flux.service", f"[Service]\nEnvironment=FLUX_API_KEY={S}\n"),
    "systemd2": ("flux.service", f'[Service]\nEnvironment="DB_PASSWORD={S}" "X=1"\n'),
    "curl_u": (".bash_history", f"curl -u deploy:{S} https://api.example.com\n"),
    "curl_h": (".bash_history", f"curl -H 'X-API-Key: {S}' https://api.example.com\n"),
    "mysql_p": (".bash_history", f"mysql -u root -p{S} flux\n"),
    "mysql_pw": (".bash_history", f"mysqldump --password={S} flux\n"),
    "redis": ("redis.conf", f"requirepass {S}\nmasterauth {S}\n"),
    "pgalter": ("dump.sql", f"ALTER USER flux WITH PASSWORD '{S}';\n"),
    "jaas": (
        "kafka.properties",
        f'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="flux" password="{S}";\n',
    ),
    "dockercfg": (
        "config.json",
        '{"auths": {"registry.example.com": {"auth": "ZGVwbG95Olpx' + 'OHJUNXZXLUt4OXdMbTJw"}}}\n',
    ),
    "kubeconfig": ("kubeconfig", f"users:\n- name: admin\n  user:\n    token: {S}\n"),
    "htpasswd": (".htpasswd", "deploy:$apr1$Zq8rT5vW$Kx9wLm2pQ7Rt5vW8sN3mL.\n"),
    "shadow": (
        "shadow",
        "root:$6$Zq8rT5vW$Kx9wLm2pQ7Rt5vW8sN3mLZq8rT5vWKx9wLm2pQ7Rt5vW8sN3mLZq8rT5vWKx9wLm2pQ7Rt5vW8s:19000:0:99999:7:::\n",
    ),
    "url_q": ("app.log", f"GET /callback?code=abc&client_secret={S}&x=1\n"),
    "json_log": ("app.log", f'{{"level":"info","msg":"login","password":"{S}"}}\n'),
    "yaml_pw_quoted": ("values.yaml", f'postgresql:\n  auth:\n    password: "{S}"\n'),
    "env_export_quoted": (".env", f"export API_TOKEN='{S}'\n"),
    "ini_colon": ("app.ini", f"[db]\npassword: {S}\n"),
    "docker_run": (".bash_history", f"docker run -e POSTGRES_PASSWORD={S} postgres\n"),
    "helm_set": (".bash_history", f"helm install x --set auth.password={S}\n"),
    "private_token_hdr": ("access.log", f"PRIVATE-TOKEN: {S}\n"),
    "cookie": ("access.log", f"Cookie: sessionid={S}; csrftoken=abc\n"),
    "slack_webhook": (
        "app.log",
        "posting to https://hooks.slack.com/services/T00000000/B00000000/Zq8rT5vWKx9wLm2pQ7Rt5vW8\n",
    ),
    "jdbc": ("app.log", f"jdbc:postgresql://db:5432/flux?user=flux&password={S}\n"),
    "mongodb": ("app.log", f"mongodb+srv://flux:{S}@cluster0.example.net/db\n"),
    "amqp": ("app.log", f"amqp://guest:{S}@rabbit:5672/\n"),
    "ssh_pass": (".bash_history", f"sshpass -p {S} ssh root@10.0.0.1\n"),
    "openssl_pass": (".bash_history", f"openssl enc -aes-256-cbc -pass pass:{S} -in x\n"),
    "vault_token": (
        "app.log",
        "VAULT_TOKEN=hvs.CAESIZq8rT5vWKx9wLm2pQ7Rt5vW8sN3mLZq8rT5vWKx9wLm2\n",
    ),
    "wireguard": (
        "wg0.conf",
        f"[Interface]\nPrivateKey = {B}\nListenPort = 51820\n[Peer]\nPresharedKey = {B}\n",
    ),
    "openvpn": (
        "client.ovpn",
        "<tls-auth>\n-----BEGIN OpenVPN Static key V1-----\nZq8rT5vWKx9wLm2pQ7Rt5vW8sN3mL012\n-----END OpenVPN Static key V1-----\n</tls-auth>\n",
    ),
    "npmrc_auth": (
        ".npmrc",
        f"//registry.example.com/:_auth={B}\n//registry.example.com/:_password={B}\n",
    ),
    "rclone": (
        "rclone.conf",
        f"[s3]\ntype = s3\naccess_key_id = AKIAZ7RT5VWKX9WLM2PQ\nsecret_access_key = {S}abcdEFGH\n",
    ),
    "nslcd": ("nslcd.conf", f"binddn cn=admin,dc=example,dc=com\nbindpw {S}\n"),
    "slapd": ("slapd.conf", "rootpw {SSHA}Zq8rT5vWKx9wLm2pQ7Rt5vW8sN3mL012\n"),
    "snmp": ("snmpd.conf", f"rocommunity {S} default\n"),
    "consul": (
        "acl.json",
        '{"AccessorID": "6a1253d2-1785-24fd-91c2-f8e78c745511", "SecretID": "45a3bd52-07c7-47a4-52fd-0745e0cfe967"}\n',
    ),
    "tfstate": (
        "terraform.tfstate",
        f'{{"resources":[{{"instances":[{{"attributes":{{"master_password":"{S}","private_key_pem":"-----BEGIN RSA PRIVATE KEY-----\\nMIIEowIBAAKCAQEA{B}\\n-----END RSA PRIVATE KEY-----\\n"}}}}]}}]}}\n',
    ),
    "gcp_sa": (
        "sa.json",
        '{"type": "service_account", "private_key_id": "0123456789abcdef0123456789abcdef01234567", "private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC'
        + B
        + '\\n-----END PRIVATE KEY-----\\n"}\n',
    ),
    "kubeconfig_data": (
        "config",
        "users:\n- name: a\n  user:\n    client-key-data: "
        + base64.b64encode(
            b"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAZq8rT5vWKx9wLm2p\n-----END RSA PRIVATE KEY-----\n"
        ).decode()
        + "\n",
    ),
    "digest": (
        "access.log",
        'Authorization: Digest username="deploy", realm="x", nonce="abc", uri="/", response="6629fae49393a05397450978507c4ef1"\n',
    ),
    "amz_token": (
        "access.log",
        "x-amz-security-token: IQoJb3JpZ2luX2VjEZq8rT5vWKx9wLm2pQ7Rt5vW8sN3mL012abc\n",
    ),
    "ansible_become": (
        "inventory.ini",
        f"[web]\nhost1 ansible_become_pass={S} ansible_user=root\n",
    ),
    "php_define": ("wp-config.php", f"define( 'DB_PASSWORD', '{S}' );\n"),
    "python_assign": (
        "settings.py",
        f'SECRET_KEY = "{S}"\nDATABASES = {{"default": {{"PASSWORD": "{S}"}}}}\n',
    ),
    "go_struct": ("main.go", f'cfg := Config{{Password: "{S}"}}\n'),
    "java_str": ("App.java", f'String dbPassword = "{S}";\n'),
    "env_json_escaped": ("app.log", f'msg="{{\\"password\\":\\"{S}\\"}}"\n'),
    "url_encoded_form": (
        "access.log",
        f"POST /login body=username=deploy&password={S}&remember=1\n",
    ),
    "ldap_url": ("app.log", f"ldaps://cn=admin:{S}@ldap.example.com\n"),
    "smb": (".bash_history", f"mount -t cifs //srv/share /mnt -o username=deploy,password={S}\n"),
    "psql_conninfo": (
        "app.log",
        f"host=db port=5432 dbname=flux user=flux password={S} sslmode=require\n",
    ),
    "odbc": ("odbc.ini", f"[flux]\nDriver=PostgreSQL\nPWD={S}\n"),
    "yaml_anchor": ("values.yaml", f"defaults: &d\n  password: {S}\nprod:\n  <<: *d\n"),
    "toml_inline": ("cfg.toml", f'db = {{ user = "flux", password = "{S}" }}\n'),
    "hcl": ("main.tf", f'resource "x" "y" {{\n  password = "{S}"\n}}\n'),
    "xml_cdata": ("conf.xml", f"<password><![CDATA[{S}]]></password>\n"),
    "yaml_binary_tag": ("values.yaml", "password: !!binary WnE4clQ1dlctS3g5d0xtMnA=\n"),
    "yaml_anchor_alias": ("values.yaml", f"db:\n  password: &pw {S}\nreplica:\n  password: *pw\n"),
    "yaml_flow_mapping": ("values.yaml", f"db: {{user: flux, password: {S}}}\n"),
    "yaml_next_line": ("values.yaml", f"password:\n  {S}\n"),
    "log_yaml_anchor": ("app.log", f"config dump password: &pw {S}\n"),
    "env_leading_ampersand": (".env", f"PASSWORD=&{S}\n"),
    "env_bracketed": (".env", f"PASSWORD=[{S}]\n"),
    "telegram_bot_url": (
        "app.log",
        "GET https://api.telegram.org/bot123456789:AAHZq8rT5vWKx9wLm2pQ7Rt5vW8sN3mLZq8/sendMessage\n",
    ),
}
MARKERS = {
    "basic": "OHJUNXZXLUt4OXdMbTJw",
    "dockercfg": "OHJUNXZXLUt4OXdMbTJw",
    "htpasswd": "Kx9wLm2pQ7Rt5vW8sN3mL",
    "shadow": "Kx9wLm2pQ7Rt5vW8sN3mL",
    "slack_webhook": "Zq8rT5vWKx9wLm2pQ7Rt5vW8",
    "vault_token": "Zq8rT5vWKx9wLm2pQ7Rt5vW8",
    "wireguard": B[:20],
    "openvpn": "Zq8rT5vWKx9wLm2pQ7Rt5vW8",
    "npmrc_auth": B[:20],
    "slapd": "Zq8rT5vWKx9wLm2pQ7Rt5vW8",
    "consul": "45a3bd52-07c7",
    "tfstate": S,
    "gcp_sa": B[:20],
    "kubeconfig_data": "LS0tLS1CRUdJTiBSU0Eg",
    "digest": "6629fae49393a0539745",
    "amz_token": "IQoJb3JpZ2luX2VjEZq8",
    "yaml_binary_tag": "WnE4clQ1dlctS3g5d0xtMnA",
}
"""What of each case's secret must not be left (default ``Kx9wLm2p``, inside ``S``)."""


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_secret_goes_and_the_lines_stay(case: str) -> None:
    name, text = CASES[case]
    outputs, _, _ = run({name: text})
    (output,) = outputs.values()
    marker = MARKERS.get(case, "Kx9wLm2p").encode()
    assert marker in text.encode()  # the case plants what it checks for
    assert marker not in output
    assert output.count(b"\n") == text.count("\n")
    assert review_source(MemorySource(outputs)).findings == []
