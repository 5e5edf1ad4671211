"""Values their own document marks secret, whatever their key is called.

The key rules know secrets by their names (``password``, ``api_key``). Some documents say
so outright instead, and the name then says nothing: a Terraform output ``{"value": "...",
"sensitive": true}``, a GitLab CI variable ``{"key": "DB_HOST", "value": "...", "masked":
true}``, an Azure DevOps variable ``{"value": "...", "isSecret": true}``, an AWS SSM
parameter read with decryption ``{"Name": "/prod/conn", "Type": "SecureString", "Value":
"..."}``. And a Terraform state keeps the results of resources whose provider schema
declares them sensitive under plain names: ``random_password``'s ``result``, recorded in
no ``sensitive_attributes`` list. ``terraform show -json`` spells it out per attribute
(``sensitive_values``).

The structure walk (:mod:`.structure`) asks these of every mapping, so each check is a key
lookup a listing of thousands of mappings pays for in C.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

SENSITIVE_FLAGS = ("sensitive", "masked", "isSecret", "is_secret", "secret")
"""Keys whose value ``true`` marks the same mapping's ``value`` secret (a boolean, never the
string: ``"secret": "x"`` is a secret under its own name, for the key rules)."""

SCHEMA_SENSITIVE: dict[str, tuple[tuple[str, str], ...]] = {
    "random_password": (("result", "password"), ("bcrypt_hash", "password-hash")),
    "random_bytes": (("base64", "secret"), ("hex", "secret")),
    "tls_private_key": (
        ("private_key_pem", "private-key"),
        ("private_key_openssh", "private-key"),
        ("private_key_pem_pkcs8", "private-key"),
    ),
}
"""Terraform resource types whose provider schema marks these attributes sensitive, with
the kind of their value. A state file does not list them (``sensitive_attributes`` holds
only what the configuration marked), so the names are known here."""


def flagged_value(node: dict[Any, Any]) -> str | None:
    """The key of the value ``node`` marks secret itself, if it does: ``value`` beside one of
    :data:`SENSITIVE_FLAGS` set to ``true``; AWS SSM's ``Value`` of a ``SecureString``
    parameter (``aws ssm get-parameters --with-decryption``)."""
    if "value" in node and any(node.get(flag) is True for flag in SENSITIVE_FLAGS):
        return "value"
    if "Value" in node and node.get("Type") == "SecureString":
        return "Value"
    return None


def terraform_secrets(node: dict[Any, Any]) -> Iterator[tuple[str, str, Any]]:
    """(path below ``node``, kind, value) of what a Terraform resource holds secret.

    A state file's resource (``{"type": ..., "instances": [{"attributes": {...},
    "sensitive_attributes": [...]}]}``): the attributes its type's schema marks sensitive,
    and every top-level attribute its ``sensitive_attributes`` names. A resource as
    ``terraform show -json`` prints it (``{"type": ..., "values": {...},
    "sensitive_values": {...}}``): the same schema names, and every attribute whose
    ``sensitive_values`` entry is ``true`` or holds one.
    """
    resource_type = node.get("type")
    schema = SCHEMA_SENSITIVE.get(resource_type, ()) if isinstance(resource_type, str) else ()
    instances = node.get("instances")
    if isinstance(instances, list):
        for index, instance in enumerate(instances):
            if isinstance(instance, dict) and isinstance(instance.get("attributes"), dict):
                attributes = instance["attributes"]
                named = _marked_names(instance.get("sensitive_attributes"))
                yield from _attributes(attributes, f"instances/{index}/attributes", schema, named)
    values = node.get("values")
    if isinstance(values, dict):
        marks = node.get("sensitive_values")
        named = {k for k, v in marks.items() if _marks_any(v)} if isinstance(marks, dict) else set()
        yield from _attributes(values, "values", schema, named)


def _marks_any(mark: Any) -> bool:
    """Whether a ``sensitive_values`` entry marks any part of its attribute: ``true``, or a
    nested object or list holding one (then the whole attribute goes, as a whole output
    does: the marks' shape follows the value's, which this does not walk in step)."""
    if mark is True:
        return True
    if isinstance(mark, dict):
        return any(_marks_any(v) for v in mark.values())
    if isinstance(mark, list):
        return any(_marks_any(v) for v in mark)
    return False


def _attributes(
    attributes: dict[Any, Any],
    path: str,
    schema: tuple[tuple[str, str], ...],
    named: set[str],
) -> Iterator[tuple[str, str, Any]]:
    kinds = dict(schema)
    for name in kinds.keys() | named:
        if name in attributes:
            yield f"{path}/{name}", kinds.get(name, "secret"), attributes[name]


def _marked_names(paths: Any) -> set[str]:
    """The top-level attribute names a state's ``sensitive_attributes`` list marks:
    each path is a list of steps, the first ``{"type": "get_attr", "value": NAME}``."""
    if not isinstance(paths, list):
        return set()
    names = set()
    for steps in paths:
        first = steps[0] if isinstance(steps, list) and steps else None
        if isinstance(first, dict) and first.get("type") == "get_attr":
            name = first.get("value")
            if isinstance(name, str):
                names.add(name)
    return names
