"""The built-in rule catalog and its identity (id + sha256 of the definitions).

The catalog is data: :data:`BUILTIN_RULES` lists every rule with its kind,
category, description, and the examples it must redact and the decoys it must
leave. The rule-set hash goes into every redaction report, so a reviewer can
tell exactly which rules a bundle was redacted with.
"""

from __future__ import annotations

import hashlib

from ..rules import Rule
from .argpairs import RCLONE_CONFIG
from .auditd import AUDIT_RULES
from .authcommands import MONGO_AUTH, REDIS_AUTH
from .chpasswd import CHPASSWD_INPUT
from .context import CONTEXT_RULES, KV_RULES, SQL_RULES
from .hashes import HASH_RULES
from .kubeadm import KUBEADM_TOKEN
from .lookups import LOOKUP_FALLBACK
from .multipart import MULTIPART_FIELD
from .netdevice import NETWORK_DEVICE_SECRET
from .oracle import ORACLE_JDBC_LOGON, ORACLE_LOGON
from .positional import POSITIONAL_RULES
from .prefixed import PREFIXED_RULES
from .printedsecrets import ELASTIC_RESET, PRINTED_SECRET
from .quotedargv import QUOTED_ARGV
from .secretcommands import SECRET_STORE_COMMAND, SECURESTRING
from .serverconf import ERLANG_SECRET, HEADER_DIRECTIVE, JAAS_USERS, STATS_AUTH
from .servicecreds import IPSEC_SECRET, REDIS_ACL, SNMP_USER
from .stdin import STDIN_PASSWORD
from .tables import TABLE_COLUMNS
from .tokens import TOKEN_RULES
from .transcripts import TRANSCRIPT_RULES
from .userpass import USER_PASSWORD_FLAG

RULESET_ID = "bundler-builtin/1"

BUILTIN_RULES: tuple[Rule, ...] = (
    *TOKEN_RULES,
    *PREFIXED_RULES,
    *HASH_RULES,
    *KV_RULES,
    *CONTEXT_RULES,
    *SQL_RULES,
    NETWORK_DEVICE_SECRET,
    *POSITIONAL_RULES,
    REDIS_AUTH,
    MONGO_AUTH,
    *TRANSCRIPT_RULES,
    *AUDIT_RULES,
    SECRET_STORE_COMMAND,
    SECURESTRING,
    HEADER_DIRECTIVE,
    ERLANG_SECRET,
    STATS_AUTH,
    JAAS_USERS,
    RCLONE_CONFIG,
    ORACLE_LOGON,
    ORACLE_JDBC_LOGON,
    STDIN_PASSWORD,
    CHPASSWD_INPUT,
    USER_PASSWORD_FLAG,
    QUOTED_ARGV,
    LOOKUP_FALLBACK,
    TABLE_COLUMNS,
    KUBEADM_TOKEN,
    IPSEC_SECRET,
    REDIS_ACL,
    SNMP_USER,
    MULTIPART_FIELD,
    PRINTED_SECRET,
    ELASTIC_RESET,
)

FORMAT_RULE_IDS = frozenset(rule.id for rule in (*TOKEN_RULES, *PREFIXED_RULES))
"""Rules that recognise a credential by its format: what they find is propagated even when
it does not look random (``glsoat-vrhiuwgjkxarhxpnpaoo``)."""

EXTRA_KINDS = (
    "private-key",
    "putty-private-key",
    "k8s-secret",
    "keyword",
    "custom",
    "url-token",
    "basic-auth",
    "bearer-token",
    "flux-token",
    "session-token",
    "exec-token",
    "bootstrap-token",
    "enrollment-secret",
    "lyftdata-secret",
    "private-key-id",
    "gcp-api-key",
    "age-secret-key",
    "grafana-token",
    "anthropic-key",
    "high-entropy",
    "ipv4",
    "ipv6",
    "mac",
    "hostname",
    "username",
    "sql-secret",
)
"""Kinds produced by the PEM scanner, the structure pass and key-name mapping."""


def ruleset_sha256(rules: tuple[Rule, ...] = BUILTIN_RULES) -> str:
    digest = hashlib.sha256(RULESET_ID.encode())
    for rule in rules:
        digest.update(rule.fingerprint().encode())
    return digest.hexdigest()


def all_kinds() -> set[str]:
    return {rule.kind for rule in BUILTIN_RULES} | set(EXTRA_KINDS)
