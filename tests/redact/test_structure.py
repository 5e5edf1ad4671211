"""Structure first: documents stay parseable, secrets found by key wherever they sit."""

from __future__ import annotations

import json

import pytest
import yaml

from bundler.source import MemorySource
from redactors import BundleRedactor, NestedTooDeep
from redactors.review import review_source
from redactors.structure import find_secrets
from redactors.walklimits import WALK_DEPTH
from tests.support.redaction import run


def test_json_stays_valid_and_numbers_under_secret_keys_become_strings() -> None:
    doc = {
        "db": {"password": 123456, "port": 5432},
        "pin": 9876,
        "items": [{"token": "t0k-abcdef12"}],
    }
    outputs, _, _ = run({"c.json": json.dumps(doc, indent=2)})
    parsed = json.loads(outputs["c.json"])
    assert parsed["db"]["password"].startswith("[REDACTED:password:")
    assert parsed["db"]["port"] == 5432
    assert parsed["items"][0]["token"].startswith("[REDACTED:")


def test_yaml_stays_valid_and_redacted_scalars_stay_strings() -> None:
    text = (
        "db:\n  password: hunter2-yml\n  host: db\n"
        "token: |\n  multi-line-tok-1\n  multi-line-tok-2\nport: 5432\n"
    )
    outputs, _, _ = run({"c.yaml": text})
    parsed = yaml.safe_load(outputs["c.yaml"])
    assert isinstance(parsed["db"]["password"], str)
    assert parsed["db"]["password"].startswith("[REDACTED:")
    assert parsed["db"]["host"] == "db"
    assert b"multi-line-tok" not in outputs["c.yaml"]
    assert parsed["port"] == 5432


def test_comments_and_layout_survive() -> None:
    text = "# production\ndb:\n    password: 'x-Secret-91'   # rotated monthly\n    pool: 10\n"
    outputs, _, _ = run({"c.yaml": text})
    out = outputs["c.yaml"].decode()
    assert "# production" in out
    assert "# rotated monthly" in out
    assert "    pool: 10" in out


def test_toml_by_key() -> None:
    outputs, _, _ = run(
        {"flux.toml": '[flux.workers]\nbootstrap_token = "Toml-Boot-77"\nheartbeat_interval = 10\n'}
    )
    assert b"Toml-Boot-77" not in outputs["flux.toml"]
    assert b"heartbeat_interval = 10" in outputs["flux.toml"]


def test_unparseable_documents_fall_back_to_line_rules() -> None:
    outputs, _, _ = run({"bad.json": '{"password": "Broken-Json-1", oops'})
    assert b"Broken-Json-1" not in outputs["bad.json"]


def test_redact_object_for_api_responses() -> None:
    redactor = BundleRedactor(key=b"k" * 32)
    response = {
        "workers": [
            {
                "name": "w1",
                "session_token": "0f8a9b7c6d5e4f3a2b1c0d9e8f7a6b5c",
                "labels": {"zone": "a"},
            }
        ],
        "env": [
            {"name": "DB_PASSWORD", "value": "Env-Pw-1"},
            {"name": "LOG_LEVEL", "value": "info"},
        ],
        "note": "contact ops@corp.example.com",
        "count": 3,
    }
    out = redactor.redact_object(response)
    assert out["workers"][0]["name"] == "w1"
    assert out["workers"][0]["session_token"].startswith("[REDACTED:session-token:")
    assert out["workers"][0]["labels"] == {"zone": "a"}
    assert out["env"][0]["value"].startswith("[REDACTED:password:")
    assert out["env"][1]["value"] == "info"
    assert "ops@corp.example.com" not in out["note"]
    assert out["count"] == 3
    # values learned here are propagated to text members later
    text = b"".join(redactor.finalize("x.log", [b"token was Env-Pw-1\n"]))
    assert b"Env-Pw-1" not in text


@pytest.mark.parametrize("depth", [70, 126])
def test_redact_object_redacts_deep_values(depth: int) -> None:
    """Below 64 levels the copy kept every value as it was, a secret under its key too."""
    response: dict[str, object] = {"password": "Deep-Pw-1x", "note": "mail ops@corp.example.com"}
    for _ in range(depth):
        response = {"inner": response}
    out = BundleRedactor(key=b"k" * 32).redact_object(response)
    for _ in range(depth):
        out = out["inner"]
    assert out["password"].startswith("[REDACTED:password:")
    assert "ops@corp.example.com" not in out["note"]


def test_redact_object_refuses_what_it_cannot_walk() -> None:
    """Deeper than the structure walk reads: an error, never a copy with values in clear."""
    response: dict[str, object] = {"password": "Deep-Pw-1x"}
    for _ in range(WALK_DEPTH + 5):
        response = {"inner": response}
    with pytest.raises(NestedTooDeep):
        BundleRedactor(key=b"k" * 32).redact_object(response)


def test_the_same_secret_in_json_and_in_a_log_gets_one_token() -> None:
    outputs, _, _ = run(
        {"a.json": '{"api_key": "Same-Key-12345"}', "b.log": "key Same-Key-12345 used\n"}
    )
    token = json.loads(outputs["a.json"])["api_key"]
    assert token.encode() in outputs["b.log"]


def test_text_rules_never_split_a_json_escape() -> None:
    """A workflow's source in a JSON string holds ``\\n@workflow.with_options``.

    The e-mail rule must not read ``n@workflow.with`` as an address, and no rule may
    replace the letter of an escape sequence: the member must stay valid JSON.
    """
    import json

    from redactors import BundleRedactor

    record = {
        "source": "@workflow\n@workflow.with_options(affinity={'zone': 'a'})\ndef f(): ...",
        "note": "line\n@host.example.com and caf\u00e9@mail.example.org",
        "owner": "alice@example.com",
    }
    raw = json.dumps(record).encode()
    out = b"".join(
        BundleRedactor().transform("raw/http/workflow.json", [raw], media_type="application/json")
    )
    parsed = json.loads(out)
    assert parsed["source"] == record["source"]
    assert "alice@example.com" not in out.decode()
    assert parsed["owner"].startswith("[REDACTED:email:")
    assert "mail.example.org" not in parsed["note"]


def test_a_pagination_cursor_under_value_is_kept_unless_it_holds_a_secret() -> None:
    """A HAR's ``queryString`` pair ``{"name": "cursor", "value": "eyJ..."}``.

    The bare key ``value`` makes a generated-looking value a secret (Ceph keys), but a
    cursor is base64 of a JSON object, encoded text rather than key material: it is kept
    and not learned (pass two would look for it in every member). One that decodes to a
    secret is still replaced, whole, by the decoders.
    """
    import base64

    def cursor(doc: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(doc).encode()).decode().rstrip("=")

    plain = cursor({"offset": 20150, "sort": "created_at", "id": "f842ffee54816052f3c834e2ffbd"})
    secret = cursor({"offset": 50, "password": "Cursor-Held-Pw-9"})
    har = {
        "queryString": [
            {"name": "limit", "value": "8"},
            {"name": "cursor", "value": plain},
            {"name": "cursor", "value": secret},
        ],
        "key": "AQBvbHfOmNDgGxAAvtZ8kRq1Yp2cXwLs3MjEiUaT9Q==",
    }
    outputs, redactor, _ = run({"capture.json": json.dumps(har, indent=2)})
    parsed = json.loads(outputs["capture.json"])
    assert parsed["queryString"][1]["value"] == plain
    assert plain.encode() not in redactor.literals.originals()
    assert parsed["queryString"][2]["value"].startswith("[REDACTED:")
    assert parsed["key"].startswith("[REDACTED:secret-key:")


def test_a_token_in_a_plain_yaml_position_stays_a_string() -> None:
    """Written bare, ``[REDACTED:...]`` is a YAML list: after an anchor or tag, inside a
    flow mapping, or alone under its key it was, and the document then held a list where
    it held a string."""
    secret = "Zq8rT5vW-Kx9wLm2p"
    for text in (
        f"db:\n  password: &pw {secret}\nreplica:\n  password: *pw\n",
        f"password: !!str {secret}\n",
        f"db: {{user: flux, password: {secret}}}\n",
        f"password:\n  {secret}\n",
    ):
        outputs, _, _ = run({"values.yaml": text})
        document = yaml.safe_load(outputs["values.yaml"])
        found = document["db"]["password"] if "db" in document else document["password"]
        assert isinstance(found, str), text
        assert found.startswith("[REDACTED:password:"), text


def test_a_list_under_a_secret_key_keeps_the_document_valid() -> None:
    """The key rule took a list's ``[`` for the value and replaced it: the JSON or YAML
    lost the opener and no longer parsed (``password: []`` in any config)."""
    cases = {
        "one-line.json": ('{"password": ["Zq8rT5vW-1", "Zq8rT5vW-2"], "token": []}\n', "password"),
        "pretty.json": (
            '{\n  "password": [\n    "Zq8rT5vW-1"\n  ],\n  "token": []\n}\n',
            "password",
        ),
        "flow.yaml": ("creds: [a1b2, Zq8rT5vW-Kx9wLm2p]\npassword: []\n", "creds"),
    }
    for name, (text, key) in cases.items():
        outputs, _, _ = run({name: text})
        output = outputs[name]
        load = json.loads if name.endswith(".json") else yaml.safe_load
        document = load(output)  # parses: no opener lost
        assert b"Zq8rT5vW" not in output, name
        assert "REDACTED" in json.dumps(document[key]), name
        assert document.get("token", []) == [], name
    assert yaml.safe_load(run({"e.yaml": "password: []\n"})[0]["e.yaml"]) == {"password": []}


def test_flags_about_auth_are_settings_not_secrets() -> None:
    """Flux's product.json says where each setting came from. ``allow_anonymous`` and
    ``auth_disabled`` name flags: the file a flag was read from is evidence, and redacting
    it replaced the same label everywhere in the document (log_level, server_port)."""
    doc = {
        "settings_sources": {
            "security.auth.allow_anonymous": "flux.toml",
            "security.auth.disabled": "flux.toml",
            "log_level": "flux.toml",
            "server_port": "env",
        },
        "security": {"auth": {"allow_anonymous": "Anon-Yes-91x", "token": "Auth-Token-5521"}},
        "AUTH_DISABLED": "compose.override.yml",
    }
    outputs, _, _ = run({"product.json": json.dumps(doc, indent=2)})
    parsed = json.loads(outputs["product.json"])
    assert parsed["settings_sources"]["security.auth.allow_anonymous"] == "flux.toml"
    assert parsed["settings_sources"]["log_level"] == "flux.toml"
    assert parsed["security"]["auth"]["allow_anonymous"] == "Anon-Yes-91x"
    assert parsed["AUTH_DISABLED"] == "compose.override.yml"
    assert parsed["security"]["auth"]["token"].startswith("[REDACTED:")


INSPECT = (
    "[\n"
    "  {\n"
    '    "Args": [\n'
    '      "--db-password",\n'
    '      "DockerArgPw7",\n'
    '      "--port",\n'
    '      "8080"\n'
    "    ],\n"
    '    "Config": {\n'
    '      "Cmd": [\n'
    '        "/usr/bin/redis-cli",\n'
    '        "-a",\n'
    '        "cobalt-F1nch",\n'
    '        "ping"\n'
    "      ]\n"
    "    }\n"
    "  },\n"
    '  {"Args": ["--token-file", "/var/run/secrets/token", "--api-key", "${API_KEY}"]},\n'
    '  {"Cmd": ["docker", "run", "-p", "8080:80", "nginx"]}\n'
    "]\n"
)
"""``docker inspect`` pretty-printed: each argument on a line of its own, so no line rule
sees a flag beside its value; only the walk does."""


def test_the_walk_reads_a_list_of_arguments_as_a_command_line() -> None:
    found = {(f.path, f.value) for f in find_secrets([json.loads(INSPECT)])}
    assert found == {
        ("/0/Args/1", b"DockerArgPw7"),
        ("/0/Config/Cmd/2", b"cobalt-F1nch"),
    }
    pod = yaml.safe_load(
        "spec:\n  containers:\n  - args: [--api-key, ArgvApiKey12345, --port, '8080']\n"
        "    command: [mysql, -uroot, -pgr4velmoss, app]\n"
        "  - args: [serve, --secret-name, db-creds, --password-file, /etc/pw, -p, '8080']\n"
    )
    assert {(f.path, f.kind, f.value) for f in find_secrets([pod])} == {
        ("/spec/containers/0/args/1", "api-key", b"ArgvApiKey12345"),
        ("/spec/containers/0/command/2", "password", b"gr4velmoss"),
    }


def test_review_finds_an_argument_lists_secret_and_passes_its_redaction() -> None:
    """Review runs the redactor's walk: an argument list left as it was is a finding (no
    line rule sees it), and the redacted member is clean."""
    result = review_source(MemorySource({"docker/inspect.json": INSPECT}))
    found = {(f.line, f.kind) for f in result.findings}
    assert {(5, "password"), (13, "password")} <= found
    assert "DockerArgPw7" not in result.model_dump_json()
    outputs, _, _ = run({"docker/inspect.json": INSPECT})
    parsed = json.loads(outputs["docker/inspect.json"])
    assert parsed[0]["Args"][1].startswith("[REDACTED:password:")
    assert parsed[0]["Config"]["Cmd"][2].startswith("[REDACTED:password:")
    assert parsed[1] == json.loads(INSPECT)[1]
    assert parsed[2] == json.loads(INSPECT)[2]
    assert review_source(MemorySource(outputs)).findings == []
