"""Secrets in the configuration of the pipelines around a worker fleet: the log shippers
that carry its logs (Fluent Bit, Fluentd), the broker it reads from (Kafka's JAAS users),
the flow engine beside it (NiFi's sensitive-properties key). Each reached the bundle before.
"""

from __future__ import annotations

import pytest

from tests.support.redaction import gone_and_reviewed

FLUENT_BIT = """\
[SERVICE]
    Flush        5
    Log_Level    info
    HTTP_Server  On

[OUTPUT]
    Name            es
    Match           flux.*
    Host            es.internal
    HTTP_User       elastic
    HTTP_Passwd     fb-es-Pw-71
    tls.verify      Off

[OUTPUT]
    Name        http
    Header      Authorization Bearer fb-hdr-tok-22
    Header      X-Source flux
"""

FLUENTD = """\
<source>
  @type forward
  <security>
    self_hostname worker-3
    shared_key fd-shared-key-9
  </security>
</source>
<match flux.**>
  @type elasticsearch
  user fluentd
  password fd-es-pw-3
  ssl_verify false
</match>
<match s3.**>
  @type s3
  aws_sec_key fd-aws-sec-4
  s3_bucket logs
</match>
"""

KAFKA_JAAS = """\
KafkaServer {
  org.apache.kafka.common.security.plain.PlainLoginModule required
  username="admin"
  password="kafka-adm1n-pw"
  user_admin="kafka-adm1n-pw"
  user_alice="kafka-al1ce-pw";
};
Server {
  org.apache.zookeeper.server.auth.DigestLoginModule required
  user_super="zk-sup3r-pw";
};
"""

CASES = {
    "fluent-bit.conf": (
        FLUENT_BIT,
        ["fb-es-Pw-71", "fb-hdr-tok-22"],
        ["HTTP_User       elastic", "Header      X-Source flux", "tls.verify      Off"],
    ),
    "td-agent.conf": (
        FLUENTD,
        ["fd-shared-key-9", "fd-es-pw-3", "fd-aws-sec-4"],
        ["self_hostname worker-3", "user fluentd", "ssl_verify false", "s3_bucket logs"],
    ),
    "kafka_server_jaas.conf": (
        KAFKA_JAAS,
        ["kafka-adm1n-pw", "kafka-al1ce-pw", "zk-sup3r-pw"],
        ['username="admin"', "user_alice=", "user_super="],
    ),
    "nifi.properties": (
        "nifi.sensitive.props.key=nifi-props-k3y-1\nnifi.sensitive.props.algorithm=NIFI_PBKDF2\n",
        ["nifi-props-k3y-1"],
        ["nifi.sensitive.props.algorithm=NIFI_PBKDF2"],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_pipeline_configuration_loses_its_secrets_and_keeps_its_settings(name: str) -> None:
    text, secrets, settings = CASES[name]
    out = gone_and_reviewed(name, text.encode(), secrets).decode()
    for setting in settings:
        assert setting in out, setting


def test_the_kafka_jaas_option_inline_in_server_properties() -> None:
    line = (
        "listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security"
        '.plain.PlainLoginModule required username="admin" password="kafka-adm1n-pw" '
        'user_admin="kafka-adm1n-pw" user_etl="kafka-etl-pw";\n'
    )
    gone_and_reviewed("server.properties", line.encode(), ["kafka-adm1n-pw", "kafka-etl-pw"])
