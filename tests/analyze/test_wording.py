"""Many workers named in one message, grouped by what they have in common."""

from __future__ import annotations

from bundler.analyze.wording import GROUPS_SHOWN, by_reason, some_names, with_detail


def test_a_few_workers_read_as_before() -> None:
    assert by_reason({"w1": ["zone=mars wanted, has zone=a"], "w2": ["gpu=1 wanted"]}) == (
        "w1: zone=mars wanted, has zone=a; w2: gpu=1 wanted"
    )


def test_a_fleet_reads_as_its_groups_biggest_first() -> None:
    per_worker = {f"fw{i:04d}": [f"zone=mars wanted, has zone={'ab'[i % 2]}"] for i in range(999)}
    per_worker["fw0999"] = ["zone=mars wanted, has zone=c"]
    text = by_reason(per_worker)
    assert text == (
        "fw0000, fw0002, fw0004 and 497 more: zone=mars wanted, has zone=a; "
        "fw0001, fw0003, fw0005 and 496 more: zone=mars wanted, has zone=b; "
        "fw0999: zone=mars wanted, has zone=c"
    )


def test_workers_with_several_reasons_group_on_all_of_them() -> None:
    text = by_reason({"w1": ["a", "b"], "w2": ["a"], "w3": ["a", "b"]})
    assert text == "w1, w3: a, b; w2: a"


def test_past_the_shown_groups_the_rest_is_counted() -> None:
    per_worker = {f"w{i}": [f"has {i} CPU"] for i in range(GROUPS_SHOWN + 3)}
    per_worker["w99"] = ["has 0 CPU"]
    text = by_reason(per_worker)
    assert text.startswith("w0, w99: has 0 CPU; w1: has 1 CPU")
    assert text.endswith("; and 3 more workers for 3 other reasons")
    assert f"w{GROUPS_SHOWN}" not in text


def test_detail_after_the_names() -> None:
    pairs = [(f"w{i}", "worker has zone=a") for i in range(5)] + [("w9", "worker has zone=b")]
    assert with_detail(pairs) == "w0, w1, w2 and 2 more (worker has zone=a); w9 (worker has zone=b)"


def test_names_are_counted_past_the_first_few() -> None:
    assert some_names(["a", "b"]) == "a, b"
    assert some_names(["a", "b", "c", "d"], shown=2) == "a, b and 2 more"
