"""Built-in .qmd rendering: HTML and PDF content, reproducibility, escaping, atomic output.

Real renders start a Jupyter kernel (~2-4 s each); the suite does four of them.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from medjudge.report import render as render_mod
from medjudge.report.provenance import collect_provenance, provenance_frame, sha256_file
from medjudge.report.qmd import QmdError, inject_parameters, parameter_names, parse_qmd
from medjudge.report.render import RenderError, render_qmd
from medjudge.report.tables import escape_html, fmt_ci, fmt_num, fmt_p, frame_to_html

pypdf = pytest.importorskip("pypdf")
pytest.importorskip("nbclient")
pytest.importorskip("typst")

EXAMPLE = Path(__file__).resolve().parents[2] / "reports" / "example.qmd"
SCRIPT = "<script>alert(1)</script>"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def pdf_text(path: Path) -> str:
    reader = pypdf.PdfReader(str(path))
    text = "\n".join(page.extract_text() for page in reader.pages)
    return text.replace("\u00a0", " ").replace("\u2212", "-")


def html_text(path: Path) -> str:
    return path.read_text(encoding="utf-8").replace("\u00a0", " ").replace("&nbsp;", " ")


# ---------------------------------------------------------------------------- fast unit tests
def test_parse_qmd_options_front_matter_and_verbatim_blocks():
    text = (
        "---\ntitle: T\ndate: 2026-11-01\n---\n\n"
        "Intro `{python} 1 + 1`.\n\n"
        "```{python}\n#| label: fig-x\n#| fig-cap: 'A: caption'\n#| eval: false\nx = 1\n```\n\n"
        "````markdown\n```{python}\nnot_run()\n```\n````\n\n"
        "```{{python}}\nalso_not_run()\n```\n\n"
        "<!-- hidden comment -->\n"
        "```{python}\n#| tags: [parameters]\nseed = 1\nn: int = 5\n```\n"
    )
    nb = parse_qmd(text, path="t.qmd")
    assert nb.metadata["qmd"]["date"] == "2026-11-01"  # not a datetime.date
    code = [c for c in nb.cells if c.cell_type == "code"]
    inline, fig, params = code
    assert inline.metadata["qmd"]["inline"] and inline.metadata["qmd"]["exprs"] == ["1 + 1"]
    assert fig.metadata["qmd"] == {"label": "fig-x", "fig-cap": "A: caption", "eval": False}
    assert fig.metadata["tags"] == ["skip-execution"] and fig.source == "x = 1"
    assert fig.metadata["qmd_line"] == 8
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "not_run()" in markdown and "also_not_run()" in markdown
    assert "hidden comment" not in markdown
    assert parameter_names(nb) == ["seed", "n"]
    inject_parameters(nb, {"seed": 7})
    injected = nb.cells[nb.cells.index(params) + 1]
    assert injected.source.endswith("seed = 7")
    with pytest.raises(QmdError, match="unknown parameter"):
        inject_parameters(nb, {"sed": 7})


def test_parse_qmd_errors_name_file_and_line():
    with pytest.raises(QmdError, match=r"t\.qmd:3: '\{r\}' chunks"):
        parse_qmd("text\n\n```{r}\n1\n```\n", path="t.qmd")
    with pytest.raises(QmdError, match=r"t\.qmd:1: code fence"):
        parse_qmd("```{python}\nx = 1\n", path="t.qmd")


def test_escaping_and_number_formats():
    assert escape_html(SCRIPT) == "&lt;script&gt;alert(1)&lt;/script&gt;"
    assert escape_html("\"a\" & 'b'") == "&quot;a&quot; &amp; &#x27;b&#x27;"
    df = pd.DataFrame({SCRIPT: [SCRIPT, "ok"], "x": [0.12345, float("nan")]})
    html = frame_to_html(df)
    assert "<script" not in html and html.count("&lt;script&gt;") == 2
    assert "0.123" in html and "–" in html
    assert fmt_num(-0.0001, 3) == "0.000" and fmt_num(3) == "3"
    assert fmt_p(0.00001) == "< 0.001" and fmt_p(0.0412) == "0.041"
    assert fmt_ci(0.1, 0.25, 2) == "[0.10, 0.25]"


def test_provenance_record(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "b.csv").write_text("x\n1\n")
    (tmp_path / "data" / "a.csv").write_text("x\n2\n")
    rec = collect_provenance(
        [tmp_path / "data"], seed=1, resamples=2000, policies={"invalid": "wrong"}, command="cmd"
    )
    assert list(rec["inputs"]) == ["data/a.csv", "data/b.csv"]
    assert rec["inputs"]["data/b.csv"] == sha256_file(tmp_path / "data" / "b.csv")
    assert rec["settings"] == {"seed": 1, "resamples": 2000}
    for pkg in ("medjudge", "numpy", "pandas", "scipy", "matplotlib", "pandoc", "typst (python)"):
        assert pkg in rec["versions"]
    frame = provenance_frame(rec)
    assert list(frame.columns) == ["section", "name", "value"]
    assert frame.iloc[-1].tolist() == ["command", "command line", "cmd"]
    assert collect_provenance([tmp_path / "data"], command="cmd") != rec  # seed differs
    assert provenance_frame(collect_provenance([tmp_path / "data"], seed=1, resamples=2000,
                            policies={"invalid": "wrong"}, command="cmd")).equals(frame)  # fmt: skip


def test_interrupted_render_keeps_previous_output(tmp_path, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    good = out / "example.html"
    good.write_text("previous good report")

    def interrupted(src, formats, work, *args, **kwargs):
        (work / "example.html").write_text("half-writ")
        raise KeyboardInterrupt

    monkeypatch.setattr(render_mod, "_render_builtin", interrupted)
    with pytest.raises(KeyboardInterrupt):
        render_qmd(EXAMPLE, to="html", out_dir=out)
    assert good.read_text() == "previous good report"
    assert [p.name for p in out.iterdir()] == ["example.html"]  # temp dir removed


# ---------------------------------------------------------------------------- real renders
@pytest.fixture(scope="module")
def example_renders(tmp_path_factory):
    first = render_qmd(EXAMPLE, out_dir=tmp_path_factory.mktemp("r1"), command="pytest")
    second = render_qmd(EXAMPLE, out_dir=tmp_path_factory.mktemp("r2"), command="pytest")
    return first, second


def test_example_html_is_self_contained(example_renders):
    html_path = example_renders[0]["html"]
    html = html_text(html_path)
    assert not re.search(r"""(src|href)\s*=\s*["']?https?://""", html)
    assert "data:image/png;base64," in html
    assert "Figure 1" in html and "Table 1" in html
    assert 'href="#fig-accuracy"' in html and 'id="tbl-accuracy"' in html
    assert "callout-note" in html and "<math" in html
    assert "seed 2024" in html  # inline value from the parameters cell


def test_example_pdf_text(example_renders):
    pdf_path = example_renders[0]["pdf"]
    text = pdf_text(pdf_path)
    for row in ("judge-A 0.712 120", "judge-B 0.655 120", "judge-C 0.585 120"):
        assert row in text
    assert "Figure 1" in text and "Table 1: Accuracy by judge." in text
    assert "About this example" in text
    assert "-0.057" in text
    assert pdf_path.read_bytes().startswith(b"%PDF")


def test_example_renders_are_byte_identical(example_renders):
    first, second = example_renders
    for fmt in ("html", "pdf"):
        assert sha256(first[fmt]) == sha256(second[fmt]), fmt


def test_a_render_leaves_the_process_environment_alone(example_renders):
    """The renderer's raw-block secret goes to its kernel only. It used to stay in this
    process's environment after a render, so every later in-process report build marked its
    own HTML tables with the secret and pandoc showed them as code (the fence tests of
    test_escaping_fuzz.py failed when they ran after a render in the same process)."""
    import os

    from medjudge.report.escape import RAW_TOKEN_ENV, trusted_raw

    assert example_renders[0]["html"].exists()
    assert RAW_TOKEN_ENV not in os.environ
    assert trusted_raw("html") == "{=html}"


def test_untrusted_strings_are_escaped(tmp_path):
    src = tmp_path / "escape.qmd"
    src.write_text(
        "---\ntitle: Escaping\nexecute:\n  echo: false\n---\n\n"
        "```{python}\n#| tags: [parameters]\nrater = 'nobody'\n```\n\n"
        "```{python}\nimport pandas as pd\n"
        "from medjudge.report.tables import html_table\n"
        "df = pd.DataFrame({'rater': [rater], 'rationale': ['<b>bold</b> & <img src=x>']})\n```\n\n"
        "Rater: `{python} rater`.\n\n"
        "```{python}\n#| label: tbl-raw\n#| tbl-cap: 'pandas repr'\ndf\n```\n\n"
        "```{python}\n#| label: tbl-esc\n#| tbl-cap: 'escaped helper'\nhtml_table(df)\n```\n\n"
        "```{python}\nprint(rater)\n```\n",
        encoding="utf-8",
    )
    out = render_qmd(src, to="html", out_dir=tmp_path / "out", params={"rater": SCRIPT})
    html = out["html"].read_text(encoding="utf-8")
    assert "<script" not in html.lower()
    assert "<img src=x" not in html and "<b>bold" not in html
    assert html.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 4  # inline, 2 tables, print
    assert "Table\u00a02" in html or "Table 2" in html


def test_failing_chunk_reports_label_and_line_and_keeps_output(tmp_path, example_renders):
    out = tmp_path / "out"
    out.mkdir()
    shutil.copy(example_renders[0]["html"], out / "example.html")
    before = sha256(out / "example.html")
    broken = tmp_path / "example.qmd"
    broken.write_text(
        "---\ntitle: broken\n---\n\nText.\n\n"
        "```{python}\n#| label: fig-boom\nraise ValueError('no gold labels for item 7')\n```\n",
        encoding="utf-8",
    )
    with pytest.raises(RenderError) as info:
        render_qmd(broken, to="html", out_dir=out)
    msg = str(info.value)
    assert "example.qmd:7" in msg and "fig-boom" in msg
    assert "ValueError: no gold labels for item 7" in msg
    assert "Traceback" not in msg and info.value.traceback
    assert sha256(out / "example.html") == before
    assert sorted(p.name for p in out.iterdir()) == ["example.html"]


def test_writer_honours_chunk_options(tmp_path):
    import base64

    import nbformat
    from medjudge.report.qmd import INLINE_MIME
    from medjudge.report.render import notebook_to_markdown

    text = (
        "---\nexecute:\n  echo: false\n  warning: false\nfig-format: png\n---\n\n"
        "Value `{python} v`.\n\n"
        "```{python}\n#| label: fig-a\n#| fig-cap: Cap\nplot()\n```\n\n"
        "```{python}\n#| output: asis\nprint('**bold**')\n```\n\n"
        "```{python}\n#| warning: true\n#| echo: true\nwarn()\n```\n\n"
        "```{python}\n#| include: false\nhidden()\n```\n"
    )
    nb = parse_qmd(text)
    inline, fig, asis, warn, hidden = [c for c in nb.cells if c.cell_type == "code"]
    new = nbformat.v4.new_output
    inline.outputs = [new("display_data", data={INLINE_MIME: ["<i>1</i>"]})]
    png = base64.b64encode(b"\x89PNG fake").decode()
    fig.outputs = [
        new("stream", name="stderr", text="UserWarning: noisy\n"),
        new("display_data", data={"image/png": png, "text/plain": "<Figure>"}),
    ]
    asis.outputs = [new("stream", name="stdout", text="**bold**\n")]
    warn.outputs = [new("stream", name="stderr", text="shown warning\n")]
    hidden.outputs = [new("stream", name="stdout", text="never\n")]
    md = notebook_to_markdown(nb, fmt="html", files_dir=tmp_path / "f", rel_files="f")
    assert r"Value \<i\>1\<\/i\>." in md  # inline values are literal text
    assert "![Cap](f/cell" in md and "{#fig-a width=100%}" in md
    assert any((tmp_path / "f").glob("*.png")) and "UserWarning" not in md
    assert "\n**bold**\n" in md  # asis
    assert "shown warning" in md and "warn()" in md  # per-chunk warning/echo override
    assert "never" not in md and "hidden()" not in md and "plot()" not in md
