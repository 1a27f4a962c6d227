"""The two real reports (judge evaluation, annotation audit) on the demo bundle and on hostile input.

Renders start Jupyter kernels: the demo pair is rendered twice (reproducibility) and a tiny
hostile study once, each pair concurrently — about a minute on 2 cores.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import DEMO, DEMO_RESAMPLES, ROOT
from medjudge import Bootstrap
from medjudge.cli import main
from medjudge.commands.report import render_reports, template_path
from medjudge.report.context import headline_dimension
from medjudge.report.provenance import sha256_file
from medjudge.report.sections import pairwise as PW
from medjudge.report.sections import provenance as PV
from medjudge.report.tables import fmt_ci, fmt_estimate_ci, fmt_num

pypdf = pytest.importorskip("pypdf")
pytest.importorskip("nbclient")
pytest.importorskip("typst")

RESAMPLES = DEMO_RESAMPLES  # modest, to keep the renders fast; the default is 2000
SCRIPT = "<script>alert(1)</script>"
BOLD_ITEM = "<b>bold-item</b>"
NETWORK = re.compile(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", re.IGNORECASE)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def pdf_text(path: Path) -> str:
    """Extracted text with typst's NBSP and U+2212 normalised and whitespace collapsed."""
    reader = pypdf.PdfReader(str(path))
    text = "\n".join(page.extract_text() for page in reader.pages)
    text = text.replace("\u00a0", " ").replace("\u2212", "-")
    return re.sub(r"\s+", " ", text)


# ---------------------------------------------------------------------------- demo renders
# ``demo_reports`` (conftest.py, session-scoped): both reports rendered twice, shared by every
# test file that looks at the rendered demo reports.


def test_html_is_self_contained(demo_reports):
    files, _ = demo_reports
    for kind in ("judges", "audit"):
        html = files[kind]["html"].read_text(encoding="utf-8")
        assert not NETWORK.search(html), f"{kind}: network reference"
        n_img = html.count("data:image/svg+xml;base64,")
        assert n_img >= 3, f"{kind}: figures not embedded ({n_img})"
        assert "?@" not in html, f"{kind}: unresolved cross-reference"


def test_judges_pdf_has_leaderboard_rows(demo_reports, demo_study):
    """Each headline leaderboard row, formatted from the library's own result, is in the PDF."""
    from medjudge.analyses.evaluation import evaluate_judges

    files, _ = demo_reports
    text = pdf_text(files["judges"]["pdf"])
    ev = evaluate_judges(demo_study, bootstrap=Bootstrap(RESAMPLES, 0))
    head = headline_dimension(demo_study)
    lb = ev.leaderboard[ev.leaderboard["dimension"] == head]
    assert len(lb) == len(demo_study.judges) == 12
    for r in lb.itertuples():
        row = f"{int(r.rank)} {r.judge} {fmt_num(r.accuracy, 3)} {fmt_ci(r.ci_low, r.ci_high, 3)}"
        assert row in text, row
    # the forest plot's reference lines come from the library's baselines and expert ceiling
    assert "Figure 2: Accuracy with 95% intervals per dimension" in text


def test_audit_pdf_has_reliability_rows(demo_reports, demo_study):
    import medjudge as mj
    from conftest import DEMO_RESAMPLES
    from medjudge.analyses.audit import audit_settings

    files, _ = demo_reports
    text = pdf_text(files["audit"]["pdf"])
    # the library call with the report's settings (resamples, seed 0, clusters auto)
    st = audit_settings(demo_study, bootstrap=mj.Bootstrap(DEMO_RESAMPLES, 0))
    rel = mj.audit_study(demo_study, settings=st, dimension="overall").reliability
    for dim in demo_study.dimensions:
        sub = rel[rel["dimension"] == dim].set_index("coefficient")
        cells = [
            fmt_estimate_ci(*sub.loc[c, ["estimate", "ci_low", "ci_high"]], 3)
            for c in ("percent_agreement", "fleiss_kappa", "gwet_ac1", "krippendorff_alpha")
        ]
        # dimension, its number of items, then the four coefficients with their intervals
        assert re.search(rf"{dim} [\d,]+ {re.escape(' '.join(cells))}", text), dim
    assert "Dawid" in text and "alternative annotator test" in text.lower()


def test_provenance_hashes_inputs(demo_reports, demo_study):
    files, _ = demo_reports
    html = re.sub(r"\s+", " ", files["judges"]["html"].read_text(encoding="utf-8"))
    for src in demo_study.sources[:3] + demo_study.sources[-2:]:
        assert sha256_file(src) in html
    assert "demo/expert_labels.jsonl" in html
    assert f"--resamples {RESAMPLES}" in html  # the command line
    assert str(DEMO.resolve()) not in html  # no machine-specific absolute path


def test_rendering_twice_is_byte_identical(demo_reports):
    files, first = demo_reports
    for fmts in files.values():
        for p in fmts.values():
            assert sha256(p) == sha256(first / p.name), p.name


# ---------------------------------------------------------------------------- hostile input
def _hostile_table(tmp: Path) -> tuple[Path, Path]:
    """40 items, 3 experts, 2 judges (one named ``<script>…``), one disputed item id with markup.

    Experts rarely disagree (3% flips), so the disputed-items table (top 15) lists them all.
    """
    rng = np.random.default_rng(5)
    rows = []
    items = [f"item-{i:02d}" for i in range(39)] + [BOLD_ITEM]
    for it in items:
        truth = rng.integers(0, 2)
        for k, e in enumerate(("expert-1", "expert-2", "expert-3")):
            v = truth if rng.random() < 0.97 else 1 - truth
            if it == BOLD_ITEM:  # a split item, so that it is listed among the disputed ones
                v = truth if k < 2 else 1 - truth
            rows.append((it, e, "expert", "AB"[v]))
        for j, acc in ((SCRIPT, 0.8), ("plain-judge", 0.6)):
            v = truth if rng.random() < acc else 1 - truth
            rows.append((it, j, "judge", "AB"[v] if rng.random() > 0.05 else "???"))
    table = tmp / "hostile.csv"
    pd.DataFrame(rows, columns=["item", "rater", "role", "verdict"]).to_csv(table, index=False)
    mapping = tmp / "hostile.toml"
    mapping.write_text(
        'layout = "long"\nitem = ["item"]\nrater = ["rater"]\nrole_column = "role"\n'
        'value = "verdict"\ndimension = "preference"\ninvalid = ["???"]\n\n'
        '[scale]\nlevel = "nominal"\ncategories = ["A", "B"]\n',
        encoding="utf-8",
    )
    return table, mapping


def test_markup_in_names_is_escaped(tmp_path):
    table, mapping = _hostile_table(tmp_path)
    files = render_reports(
        table, mapping=mapping, out=tmp_path / "out", to="html", resamples=200, command="test"
    )
    judges = files["judges"]["html"].read_text(encoding="utf-8")
    audit = files["audit"]["html"].read_text(encoding="utf-8")
    for html in (judges, audit):
        assert SCRIPT not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
        assert BOLD_ITEM not in html
    assert "&lt;b&gt;bold-item&lt;/b&gt;" in audit  # the item is among the disputed ones
    # sections without the data they need say so instead of failing
    # the subgroup sections do not apply: listed once under Methods (Not run), with the reason
    assert "Not run" in judges and "subgroup" in judges.split("Not run", 1)[1]
    assert "?@" not in judges and "?@" not in audit


# ---------------------------------------------------------------------------- templates
@pytest.mark.parametrize("kind", ["judges", "audit"])
def test_reports_dir_links_to_the_packaged_templates(kind):
    """One template, two paths: reports/<kind>.qmd is a symlink to the packaged file."""
    link = ROOT / "reports" / f"{kind}.qmd"
    assert link.is_symlink(), f"reports/{kind}.qmd must be a symlink, not a copy"
    assert link.resolve() == template_path(kind).resolve()


@pytest.mark.parametrize("kind", ["judges", "audit"])
def test_template_follows_the_rules(kind):
    """Parameters with defaults; the sections come from the library; supported subset only."""
    from medjudge.report.qmd import parameter_names, parse_qmd

    text = template_path(kind).read_text(encoding="utf-8")
    nb = parse_qmd(text, path=f"{kind}.qmd")
    assert parameter_names(nb) == [
        "data", "mapping", "seed", "resamples", "policy", "confidence_level", "alpha",
        "epsilon", "by", "names", "headline", "checklist", "command",
    ]  # fmt: skip
    assert f"from medjudge.report.{kind} import" in text and "report.show()" in text
    for banned in ("matplotlib.use", "layout-ncol", "panel-tabset", "code-fold", "95%"):
        assert banned not in text, banned
    assert "embed-resources: true" in text and "html-math-method: mathml" in text


# ---------------------------------------------------------------------------- builders
def test_baseline_and_ceiling_reference_lines(demo_study):
    """Baseline = majority-class share of the gold; ceiling = mean leave-one-out expert accuracy."""
    import medjudge as mj

    dim = "accuracy"
    ev = mj.evaluate_judges(demo_study, dimensions=[dim], bootstrap=mj.Bootstrap(20))
    gold = demo_study.gold(dim).codes
    shares = np.bincount(gold[np.isfinite(gold)].astype(int)) / np.isfinite(gold).sum()
    assert ev.baseline_by_dimension()[dim] == pytest.approx(shares.max())
    # independent: each expert against the strict majority of the other two (= their agreement)
    m = demo_study.matrix(dim, role="expert").values
    accs = []
    for e in range(3):
        o = np.delete(m, e, axis=1)
        agree = o[:, 0] == o[:, 1]
        accs.append(np.mean(m[agree, e] == o[agree, 0]))
    assert ev.ceiling_by_dimension()[dim] == pytest.approx(np.mean(accs))


def test_pairs_table_orients_difference_and_interval():
    pairs = pd.DataFrame(
        {
            "dimension": ["d", "d", "d"],
            "judge_a": ["x", "x", "y"],
            "judge_b": ["y", "z", "z"],
            "difference": [0.10, -0.20, 0.01],
            "ci_low": [0.05, -0.26, -0.03],
            "ci_high": [0.15, -0.14, 0.05],
            "discordant": [30, 40, 10],
            "p_holm": [0.01, 0.001, 0.6],
        }
    )
    t = PW.pairs_table(pairs, "d")
    assert t[["better", "worse"]].values.tolist() == [["z", "x"], ["x", "y"]]
    assert t["difference"].tolist() == ["0.200", "0.100"]
    assert t["95% CI"].tolist() == ["[0.140, 0.260]", "[0.050, 0.150]"]


def test_provenance_tables_and_display_names(tmp_path):
    bundle = tmp_path / "bundle"
    (bundle / "sub").mkdir(parents=True)
    f1, f2 = bundle / "a.jsonl", bundle / "sub" / "a.jsonl"  # same basename, both kept
    f1.write_text("1\n")
    f2.write_text("2\n")

    class FakeStudy:
        sources = [f1, f2]

    rec = PV.study_provenance(
        FakeStudy(), bundle, seed=3, resamples=10, policies={"p": "v"}, command="cmd"
    )  # type: ignore[arg-type]
    inputs, settings = PV.provenance_tables(rec)
    assert inputs.values.tolist() == [
        ["bundle/a.jsonl", sha256_file(f1)],
        ["bundle/sub/a.jsonl", sha256_file(f2)],
    ]
    assert {"seed", "resamples", "p", "command line"} <= set(settings["name"])


# ---------------------------------------------------------------------------- command line
def test_report_command_errors(tmp_path, capsys):
    assert main(["report", str(tmp_path / "nope")]) == 2
    table, _ = _hostile_table(tmp_path)
    assert main(["report", str(table)]) == 2
    assert "mapping" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["report", str(table), "--kind", "other"])


def test_forest_plot_range_covers_reference_lines_and_negative_differences():
    """One x range for every panel covering intervals and reference lines (passed as
    arguments, with their legend labels); no patching afterwards."""
    import matplotlib.pyplot as plt
    from medjudge.plots import forest_plot

    df = pd.DataFrame(
        {
            "judge": ["a", "b", "a", "b"],
            "dimension": ["x", "x", "y", "y"],
            "estimate": [0.5, 0.6, 0.55, 0.65],
            "ci_low": [0.45, 0.55, 0.5, 0.6],
            "ci_high": [0.55, 0.65, 0.6, 0.7],
        }
    )
    fig = forest_plot(df, baseline=0.5, ceiling={"x": 0.9, "y": 0.8})
    lims = {ax.get_xlim() for ax in fig.axes if ax.get_visible()}
    assert len(lims) == 1
    lo, hi = lims.pop()
    assert lo < 0.45 and hi > 0.9 and 0 <= lo and hi <= 1  # ceiling 0.9 visible, still in [0, 1]
    neg = df.assign(estimate=-df.estimate, ci_low=-df.ci_high, ci_high=-df.ci_low)
    fig2 = forest_plot(neg, baseline=0.0, baseline_label="no difference")
    lo, hi = fig2.axes[0].get_xlim()
    assert lo < -0.7 and hi > 0.0
    assert [t.get_text() for t in fig2.legends[0].get_texts()] == ["no difference"]
    fig3 = forest_plot(df, xlim=(0.2, 0.8))
    assert fig3.axes[0].get_xlim() == pytest.approx((0.2, 0.8))
    for f in (fig, fig2, fig3):
        plt.close(f)


# ---------------------------------------------------------------------------- real browser
def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


#: The browser's measures of a report page (run in the page). Figure text: matplotlib draws
#: text as glyph paths scaled by ``font size (pt) / 100`` (``svg.fonttype = 'path'``) in a
#: viewBox measured in points, so a text's size on screen is
#: ``100 * scale * displayed width / viewBox width`` CSS px: the figure's own text, measured
#: where it is shown (100% zoom). A box "scrolls" when its content is wider than it; its cue is
#: the ``::before`` line of report.css.
MEASURE = """() => {
  const W = window.innerWidth;
  const svgText = img => {
    let src = img.src;
    if (!src.startsWith('data:image/svg+xml')) return null;
    src = src.includes(';base64,') ? atob(src.split(',')[1]) : decodeURIComponent(src.split(',')[1]);
    const vb = /viewBox="([\\d.\\s-]+)"/.exec(src);
    const sizes = [...src.matchAll(/<!-- [^>]*?-->\\s*<g transform="[^"]*?scale\\(([\\d.]+) -/g)]
        .map(m => 100 * parseFloat(m[1]));
    if (!vb || !sizes.length) return null;
    const width = parseFloat(vb[1].trim().split(/\\s+/)[2]);
    return Math.min(...sizes) * img.getBoundingClientRect().width / width;
  };
  const boxes = [...document.querySelectorAll('.table-wrap, figure')].map(b => {
    const cue = getComputedStyle(b, '::before');
    const label = (b.querySelector('caption, figcaption') || {}).textContent || '?';
    return {label: label.slice(0, 50), scrolls: b.scrollWidth > b.clientWidth + 1,
            cue: parseFloat(cue.opacity) > 0.9 && parseFloat(cue.height) > 8};
  });
  const summary = document.getElementById('sec-summary');
  const first = summary && [...document.querySelectorAll('#sec-summary ~ ol > li')][0];
  return {
    overflow: document.documentElement.scrollWidth - W,
    images: document.images.length,
    broken: [...document.images].filter(i => !i.complete || i.naturalWidth === 0)
            .map(i => i.alt || i.src.slice(0, 40)),
    wide_images: [...document.images].filter(i => i.getBoundingClientRect().right > W + 1).length,
    h1_title: parseFloat(getComputedStyle(document.querySelector('h1.title')).fontSize),
    h2: Math.max(0, ...[...document.querySelectorAll('h2')].map(
        h => parseFloat(getComputedStyle(h).fontSize))),
    // tables that do not fit their box (they scroll sideways)
    tables_cut: boxes.filter(b => b.scrolls && b.label !== '?').map(b => b.label.slice(0, 40)),
    scroll_without_cue: boxes.filter(b => b.scrolls && !b.cue).map(b => b.label),
    cue_without_scroll: boxes.filter(b => !b.scrolls && b.cue).map(b => b.label),
    n_scroll: boxes.filter(b => b.scrolls).length,
    // captions partly outside the screen
    captions_cut: [...document.querySelectorAll('caption, figcaption')].filter(c => {
        const r = c.getBoundingClientRect();
        return r.width > 0 && (r.right > W + 1 || r.left < -1);
    }).map(c => c.textContent.slice(0, 40)),
    // the smallest text of each figure, in CSS px on screen
    figure_text: [...document.images].map(i => ({alt: (i.alt || '').slice(0, 50),
        px: svgText(i)})),
    // where the key findings start and where their first finding ends (page px)
    findings_top: summary ? summary.getBoundingClientRect().top + window.scrollY : null,
    first_finding_top: first ? first.getBoundingClientRect().top + window.scrollY : null,
    not_shown: document.body.innerText.includes('Not shown:'),
  };
}"""


def browser_check(html: Path, widths=(390, 1280)) -> dict[int, dict]:
    """Open ``html`` in headless Chromium at each width (height 800 px): page overflow, console
    errors, images, scroll cues, figure text sizes, where the key findings start."""
    from playwright.sync_api import sync_playwright

    out = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=_chromium(),
            args=["--no-sandbox", "--disable-background-networking", "--disable-component-update",
                  "--no-first-run", "--disable-sync"],
        )  # fmt: skip
        for w in widths:
            page = browser.new_page(viewport={"width": w, "height": 800})
            errors: list[str] = []
            page.on("console", lambda m, e=errors: e.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda exc, e=errors: e.append(str(exc)))
            page.goto(html.resolve().as_uri(), wait_until="load")
            # two frames: scroll timelines (the cues) take effect at the next frame
            page.evaluate(
                "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
            )
            out[w] = page.evaluate(MEASURE)
            out[w]["errors"] = errors
            page.close()
        browser.close()
    return out


#: smallest text in a figure on screen at 100% zoom, in CSS px (issue 40)
MIN_FIGURE_TEXT_PX = 9.0


def check_screens(html: Path, what: str) -> dict[int, dict]:
    """At 390 and 1280 px: no page overflow, no console error, every figure loads and its
    smallest text is at least 9 px on screen, every box that scrolls sideways shows its cue (and
    no other box does), no caption cut, at 1280 px every table fits and the first key finding
    starts in the first 800 px; nothing that does not apply is shown."""
    res = browser_check(html)
    for w, r in res.items():
        where = f"{what} @ {w}px"
        assert r["overflow"] <= 0, f"{where}: page {r['overflow']} px wider than the screen"
        assert r["errors"] == [], f"{where}: console errors {r['errors']}"
        assert r["broken"] == [], f"{where}: figures not loaded {r['broken']}"
        assert r["captions_cut"] == [], f"{where}: captions cut {r['captions_cut']}"
        small = [(f["alt"], f["px"]) for f in r["figure_text"]
                 if f["px"] is None or f["px"] < MIN_FIGURE_TEXT_PX]  # fmt: skip
        assert small == [], f"{where}: figure text below {MIN_FIGURE_TEXT_PX} px {small}"
        assert r["scroll_without_cue"] == [], f"{where}: no scroll cue {r['scroll_without_cue']}"
        assert r["cue_without_scroll"] == [], f"{where}: cue on a box that fits"
        assert not r["not_shown"], f"{where}: a section says only 'not shown'"
        assert r["h1_title"] > r["h2"], f"{where}: title not the largest heading {r}"
        if w >= 1280:
            assert r["tables_cut"] == [], f"{where}: tables scroll {r['tables_cut']}"
            assert r["wide_images"] == 0, f"{where}: figures wider than the screen"
            assert r["first_finding_top"] is not None, f"{where}: no numbered key finding"
            assert r["first_finding_top"] < 800 - 48, (
                f"{where}: the first key finding starts at {r['first_finding_top']:.0f} px"
            )
    return res


def test_reports_in_a_real_browser(demo_reports):
    """At 390 and 1280 px (headless Chromium from the Debian package): no page overflow, no
    console error, every figure loads with text of 9 px at least, scroll cues, the key findings
    on the first screen, the title the largest heading (:func:`check_screens`)."""
    if _chromium() is None:
        pytest.skip("chromium not found (Debian: apt-get install -y chromium; .ci/run does this)")
    pytest.importorskip("playwright", reason="pip install playwright (dev extra)")
    files, _ = demo_reports
    for kind in ("judges", "audit"):
        res = check_screens(files[kind]["html"], f"demo {kind}")
        assert all(r["images"] >= 3 for r in res.values()), f"demo {kind}: figures missing"
        # on a phone the wide figures scroll in their boxes, each with its cue
        assert res[390]["n_scroll"] > 0


def test_small_study_reports_in_a_real_browser(tmp_path):
    """A small study of one's own (3 judges × 3 experts, 60 items in 15 cases, a specialty
    column): both reports pass :func:`check_screens` at 390 and 1280 px; its subgroup heatmap
    (3 × 3 cells, sized from its content) keeps text of 9 px; both reports break down by the
    same attribute (the specialty, by the one default rule)."""
    if _chromium() is None:
        pytest.skip("chromium not found (Debian: apt-get install -y chromium)")
    pytest.importorskip("playwright", reason="pip install playwright (dev extra)")
    from _studies import write_small_study

    table, mapping = write_small_study(tmp_path)
    files = render_reports(
        table, mapping=mapping, out=tmp_path / "out", to="html", resamples=100, workers=2
    )
    for kind in ("judges", "audit"):
        res = check_screens(files[kind]["html"], f"3 x 3 {kind}")
        assert all(r["images"] >= 3 for r in res.values())
    judges = files["judges"]["html"].read_text(encoding="utf-8")
    audit = files["audit"]["html"].read_text(encoding="utf-8")
    assert 'id="sec-subgroups"' in judges and "specialty" in judges
    assert 'id="sec-subgroup-reliability"' in audit  # was left out unless --by was given
    assert "Reliability per item subgroup" in audit


def test_pdf_keeps_a_short_table_whole(tmp_path):
    """A table that fits on a page is not split (typst-header.typ: an unbreakable block; with
    the old header this one was cut after its 6th row); a longer table breaks across pages with
    its header row repeated."""
    typst = pytest.importorskip("typst")
    from medjudge.report.render_options import _asset

    def table(prefix: str, n: int) -> str:
        rows = "".join(f"[{prefix}{i}], [{i}],\n" for i in range(n))
        return (f"#figure(align(center)[#table(columns: 2, table.header([name], [value]),\n"
                f"{rows})], kind: table, caption: [{prefix}])\n\n")  # fmt: skip

    src = tmp_path / "t.typ"
    body = "#lorem(560)\n\n" + table("s", 12) + table("l", 90)
    src.write_text(_asset("typst-header.typ").read_text() + "\n" + body, encoding="utf-8")
    typst.compile(str(src), output=str(tmp_path / "t.pdf"))
    pages = [p.extract_text() for p in pypdf.PdfReader(str(tmp_path / "t.pdf")).pages]

    def on(word: str) -> list[int]:
        return [i for i, t in enumerate(pages) if re.search(rf"\b{word}\b", t)]

    assert on("s0") == on("s11"), "the short table is split"
    long = sorted(set(on("l0") + on("l89")))
    assert len(long) == 2 and all(pages[i].count("name") >= 1 for i in long)
    assert pages[long[1]].split("l89")[0].count("name") >= 1  # header repeated on its 2nd page


def test_custom_template_pagebreak_crossrefs_and_bibliography(tmp_path):
    """reports/custom.qmd (a user template): page break, @sec/@fig/@tbl references and a
    bibliography render in HTML and PDF; its numbers come from the library."""
    from medjudge.report.render import render_qmd

    files = render_qmd(
        ROOT / "reports" / "custom.qmd", out_dir=tmp_path,
        params={"data": str(DEMO.resolve()), "resamples": 100},
    )  # fmt: skip
    html = files["html"].read_text(encoding="utf-8")
    assert "?@" not in html and "page-break-after" in html
    assert "Wilson, Edwin B. 1927" in re.sub(r"\s+", " ", html)
    text = pdf_text(files["pdf"])
    assert len(pypdf.PdfReader(str(files["pdf"])).pages) == 2  # the page break
    for part in ("Wilson (1927)", "Hall and Miller (2009)", "Table 1", "Figure 1",
                 "“Key findings”", "References"):  # fmt: skip
        assert part in text, part
    assert "?@" not in text


def test_provenance_lists_what_produced_the_numbers():
    """The versions listed are those of the packages that compute the numbers and draw the
    figures; the cross-check libraries (the ``crosscheck`` extra) compute none and are not
    listed, installed or not."""
    from medjudge.report.provenance import package_versions

    versions = package_versions()
    assert {"python", "medjudge", "numpy", "pandas", "scipy", "statsmodels", "matplotlib"} <= set(
        versions
    )
    assert not {"pingouin", "krippendorff", "seaborn"} & set(versions)
