"""A product's analysis never names another product: its commands, variables or documents.

Every generic recovery path cited "LyftData's Worker Recovery and Serviceability guide",
so a Flux finding without Flux text of its own (remove, placement, prerequisites, ...)
sent a Flux operator to LyftData's guide, and the text report headed every acceptance
checklist with the guide's title. Here every committed sample is analyzed as
`bundler analyze` does (text and JSON), and every generic finding code's recovery is read
as each product's findings get it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from bundler.analyze.recovery import CODE_PATHS, recovery_for
from bundler.cli import cli
from bundler.products.flux import PROFILE as FLUX
from bundler.products.lyftdata import PROFILE as LYFTDATA
from samples import catalog
from schemas import Recovery
from tests.support.sample_bundles import private_identity

LYFTDATA_NAMES = ("lyftdata", "worker recovery and serviceability")
"""Lower case: covers LyftData, lyftdata, LYFTDATA_URL and the guide's title."""
FLUX_NAMES = ("flux worker", "worker observability", "flux_", "flux.toml")

FOREIGN = {"flux": LYFTDATA_NAMES, "lyftdata": FLUX_NAMES}
"""Product -> the names its analysis must never show."""

ENTRIES = sorted(catalog.load_catalog(), key=lambda e: e.file)


@pytest.fixture(scope="module")
def identity(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The committed sample identity, copied 0600 (a fresh clone checks it out 0644)."""
    return private_identity(tmp_path_factory.mktemp("keys"))


def _foreign_names(product: str, text: str) -> list[str]:
    flat = re.sub(r"[\s│]+", " ", text).lower()  # a wrapped line or a panel's border
    return [name for name in FOREIGN[product] if name in flat]


@pytest.mark.parametrize("fmt", ["text", "json"])
@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.file)
def test_a_samples_analysis_names_no_other_product(
    entry: catalog.SampleEntry, fmt: str, identity: Path
) -> None:
    bundle = catalog.BUNDLES_DIR / entry.file
    result = CliRunner().invoke(
        cli,
        ["analyze", str(bundle), *entry.open_args(identity), "--format", fmt],
        env={catalog.PASSWORD_ENV: catalog.SAMPLE_PASSWORD, "COLUMNS": "400"},
    )
    assert result.exit_code in (0, 1, 3), result.output
    assert entry.product in FOREIGN
    assert _foreign_names(entry.product, result.stdout) == [], entry.file


def _text(rec: Recovery) -> str:
    return " ".join([rec.summary, rec.reference or "", *rec.steps, *rec.cautions])


@pytest.mark.parametrize(("product", "profile"), [("flux", FLUX), ("lyftdata", LYFTDATA)])
def test_every_generic_path_a_products_finding_reaches_is_its_own(
    product: str, profile: object
) -> None:
    """Every generic finding code, as that product's findings read it (its own text for the
    path if it has one, else the product-neutral one)."""
    paths = getattr(profile, "recovery_paths", {})
    assert len(CODE_PATHS) > 30
    for code in CODE_PATHS:
        rec = recovery_for(code, paths)
        assert rec is not None, code
        assert _foreign_names(product, _text(rec)) == [], (code, _text(rec))


def test_generic_texts_name_no_product() -> None:
    for code in CODE_PATHS:
        rec = recovery_for(code)
        assert rec is not None
        text = _text(rec)
        assert _foreign_names("flux", text) == [], (code, text)
        assert _foreign_names("lyftdata", text) == [], (code, text)
        assert "step 7" not in text, code
