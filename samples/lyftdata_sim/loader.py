"""Finding and reading scenario files, with ``extends`` (start from another scenario)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from .scenario import Scenario, ScenarioError

SCENARIO_DIR = Path(__file__).with_name("scenarios")


def scenario_names() -> list[str]:
    return sorted(p.stem for p in SCENARIO_DIR.glob("*.yaml"))


_IDENTITY_KEYS = ("id", "name", "worker")


def merge(base: Any, override: Any) -> Any:
    """Deep-merge a scenario over the one it ``extends``.

    Mappings merge key by key; lists of records with an identity key (``id``,
    ``name`` or ``worker``) merge item by item (new items appended); any other
    value, including other lists and an explicitly empty list, is replaced.
    """
    if isinstance(base, dict) and isinstance(override, dict):
        merged = dict(base)
        for key, value in override.items():
            merged[key] = merge(base[key], value) if key in base else value
        return merged
    if isinstance(base, list) and isinstance(override, list) and override:
        key = _identity_key(base + override)
        if key is not None:
            merged_list = list(base)
            for item in override:
                index = next((i for i, b in enumerate(merged_list) if b[key] == item[key]), None)
                if index is None:
                    merged_list.append(item)
                else:
                    merged_list[index] = merge(merged_list[index], item)
            return merged_list
    return override


def _identity_key(items: list[Any]) -> str | None:
    if not items or not all(isinstance(i, dict) for i in items):
        return None
    return next((k for k in _IDENTITY_KEYS if all(k in i for i in items)), None)


def _read(name_or_path: str, seen: tuple[str, ...] = ()) -> dict[str, Any]:
    path = Path(name_or_path)
    if not path.suffix:
        path = SCENARIO_DIR / f"{name_or_path}.yaml"
    if str(path) in seen:
        raise ScenarioError(f"scenario {path} extends itself")
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except OSError as exc:
        known = ", ".join(scenario_names())
        raise ScenarioError(
            f"cannot read scenario {name_or_path!r} ({exc.strerror}); known: {known}"
        ) from exc
    except yaml.YAMLError as exc:
        raise ScenarioError(f"scenario {path} is not valid YAML") from exc
    if not isinstance(data, dict):
        raise ScenarioError(f"scenario {path} must be a mapping")
    parent = data.pop("extends", None)
    if parent is None:
        return data
    base = _read(str(path.with_name(f"{parent}.yaml")), (*seen, str(path)))
    base.pop("expect", None)
    return merge(base, data)  # type: ignore[no-any-return]


def load_scenario(name_or_path: str) -> Scenario:
    """A bundled scenario by name, or a scenario file by path; one-line errors.

    ``extends: NAME`` starts from another scenario in the same directory.
    """
    data = _read(name_or_path)
    path = name_or_path
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise ScenarioError(f"scenario {path}: {loc}: {first['msg']}") from exc
