"""Two report kernels sharing the judge report's slowest results (medjudge.report.exchange).

The protocol is checked in one process, playing both kernels by switching the environment;
the renders are checked against the independent path: both reports rendered one after the
other (no exchange, every result computed in its own kernel) must be byte-identical to the
two reports rendered side by side with the exchange.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from medjudge.data.tables import load_any
from medjudge.report import exchange, shared
from medjudge.report.context import ReportContext

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data" / "demo"


@pytest.fixture(scope="module")
def study():
    return load_any(DEMO)


def _ctx(study, seed=0):
    return ReportContext(study, data=str(DEMO), n_resamples=50, seed=seed)


def _never():
    raise AssertionError("computed although the other kernel published it")


def test_helper_publishes_and_the_helped_kernel_takes_it(study, tmp_path, monkeypatch):
    monkeypatch.setenv(exchange.EXCHANGE_ENV, str(tmp_path))
    monkeypatch.setenv(exchange.HELP_ENV, "judges")
    monkeypatch.setitem(exchange._state, "helping", True)
    assert exchange.get(_ctx(study), "answer", lambda: {"x": 41 + 1}) == {"x": 42}
    assert len(list(tmp_path.glob("*.pickle"))) == 1
    monkeypatch.setitem(exchange._state, "helping", False)
    monkeypatch.delenv(exchange.HELP_ENV)  # now the judge kernel
    assert exchange.get(_ctx(study), "answer", _never) == {"x": 42}
    # other settings are another result: claimed and computed by the judge kernel itself
    assert exchange.get(_ctx(study, seed=1), "answer", lambda: "own") == "own"


def test_helper_leaves_what_the_other_kernel_claimed(study, tmp_path, monkeypatch):
    monkeypatch.setenv(exchange.EXCHANGE_ENV, str(tmp_path))
    ctx = _ctx(study)
    assert exchange.get(ctx, "slow", lambda: 1) == 1  # the judge kernel claims and computes
    assert exchange.get(ctx, "input", lambda: 2) == 2
    assert not list(tmp_path.glob("*.pickle"))  # the judge kernel publishes nothing
    monkeypatch.setenv(exchange.HELP_ENV, "judges")
    monkeypatch.setitem(exchange._state, "helping", True)
    with pytest.raises(exchange._Taken):
        exchange.get(ctx, "slow", _never)
    # an input of a result the helper computes: computed locally, as without the exchange
    nested = exchange.get(ctx, "outer", lambda: exchange.get(ctx, "input", lambda: 3) + 10)
    assert nested == 13
    # outside its help phase the helper computes everything itself
    monkeypatch.setitem(exchange._state, "helping", False)
    assert exchange.get(ctx, "slow", lambda: "mine") == "mine"


def _as_helper(monkeypatch, folder):
    """This process plays the audit kernel, in its help phase."""
    monkeypatch.setenv(exchange.EXCHANGE_ENV, str(folder))
    monkeypatch.setenv(exchange.HELP_ENV, "judges")
    monkeypatch.setitem(exchange._state, "helping", True)


def _as_helped(monkeypatch):
    """This process now plays the judge kernel, waiting at most 30 s."""
    monkeypatch.setitem(exchange._state, "helping", False)
    monkeypatch.delenv(exchange.HELP_ENV)
    monkeypatch.setenv(shared.WAIT_ENV, "30")


def test_helped_kernel_computes_when_the_helper_failed(study, tmp_path, monkeypatch):
    _as_helper(monkeypatch, tmp_path)
    ctx = _ctx(study)

    def boom():
        raise ValueError("no gold")

    with pytest.raises(ValueError):
        exchange.get(ctx, "broken", boom)
    _as_helped(monkeypatch)
    assert exchange.get(ctx, "broken", lambda: "recomputed") == "recomputed"


def test_helped_kernel_computes_what_the_helper_could_not_publish(study, tmp_path, monkeypatch):
    import threading

    _as_helper(monkeypatch, tmp_path)
    ctx = _ctx(study)
    with pytest.raises(Exception):  # noqa: B017 - pickle's own error type
        exchange.get(ctx, "unpicklable", lambda: threading.Lock())
    _as_helped(monkeypatch)
    assert exchange.get(ctx, "unpicklable", lambda: "recomputed") == "recomputed"
    assert not list(tmp_path.glob("*.part"))


def test_helped_kernel_does_not_wait_for_a_helper_that_exited(study, tmp_path, monkeypatch):
    import subprocess
    import sys
    import time

    monkeypatch.setenv(exchange.EXCHANGE_ENV, str(tmp_path))
    ctx = _ctx(study)
    # the helper claimed the result, then its process ended without publishing it
    gone = subprocess.Popen([sys.executable, "-c", ""])
    gone.wait()
    (tmp_path / "helper.pid").write_text(str(gone.pid))
    assert exchange._claim(exchange._base(str(tmp_path), ctx, "lost"))
    monkeypatch.setenv(shared.WAIT_ENV, "60")
    t0 = time.monotonic()
    assert exchange.get(ctx, "lost", lambda: "recomputed") == "recomputed"
    assert time.monotonic() - t0 < 10


def test_without_the_variables_nothing_is_shared(study, tmp_path, monkeypatch):
    monkeypatch.delenv(exchange.EXCHANGE_ENV, raising=False)
    calls = []
    ctx = _ctx(study)
    assert ctx.get("x", lambda: calls.append(1) or 5) == 5
    assert ctx.get("x", lambda: calls.append(1) or 6) == 5  # the context's own cache
    assert calls == [1] and not os.listdir(tmp_path)


def test_heavy_results_follow_the_study(study):
    from medjudge.report.judges import heavy_results

    # heterogeneity by organ system, position, length bias
    assert len(heavy_results(_ctx(study))) == 3
    experts_only = load_any(DEMO)
    experts_only.ratings = experts_only.ratings[experts_only.ratings["role"] == "expert"]
    assert heavy_results(_ctx(experts_only)) == []


def test_reports_with_and_without_the_exchange_are_byte_identical(tmp_path, monkeypatch):
    pytest.importorskip("nbclient")
    import shutil

    from medjudge.commands.report import render_reports

    published: list[str] = []
    remove = shutil.rmtree

    def record_then_remove(path, *args, **kwargs):
        if "medjudge-exchange-" in str(path):
            published.extend(p.name for p in Path(path).glob("*.pickle"))
        return remove(path, *args, **kwargs)

    monkeypatch.setattr(shutil, "rmtree", record_then_remove)
    out = {}
    for parallel in (True, False):  # side by side (exchange) / one after the other (none)
        dest = tmp_path / f"parallel{int(parallel)}"
        out[parallel] = render_reports(
            DEMO, out=dest, to="html", resamples=50, parallel=parallel,
            command="medjudge report data/demo",
        )  # fmt: skip
    for kind in ("judges", "audit"):
        a = out[True][kind]["html"].read_bytes()
        b = out[False][kind]["html"].read_bytes()
        assert a == b, f"{kind}: the exchange changed the report"
    # the audit kernel did compute the judge report's slowest results (and their input)
    assert len(published) >= 2, published
