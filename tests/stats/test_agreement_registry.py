"""One coefficient registry (``medjudge.stats.coefficients``) feeds the front door,
``agreement_table``, ``agreement`` / ``agreement_difference`` and the table of
docs/agreement.md."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import medjudge as mj
import numpy as np
import pytest
from medjudge.stats import coefficients as registry
from medjudge.stats.agreement import COEFFICIENTS, CORES, frame
from medjudge.stats.agreement.registry import FUNCTIONS
from medjudge.stats.results import Estimate
from test_agreement_fixtures import KRIPPENDORFF_2011

DOCS = Path(__file__).resolve().parents[2] / "docs" / "agreement.md"
NAMES = [c.name for c in registry.COEFFICIENT_TABLE]


def test_docs_table_is_the_registry():
    text = DOCS.read_text(encoding="utf-8")
    start = text.index("<!-- coefficient table: written by")
    end = text.index("<!-- end of coefficient table -->")
    table = text[text.index("\n", start) + 1 : end]
    assert table == registry.markdown_table()
    assert re.findall(r"^\| `([a-z_]+)` \|", table, flags=re.M) == NAMES


def test_front_door_serves_every_registry_row():
    for name in NAMES:
        assert mj._API[name] == registry.AGREEMENT_MODULE
        assert getattr(mj, name) is FUNCTIONS[name]


def test_lookup_tables_come_from_the_registry():
    assert list(COEFFICIENTS) == [c.name for c in registry.COEFFICIENT_TABLE if c.call != "forms"]
    assert set(CORES) == {c.name for c in registry.COEFFICIENT_TABLE if c.core}
    assert CORES["icc"].__name__ == "icc_core" and "pabak" not in CORES


def _computed(table) -> set[str]:
    out = set(table["coefficient"])
    if {"gwet_ac1", "gwet_ac2"} & out:
        out = (out - {"gwet_ac1", "gwet_ac2"}) | {"gwet_ac"}
    if any(n.startswith("ICC") for n in out):
        out = {n for n in out if not n.startswith("ICC")} | {"icc"}
    return out


@pytest.mark.parametrize("scale", ["nominal", "ordinal", "interval", "ratio"])
@pytest.mark.parametrize("n_raters", [2, 4])
def test_agreement_table_rows_are_the_rows_that_apply(scale, n_raters):
    # Krippendorff (2011) section C data: 12 units, 5 categories (missing ratings included)
    X = KRIPPENDORFF_2011[:, :n_raters]
    t = mj.agreement_table(X, scale=scale, ci=None)
    expected = {c.name for c in registry.COEFFICIENT_TABLE if c.applies(scale, n_raters)}
    assert _computed(t) == expected


def test_each_row_is_its_function_called_as_the_registry_says():
    X = KRIPPENDORFF_2011[:, :2]
    t = mj.agreement_table(X, scale="ordinal", ci="analytic").set_index("coefficient")
    cats = {"categories": [1.0, 2.0, 3.0, 4.0, 5.0], "values": [1.0, 2.0, 3.0, 4.0, 5.0]}
    direct = {
        "cohen_kappa": mj.cohen_kappa(X, weights="ordinal", ci="analytic", **cats),
        "scott_pi": mj.scott_pi(X, weights="ordinal", ci="analytic", **cats),
        "krippendorff_alpha": mj.krippendorff_alpha(X, scale="ordinal", ci="analytic", **cats),
        "kendall_w": mj.kendall_w(X, ci=None),
    }
    for name, e in direct.items():
        row = t.loc[name]
        assert row["estimate"] == e.estimate
        assert row["se"] == e.se or (np.isnan(row["se"]) and np.isnan(e.se))
    assert t.loc["kendall_w", "weights"] == "ranks"
    assert t.loc["krippendorff_alpha", "weights"] == "ordinal metric"


def test_a_new_row_is_one_edit(monkeypatch):
    """A row added to the registry (and its function) is computed by agreement_table."""

    def toy(X, *, ci="auto", confidence_level=0.95, bootstrap=None, clusters=None, **kw):
        return Estimate(name="toy", estimate=0.5, n=int(np.asarray(X).shape[0]))

    row = replace(registry.COEFFICIENT_TABLE[0], name="toy", display="Toy", core=False)
    monkeypatch.setattr(frame, "COEFFICIENT_TABLE", (*registry.COEFFICIENT_TABLE, row))
    monkeypatch.setitem(FUNCTIONS, "toy", toy)
    t = mj.agreement_table(KRIPPENDORFF_2011, scale="nominal", ci=None)
    assert t["coefficient"].iloc[-1] == "toy"
    only = mj.agreement_table(
        KRIPPENDORFF_2011, scale="nominal", ci=None, coefficients=["fleiss_kappa", "toy"]
    )
    assert list(only["coefficient"]) == ["fleiss_kappa", "toy"]


@pytest.mark.parametrize("name", [n for n in NAMES if n not in ("icc", "kendall_w")])
def test_layout_and_convention_are_documented_as_parameters(name):
    """The arguments agreement_input adds are entries of the Parameters section (not text
    appended after the Examples)."""
    import inspect

    doc = inspect.getdoc(FUNCTIONS[name])
    params = re.search(r"^Parameters\n-+\n(.*?)(?=^\S[^\n]*\n-{3,}\n|\Z)", doc, re.S | re.M)
    entries = {line.split(" :")[0] for line in params.group(1).splitlines() if line[:1].strip()}
    assert {"layout", "convention"} <= entries
