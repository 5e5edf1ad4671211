"""Base classes for every bundler data contract.

Two directions of data flow, two bases (the Prefect pattern):

* :class:`RecordModel` is for data *read back* from a bundle or a product API.
  Bundles written by a newer bundler, or products newer than us, may carry
  fields we do not know, so unknown fields are accepted and kept
  (``extra="allow"``) rather than rejected: a newer minor format must open.
* :class:`InputModel` is for what a person writes (inventories, custom rules,
  scenario files). A typo there must fail loudly, so unknown fields are
  forbidden.

Both are frozen-free on purpose: collectors fill records incrementally.

Both refuse numbers that are not finite (``allow_inf_nan=False``) in every
float field of every model, nested or not. Python's ``json`` reads
``NaN``, ``Infinity`` and ``1e400`` (as ``inf``), no bundler writes them
(pydantic serializes a non-finite float as ``null``), and none is a
duration, an age, a size or a count: a document holding one is invalid, with
a named problem, like any other value a reader cannot account for, instead
of printing ``inf s`` or breaking arithmetic and ordering later.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, ClassVar, TypeVar, cast

from pydantic import AfterValidator, BaseModel, ConfigDict

M = TypeVar("M", bound=BaseModel)


class RecordModel(BaseModel):
    """A record read from a bundle or a product; tolerant of newer fields."""

    model_config = ConfigDict(
        extra="allow", populate_by_name=True, use_enum_values=False, allow_inf_nan=False
    )


class ManyRecord(RecordModel):
    """A record a bundle holds by the thousand (a collector's outcome, a member's entry).

    Pydantic keeps, per instance, the set of fields given at construction (for
    ``exclude_unset``, which bundler never uses): for a collector outcome that set was
    728 of its 1,588 bytes, ~7 MB of a 1,000-host doctor run. Every instance of a
    ManyRecord class shares one set naming all its fields instead: every field counts as
    set, as it does for a record read back from JSON, and assignment still works (adding
    a name already in the set changes nothing).
    """

    _every_field: ClassVar[set[str] | None] = None

    def model_post_init(self, context: Any, /) -> None:
        every = type(self).__dict__.get("_every_field")
        if every is None:
            every = set(type(self).model_fields)
            type.__setattr__(type(self), "_every_field", every)
        if self.__pydantic_extra__:  # declared fields are in it already; extras named too
            every.update(self.__pydantic_extra__)
        object.__setattr__(self, "__pydantic_fields_set__", every)


SHARED_MAX = 4096
_SHARED: dict[tuple[Any, ...], BaseModel] = {}


def shared_records(records: list[M]) -> list[M]:
    """Equal flat records as one read-only instance (an ``AfterValidator`` of a list field).

    A fleet's workers run one image: a worker listing repeats the same dozen package
    records a thousand times, each ~550 bytes as a model (two thirds of a worker record).
    A record whose values are all hashable (strings, numbers, None) and that has no
    unknown fields is shared with every equal one; others keep their own instance.
    Records read from a bundle are never changed, which is what makes sharing safe.
    """
    if len(_SHARED) > SHARED_MAX:
        _SHARED.clear()
    shared = []
    for record in records:
        if record.__pydantic_extra__:
            shared.append(record)
            continue
        # each value with its type: 1, 1.0 and True are equal keys, not equal records
        key = (type(record), *((type(v), v) for v in record.__dict__.values()))
        try:
            shared.append(cast(M, _SHARED.setdefault(key, record)))
        except TypeError:  # a list or dict inside: not flat
            shared.append(record)
    return shared


class InputModel(BaseModel):
    """Something a person wrote; strict, so typos fail at load time."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, allow_inf_nan=False)


def _require_utc(value: datetime) -> datetime:
    """Bundles compare times from several hosts, so every time carries UTC.

    An offset can carry a time past the range ``datetime`` holds in UTC
    (``0001-01-01T00:00:00+05:00``, ``9999-12-31T23:59:59-05:00``), and
    ``astimezone`` then raises ``OverflowError``, which pydantic does not turn
    into a validation error: it is re-raised as a ``ValueError`` so the document
    is invalid (a named problem), never an internal error.
    """
    if value.tzinfo is None:
        raise ValueError("timestamp must carry a UTC offset (naive times are ambiguous)")
    try:
        return value.astimezone(UTC)
    except OverflowError:
        raise ValueError("timestamp is out of range once converted to UTC") from None


UTCDateTime = Annotated[datetime, AfterValidator(_require_utc)]
"""A timezone-aware timestamp, normalized to UTC."""


def utc_now() -> datetime:
    """Current time in UTC (patched by freezegun in tests)."""
    return datetime.now(UTC)
