"""Data-pipeline engines' configuration: a secret goes whole, in the shapes those files use.

Each of these kept a secret, or part of one, and review called the file clean:

* an XML element's text was cut at its first blank or comma (``<password>correct horse
  battery</password>`` kept ``horse battery``), and text on a line of its own between the
  tags was not read at all;
* Hadoop's ``<property><name>fs.s3a.secret.key</name><value>X</value></property>`` (and
  ``fs.s3a.secret.key=X``: a dotted property ending in ``.key`` was taken for a file name),
  a Spring bean's ``<property name="password"><value>X</value>``, a .NET setting's,
  a map entry's ``<key>password</key><value>X</value>``;
* Spark's ``spark-defaults.conf``, whose keys and values are parted by blanks;
* Airflow's ``fernet_key``, which encrypts every connection's password.
"""

from __future__ import annotations

import pytest

from tests.support.redaction import gone_and_reviewed, pass_one, reviews_clean

_S = "Qm7rT5vWxK29pLz4"

FILES = {
    "conf/app.xml": (
        f"<db>\n  <password>correct horse, {_S}</password>\n</db>\n",
        f"correct horse, {_S}",
    ),
    "conf/pretty.xml": (f"<db>\n  <password>\n    {_S}\n  </password>\n</db>\n", _S),
    "hadoop/core-site.xml": (
        "<configuration>\n  <property>\n    <name>fs.s3a.secret.key</name>\n"
        f"    <value>{_S}</value>\n  </property>\n</configuration>\n",
        _S,
    ),
    "spring/beans.xml": (
        f'<bean id="ds">\n  <property name="password">\n    <value>{_S}</value>\n'
        "  </property>\n</bean>\n",
        _S,
    ),
    "app/App.config": (
        f'<setting name="ApiKey" serializeAs="String"><value>{_S}</value></setting>\n',
        _S,
    ),
    "conf/map.xml": (f"<entry><key>password</key><value>{_S}</value></entry>\n", _S),
    "hive/hive-site.xml": (
        "<property><name>javax.jdo.option.ConnectionPassword</name>"
        f"<value>{_S}</value></property>\n",
        _S,
    ),
    "spark/conf/spark-defaults.conf": (
        f"spark.master spark://m:7077\nspark.authenticate.secret   {_S}\n",
        _S,
    ),
    "app/etl.properties": (f"db.url jdbc:postgresql://db/etl\ndb.password {_S}\n", _S),
    "logs/driver.log": (f"conf: spark.hadoop.fs.s3a.secret.key={_S}\n", _S),
    "airflow/airflow.cfg": (f"[core]\nfernet_key = {_S}AbCdEfGhIjKlMnOpQrStUvW=\n", _S),
}


@pytest.mark.parametrize("name", FILES)
def test_the_secret_goes_whole_and_the_file_keeps_its_lines(name: str) -> None:
    text, secret = FILES[name]
    data = text.encode()
    gone_and_reviewed(name, data, [secret, *secret.split(", ")])


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("hadoop/core-site.xml", "<property><name>fs.s3a.endpoint</name><value>s3.eu</value>"),
        ("conf/x.xml", "<credentials>\n  <user>etl</user>\n</credentials>\n"),
        ("spark/conf/spark-defaults.conf", "spark.authenticate true\nspark.master local[4]\n"),
        ("logs/ssl.log", "server.key: no such file or directory\n"),
        ("logs/tls.log", "tls.key: permission denied\n"),
    ],
    ids=["endpoint", "nested elements", "spark flags", "key file", "tls key file"],
)
def test_what_names_no_secret_is_kept(name: str, text: str) -> None:
    data = text.encode()
    assert pass_one(name, data) == data


PROXIES_AND_BROKERS = {
    "apache": ('RequestHeader set X-Api-Key "{s}"', "{s}"),
    "haproxy": ('http-request set-header Authorization "Bearer {s}"', "{s}"),
    "nginx": ("    proxy_set_header X-Auth-Token {s};", "{s}"),
    "caddy": ("  header_up X-Vault-Token {s}", "{s}"),
    "rabbitmq advanced.config": (
        '[{{rabbit, [{{default_user, <<"etl">>}}, {{default_pass, <<"{s}">>}}]}}].',
        "{s}",
    ),
}


@pytest.mark.parametrize("name", PROXIES_AND_BROKERS)
def test_a_proxy_header_or_a_broker_password_goes(name: str) -> None:
    """A proxy that adds the control plane's credential itself, and RabbitMQ's Erlang terms:
    the header's name and value are parted by a blank, the atom and the binary by a comma."""
    line, secret = (part.format(s=_S) for part in PROXIES_AND_BROKERS[name])
    data = (line + "\n").encode()
    out = pass_one("conf/" + name, data)
    assert secret.encode() not in out
    assert out.startswith(line.split(secret)[0].encode() + b"[REDACTED:")
    assert not reviews_clean("conf/" + name, data)


def test_proxy_headers_that_name_no_secret_are_kept() -> None:
    data = (
        b"RequestHeader set X-Forwarded-Proto https\n"
        b"proxy_set_header Authorization $http_authorization;\n"
        b'{default_user, <<"etl">>}\n'
        b'cat <<"EOF" > password.txt\n'
    )
    assert pass_one("conf/mixed", data) == data
