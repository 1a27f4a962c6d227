"""Independent parts computed half in a forked child (medjudge._fork.map_in_two)."""

from __future__ import annotations

import os
import threading
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from medjudge._fork import map_in_two

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork (POSIX)")

DEMO = Path(__file__).resolve().parents[1] / "data" / "demo"


def test_every_second_part_is_computed_in_a_child():
    pids = map_in_two(lambda _x: os.getpid(), range(5), fork=True)
    me = os.getpid()
    assert [p == me for p in pids] == [True, False, True, False, True]
    assert len({pids[1], pids[3]}) == 1  # one child


def test_results_are_those_of_the_loop():
    items = list(range(7))
    fn = lambda x: {"x": x, "a": np.arange(x) ** 2, "f": pd.DataFrame({"v": [x] * x})}  # noqa: E731
    got = map_in_two(fn, items, fork=True)
    for x, r in zip(items, got, strict=True):
        assert r["x"] == x
        np.testing.assert_array_equal(r["a"], np.arange(x) ** 2)
        pd.testing.assert_frame_equal(r["f"], pd.DataFrame({"v": [x] * x}))


def test_a_failing_child_leaves_its_parts_to_the_parent():
    me = os.getpid()

    def fn(x):
        if os.getpid() != me:
            raise RuntimeError("only in the child")
        return x + 1

    assert map_in_two(fn, [1, 2, 3, 4], fork=True) == [2, 3, 4, 5]


def test_an_error_of_a_part_is_raised_here():
    def fn(x):
        if x == 3:
            raise ValueError("bad part 3")
        return x

    with pytest.raises(ValueError, match="bad part 3"):
        map_in_two(fn, [0, 1, 2, 3], fork=True)  # part 3 is the child's


def test_warnings_come_back_in_the_order_of_the_parts():
    def fn(x):
        warnings.warn(f"part {x}", UserWarning, stacklevel=1)
        return x

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        map_in_two(fn, [0, 1, 2, 3], fork=True)
    assert [str(w.message) for w in caught] == ["part 0", "part 1", "part 2", "part 3"]


def test_no_fork_while_another_thread_runs():
    stop = threading.Event()
    t = threading.Thread(target=stop.wait)
    t.start()
    try:
        pids = map_in_two(lambda _x: os.getpid(), range(4))
    finally:
        stop.set()
        t.join()
    assert set(pids) == {os.getpid()}


def test_never_forks_when_told_not_to():
    assert set(map_in_two(lambda _x: os.getpid(), range(4), fork=False)) == {os.getpid()}


def test_judge_vs_gold_is_the_same_in_two_processes(monkeypatch):
    import medjudge._fork as F
    from medjudge import Bootstrap
    from medjudge.analyses.judge_vs_gold import judge_vs_gold
    from medjudge.data.tables import load_any

    study = load_any(DEMO)
    forked: list[bool] = []
    real = F.map_in_two

    def spy(fn, items, *, fork=None):
        forked.append(fork is not False)
        return real(fn, items, fork=fork if fork is False else True)

    monkeypatch.setattr("medjudge.analyses.judge_vs_gold.map_in_two", spy)
    one = judge_vs_gold(study, bootstrap=Bootstrap(200, 3), processes=1)
    two = judge_vs_gold(study, bootstrap=Bootstrap(200, 3), processes=2)
    assert forked == [False, True]
    for name in ("metrics", "classes", "confusion", "baseline_tests"):
        pd.testing.assert_frame_equal(one.table(name), two.table(name), check_exact=True)
    assert one.headline == two.headline
    assert one.settings == two.settings


def test_processes_must_be_positive():
    from medjudge.analyses.judge_vs_gold import judge_vs_gold
    from medjudge.data.tables import load_any

    with pytest.raises(ValueError, match="processes must be >= 1"):
        judge_vs_gold(load_any(DEMO), processes=0)


# ---- a job beside the parts (beside_next_fork): run's accuracy table in the map's child
def _forks_here() -> bool:
    from medjudge._fork import can_fork

    return can_fork()


def test_the_child_parts_leave_room_for_the_job_beside():
    from medjudge._fork import _child_parts

    assert _child_parts(6, 0) == [1, 3, 5]
    assert _child_parts(6, 2) == [1, 3]  # child: job + 2 parts, here: 4 parts
    assert _child_parts(7, 1) == [1, 3, 5]
    assert _child_parts(2, 2) == []  # the child computes only the job
    assert _child_parts(3, 9) == []


def _fresh_python(code: str) -> str:
    """Run ``code`` in a new interpreter (no leftover threads of other tests: forks allowed)."""
    import subprocess
    import sys
    import textwrap

    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_the_job_beside_is_computed_by_the_child_with_fewer_parts():
    from medjudge._fork import usable_cores

    if usable_cores() < 2:
        pytest.skip("one usable core: no fork")
    out = _fresh_python(
        """
        import os
        from medjudge._fork import beside_next_fork, map_in_two
        with beside_next_fork(os.getpid, weight=2) as side:
            pids = map_in_two(lambda _x: os.getpid(), range(6))
        me, child = os.getpid(), side.result()
        print(child != me, [{me: "here", child: "child"}[p] for p in pids])
        """
    )
    assert out == "True ['here', 'child', 'here', 'child', 'here', 'here']"


def test_the_job_beside_without_a_map_or_with_a_failing_child_is_computed_here():
    from medjudge._fork import beside_next_fork

    me = os.getpid()
    with beside_next_fork(os.getpid, fork=True) as side:
        pass  # no map_in_two in the block
    assert side.result() == me

    def only_here():
        if os.getpid() != me:
            raise RuntimeError("fails in the child")
        return "here"

    with beside_next_fork(only_here, weight=1, fork=True) as side:
        assert map_in_two(lambda x: x + 1, [1, 2, 3], fork=True) == [2, 3, 4]
    assert side.result() == "here"


def test_warnings_of_the_job_beside_come_with_its_result():
    from medjudge._fork import beside_next_fork

    def job():
        warnings.warn("from the job", UserWarning, stacklevel=1)
        return 1

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with beside_next_fork(job, weight=1, fork=True) as side:
            map_in_two(lambda x: x, [0, 1, 2], fork=True)
        assert caught == []  # raised in the child: issued here with the result
        assert side.result() == 1
        assert [str(w.message) for w in caught] == ["from the job"]
        assert side.result() == 1  # a second call: the same result, the warning not again
        assert len(caught) == 1


def test_run_tables_are_the_same_without_any_fork(tmp_path):
    from medjudge._fork import usable_cores

    if usable_cores() < 2:
        pytest.skip("one usable core: no fork")
    code = """
        import medjudge._fork as F
        from medjudge.cli import main
        forks = []
        real = F.InChild
        class Spy(real):
            def __init__(self, fn):
                forks.append(True)
                super().__init__(fn)
        F.InChild = Spy
        if {no_fork}:
            F.can_fork = lambda: False
        assert main(["run", {demo!r}, "--report", "none", "--out", {out!r}, "--quiet"]) == 0
        print(len(forks))
        """
    a, b = tmp_path / "a", tmp_path / "b"
    forks_a = _fresh_python(code.format(no_fork=False, demo=str(DEMO), out=str(a)))
    forks_b = _fresh_python(code.format(no_fork=True, demo=str(DEMO), out=str(b)))
    assert (forks_a.splitlines()[-1], forks_b.splitlines()[-1]) == ("1", "0")
    names = sorted(p.name for p in a.iterdir() if p.name != "MANIFEST.json")
    assert {"accuracy.csv", "judge_vs_gold.csv", "validation.json"} <= set(names)
    for name in names:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
