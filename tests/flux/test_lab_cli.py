"""``python -m samples.flux_lab``: listing, and clear errors without a traceback."""

from __future__ import annotations

import pytest

from samples.flux_lab.__main__ import doctor_args, main
from samples.flux_lab.scenarios import SCENARIOS


def test_list_names_every_scenario_with_its_expected_verdict(capsys: pytest.CaptureFixture[str]):
    assert main(["list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in out] == [s.name for s in SCENARIOS]
    assert "placement FLUX_NO_ELIGIBLE_WORKER" in out[1]


def test_an_unknown_scenario_is_a_one_line_error(capsys: pytest.CaptureFixture[str]):
    assert main(["up", "--scenario", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("flux lab: unknown scenario 'nope'")
    assert "Traceback" not in err


def test_doctor_is_driven_exactly_as_a_customer_would(tmp_path):
    class Lab:
        url = "http://127.0.0.1:1"

        def write_inventory(self):
            return tmp_path / "inventory.yaml"

    args = doctor_args(Lab(), tmp_path / "b.zip")  # type: ignore[arg-type]
    assert args[:5] == ["doctor", "--profile", "flux", "--server", "http://127.0.0.1:1"]
    assert "--local" in args
    assert args[-2:] == ["--password-env", "BUNDLER_SAMPLE_PASSWORD"]
