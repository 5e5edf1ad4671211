"""A raw response against the product's model: where it first differs, record by record."""

from __future__ import annotations

import json

from pydantic import BaseModel

from bundler.collect.validate import check_json


class Worker(BaseModel):
    name: str
    slots: int


MODELS: dict[str, type[BaseModel]] = {"Worker": Worker}


def _check(document: object, schema: str = "Worker[]") -> tuple[bool | None, str | None]:
    result = check_json(json.dumps(document).encode(), schema, MODELS)
    return result.valid, result.problem


def test_a_listing_that_matches_is_valid() -> None:
    assert _check([{"name": f"w{i}", "slots": i} for i in range(50)]) == (True, None)
    assert _check([]) == (True, None)


def test_the_first_record_that_differs_is_named_by_index_and_field() -> None:
    listing = [{"name": "w0", "slots": 1}, {"name": "w1", "slots": 2}, {"name": "w2"}]
    listing.append({"name": 4, "slots": "x"})  # a later mismatch is not the one reported
    valid, problem = _check(listing)
    assert valid is False
    assert problem == "does not match Worker[] at /2/slots: Field required"


def test_a_record_that_is_not_an_object_is_named_by_its_index() -> None:
    valid, problem = _check([{"name": "w0", "slots": 1}, "w1"])
    assert valid is False
    assert problem is not None
    assert problem.startswith("does not match Worker[] at /1: ")


def test_a_listing_that_is_not_a_list_says_so() -> None:
    valid, problem = _check({"workers": []})
    assert valid is False
    assert problem == "does not match Worker[] at /: Input should be a valid list"


def test_a_single_record() -> None:
    assert _check({"name": "w0", "slots": 1}, "Worker") == (True, None)
    valid, problem = _check({"name": "w0", "slots": "many"}, "Worker")
    assert valid is False
    assert problem is not None
    assert problem.startswith("does not match Worker at /slots: ")
