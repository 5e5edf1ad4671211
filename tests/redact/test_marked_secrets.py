"""Values their own document marks secret, under keys that name nothing secret.

A Terraform state keeps ``random_password``'s ``result`` under a plain name (the
provider's schema says it is sensitive; the state does not), an output marked
``"sensitive": true``, and the attributes its ``sensitive_attributes`` lists; ``terraform
show -json`` marks them in ``sensitive_values``; GitLab and Azure DevOps list CI variables
with ``masked`` or ``isSecret``; AWS SSM returns a ``SecureString`` decrypted under
``Value``. Each of these reached the bundle before, and ``review`` passed it.
"""

from __future__ import annotations

import json

import pytest
import yaml

from tests.support.redaction import gone_and_reviewed, pass_one


def _state() -> dict[str, object]:
    password = {
        "mode": "managed",
        "type": "random_password",
        "name": "db",
        "instances": [
            {
                "schema_version": 3,
                "attributes": {"id": "none", "length": 16, "result": "hTqbNxqWzmKkpRes"},
                "sensitive_attributes": [],
            }
        ],
    }
    marked = {
        "mode": "managed",
        "type": "aws_instance",
        "name": "worker",
        "instances": [
            {
                "attributes": {"ami": "ami-0abc1234", "user_data": "docker-login-pw-abc"},
                "sensitive_attributes": [[{"type": "get_attr", "value": "user_data"}]],
            }
        ],
    }
    suffix = {
        "mode": "managed",
        "type": "random_string",
        "name": "suffix",
        "instances": [{"attributes": {"result": "k3x9q2", "length": 6}}],
    }
    return {
        "version": 4,
        "outputs": {
            "dsn": {"value": "pgsql-conn-hunter2", "type": "string", "sensitive": True},
            "login": {
                "value": {"user": "svc-flux", "secret_word": "tiger-lily-99"},
                "type": ["object", {"user": "string", "secret_word": "string"}],
                "sensitive": True,
            },
            "region": {"value": "eu-west-1", "type": "string"},
        },
        "resources": [password, marked, suffix],
    }


STATE_SECRETS = ["hTqbNxqWzmKkpRes", "docker-login-pw-abc", "pgsql-conn-hunter2", "svc-flux"]
STATE_EVIDENCE = ["eu-west-1", "k3x9q2", "ami-0abc1234", "random_password", '"length": 16']


@pytest.mark.parametrize("name", ["terraform.tfstate", "terraform.tfstate.backup"])
def test_a_terraform_state_loses_what_its_schema_and_its_outputs_mark_sensitive(
    name: str,
) -> None:
    out = gone_and_reviewed(name, json.dumps(_state(), indent=2).encode(), STATE_SECRETS)
    for kept in STATE_EVIDENCE:
        assert kept.encode() in out, kept


def test_terraform_show_json_loses_its_sensitive_values() -> None:
    plan = {
        "format_version": "1.2",
        "values": {
            "root_module": {
                "resources": [
                    {
                        "address": "random_password.db",
                        "type": "random_password",
                        "values": {"length": 20, "result": "pLanPw-zzQ-81"},
                        "sensitive_values": {},
                    },
                    {
                        "address": "null_resource.hook",
                        "type": "null_resource",
                        "values": {"id": "123", "triggers": {"token_blob": "trig-9x-77"}},
                        "sensitive_values": {"triggers": True},
                    },
                    {
                        "address": "aws_instance.w",
                        "type": "aws_instance",
                        "values": {"ami": "ami-0abc", "tags": {"Deploy": "nested-s3cret-4"}},
                        "sensitive_values": {"tags": {"Deploy": True}},
                    },
                ]
            }
        },
    }
    out = gone_and_reviewed(
        "plan.json", json.dumps(plan).encode(), ["pLanPw-zzQ-81", "trig-9x-77", "nested-s3cret-4"]
    )
    assert b'"address": "null_resource.hook"' in out
    assert b'"ami": "ami-0abc"' in out


def test_ci_variables_marked_masked_or_secret_lose_their_values() -> None:
    gitlab = [
        {"variable_type": "env_var", "key": "DB_HOST", "value": "db.internal", "masked": False},
        {"variable_type": "env_var", "key": "DEPLOY_BLOB", "value": "blob-val-x1", "masked": True},
    ]
    out = gone_and_reviewed("variables.json", json.dumps(gitlab).encode(), ["blob-val-x1"])
    assert b"db.internal" in out
    assert b"DEPLOY_BLOB" in out
    azure = {
        "variables": {
            "conn": {"value": "azure-conn-q7", "isSecret": True},
            "zone": {"value": "westeurope"},
        }
    }
    out = gone_and_reviewed("pipeline.yaml", yaml.safe_dump(azure).encode(), ["azure-conn-q7"])
    assert b"westeurope" in out


def test_an_ssm_secure_string_read_with_decryption_loses_its_value() -> None:
    parameters = {
        "Parameters": [
            {
                "Name": "/prod/flux/dsn",
                "Type": "SecureString",
                "Value": "ssm-dsn-v4lue",
                "Version": 3,
            },
            {"Name": "/prod/flux/region", "Type": "String", "Value": "eu-central-1", "Version": 1},
        ]
    }
    out = gone_and_reviewed("ssm.json", json.dumps(parameters).encode(), ["ssm-dsn-v4lue"])
    assert b"eu-central-1" in out
    assert b"/prod/flux/dsn" in out


def test_a_false_or_quoted_mark_marks_nothing() -> None:
    """Only the boolean ``true`` marks: ``"sensitive": "true"`` is not what Terraform writes,
    and a ``secret`` key holding a string is a secret under its own name, for the key rules."""
    doc = [
        {"value": "visible-one", "sensitive": False},
        {"value": "visible-two", "masked": "true"},
    ]
    data = json.dumps(doc).encode()
    assert pass_one("vars.json", data) == data
