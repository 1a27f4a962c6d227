"""Issue 14: one escaping function per target, applied at the sinks — matplotlib text, the
report's markdown (``output: asis`` and markdown outputs), and the resources pandoc embeds."""

from __future__ import annotations

import base64
import io

import matplotlib
import pandas as pd
import pytest
from medjudge.report import escape

matplotlib.use("Agg")

NASTY = [
    "$\\frac{$",
    "a $x$ b",
    "price $5",
    "![x](/etc/passwd)",
    "`<script>alert(1)</script>`{=html}",
    "**bold** _it_ <b>",
    "=1+1",
    "# heading",
]


@pytest.mark.parametrize("text", NASTY)
def test_markdown_escape_is_literal_through_pandoc(text):
    """pandoc reads the escaped text back as exactly the original characters (plain Str)."""
    import pypandoc

    md = escape.markdown(text)
    native = pypandoc.convert_text(
        md, "plain", format="markdown-raw_html", extra_args=["--wrap=none"]
    )
    assert native.strip() == text.strip()


@pytest.mark.parametrize("text", NASTY)
def test_html_and_typst_escapes(text):
    h = escape.html(text)
    assert "<" not in h and ">" not in h and '"' not in h
    t = escape.typst(text)
    for ch in "$#*_`<>@[]":
        assert t.count(ch) == t.count("\\" + ch), (ch, t)


def test_mathtext_escape_is_idempotent_and_draws():
    import matplotlib.pyplot as plt

    for text in NASTY:
        once = escape.mathtext(text)
        assert escape.mathtext(once) == once
        fig, ax = plt.subplots()
        ax.set_title(once)
        fig.savefig(io.BytesIO(), format="png")  # unescaped "$\frac{$" raises here
        plt.close(fig)


def test_figures_with_dollar_names_render():
    """A judge or dimension named with $...$ used to abort both reports (mathtext)."""
    import matplotlib.pyplot as plt
    from medjudge.plots import forest_plot, rank_interval_plot

    df = pd.DataFrame(
        {
            "judge": ["$\\frac{$", "b$x$", "=c"],
            "dimension": ["dim $y$"] * 3,
            "estimate": [0.5, 0.6, 0.7],
            "ci_low": [0.4, 0.5, 0.6],
            "ci_high": [0.6, 0.7, 0.8],
        }
    )
    fig = forest_plot(df, baseline=0.5)
    fig.savefig(io.BytesIO(), format="svg")
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert "b\\$x\\$" in labels and ax.get_title() == "dim \\$y\\$"
    ax2 = rank_interval_plot(
        pd.DataFrame(
            {"judge": ["$a$", "b"], "rank": [1, 2], "rank_low": [1, 1], "rank_high": [2, 2]}
        )
    )
    ax2.figure.savefig(io.BytesIO(), format="png")
    plt.close("all")


def test_spreadsheet_frame_only_touches_text():
    df = pd.DataFrame(
        {"judge": ["=x", "+y", "-z", "@w", "\tt", "ok", "-"], "n": [-1, 2, 3, 4, 5, 6, 7]}
    )
    out = escape.spreadsheet_frame(df)
    assert list(out["judge"]) == ["'=x", "'+y", "'-z", "'@w", "'\tt", "ok", "'-"]
    assert list(out["n"]) == list(df["n"]) and list(df["judge"])[0] == "=x"  # copy, not in place
    assert list(escape.spreadsheet_frame(pd.DataFrame(columns=["=c"])).columns) == ["'=c"]


def _asis_notebook(text: str, markdown_output: str):
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata["qmd"] = {}
    c1 = nbformat.v4.new_code_cell(
        "print(note)", metadata={"qmd": {"output": "asis", "echo": False}}
    )
    c1.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text)]
    c2 = nbformat.v4.new_code_cell("display(md)", metadata={"qmd": {"echo": False}})
    c2.outputs = [nbformat.v4.new_output("display_data", data={"text/markdown": markdown_output})]
    nb.cells = [c1, c2]
    return nb


def test_raw_markdown_sink_is_closed(tmp_path):
    """Raw {=html} passes neither via asis notes nor markdown outputs; only the report's own
    figures are embedded (no local file, no URL), with --embed-resources."""
    from medjudge.report import render

    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"SECRET-CONTENT-1234")
    work = tmp_path / "work"
    work.mkdir()
    own = work / "r_files"
    own.mkdir()
    # a 1x1 PNG written by the renderer is still embedded
    png = base64.b64decode(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg=="
    )
    (own / "fig.png").write_bytes(png)
    note = (
        f"Dimension `<script>alert(1)</script>`{{=html}} and ![leak]({secret}) and\n\n"
        '```{=html}\n<img src="' + str(secret) + '">\n```\n\n![ok](r_files/fig.png)\n'
    )
    nb = _asis_notebook(note, f"![remote](https://example.org/x.png) ![leak2](../{secret.name})")
    body = render.notebook_to_markdown(nb, fmt="html", files_dir=own, rel_files="r_files")
    assert "{=html}" not in body.replace("\\{\\=html\\}", "")
    md = work / "r.html.md"
    md.write_text("---\npagetitle: t\n---\n\n" + body, encoding="utf-8")
    render._pandoc(md, work / "r.html", "html", [], work)
    html = (work / "r.html").read_text(encoding="utf-8")
    leaked = base64.b64encode(b"SECRET-CONTENT-1234").decode()[:16]
    assert "SECRET-CONTENT" not in html and leaked not in html
    assert "<script>alert" not in html
    assert "example.org" not in html or "data:" not in html.split("example.org")[0][-80:]
    assert 'src="data:image/png;base64,' in html  # the report's own figure is embedded
    assert "leak" in html  # the alt text is kept, as text
