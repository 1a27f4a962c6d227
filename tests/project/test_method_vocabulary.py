"""Method words live where the method runs (issue 36, item 6).

Scans the string literals of ``report/`` and ``commands/`` for method vocabulary typed as
text — test and interval names, "max-t", "simultaneous", "Holm", "bootstrap", "Wilson",
family words — and for an "α =" whose value is not read from a result. A sentence must take
such words from the result it describes (``ci_method``, ``test``, ``family``,
``settings["multiplicity"]``, ``rank_set``, ``alpha``), so that it cannot say one method while
the code ran another (the typed "simultaneous (max-t …; Mogstad et al. 2024) … 2,000
cluster-bootstrap resamples" sentence of the leaderboard described rank sets that came from
Holm-adjusted pairwise decisions).

Not scanned, by construction (each is not prose about what ran):

* docstrings and comments;
* argparse ``help=``/``choices=``/``metavar=``/``description=`` and the help text of
  ``add_parser``/``add_engine_arg`` (an option's documentation names the methods the user can
  choose among);
* strings compared with (``==``, ``in``) or used as keys/subscripts (they *read* a result's
  fields, e.g. ``t["p_holm"]``);
* single tokens (an option value or identifier such as ``"bootstrap"``, ``"p_mcnemar_midp"``);
* citation keys (``holm1979``) and ``report/sections/references.py``, the bibliography (full
  references of the papers a result's methods cite, and the map from a result's ``ci_method``
  words to its papers).

``PENDING`` lists, per file and word, the typed method words still to be moved into results
(sections whose decisions are made in the report from ``ctx.alpha``, and Methods paragraphs that
name a fixed method). The test fails on any new typed word and on any entry that is gone (so
the list only shrinks): it is a ratchet, not an allow-list.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "analysis" / "medjudge"
SCANNED = ("report", "commands")

VOCAB = re.compile(
    r"max-t|simultaneous|\bHolm\b|bootstrap|Wilson|Bonferroni|Benjamini|McNemar|Clopper|"
    r"Newcombe|Tango|Durkalski|mid-p|Mogstad|within (?:each )?dimension|over all \d",
    re.IGNORECASE,
)
CITE_KEY = re.compile(r"^[a-z_]+\d{4}[a-z]*$")
#: one token (an option value, a column or method identifier such as "bootstrap" or
#: "p_mcnemar_midp"): a name the code passes on, not prose
TOKEN = re.compile(r"^[\w.-]+$")
DOC_KEYWORDS = {"help", "choices", "metavar", "description"}

#: (file relative to analysis/medjudge, word as typed) -> occurrences still to move into results
PENDING: dict[tuple[str, str], int] = {}


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {c: n for n in ast.walk(tree) for c in ast.iter_child_nodes(n)}


def _docstrings(tree: ast.AST) -> set[ast.AST]:
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            first = n.body[0] if n.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(first.value)
    return out


def _is_reading(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """Whether a literal is documentation of an option or reads a result (not prose)."""
    up = node
    while isinstance(parents.get(up), (ast.JoinedStr, ast.BinOp, ast.FormattedValue)):
        up = parents[up]
    p = parents.get(up)
    if isinstance(p, ast.keyword) and p.arg in DOC_KEYWORDS:
        return True
    if isinstance(p, ast.Call) and getattr(p.func, "attr", getattr(p.func, "id", "")) in (
        "add_engine_arg",
        "add_parser",
        "input_parser",
    ):
        return True  # a command's or option's help text, passed positionally
    if isinstance(p, (ast.Compare, ast.Subscript)):
        return True
    if isinstance(p, ast.Dict) and up in p.keys:
        return True
    if isinstance(p, ast.Dict):  # {"help": "..."}: an option's documentation
        key = p.keys[p.values.index(up)] if up in p.values else None
        if isinstance(key, ast.Constant) and key.value in DOC_KEYWORDS:
            return True
    return False


def _alpha_from_settings(node: ast.Constant, parents: dict[ast.AST, ast.AST]) -> bool:
    """An "α =" whose value is the report's or the command's *setting* (``ctx.alpha``,
    ``args.alpha``) or a literal, rather than the α a result records."""
    js = parents.get(node)
    if not isinstance(js, ast.JoinedStr):
        return True  # "α = 0.05" typed in a plain string
    parts = js.values
    k = parts.index(node)
    nxt = parts[k + 1] if k + 1 < len(parts) else None
    if not isinstance(nxt, ast.FormattedValue):
        return True
    src = ast.unparse(nxt.value)
    return src in ("ctx.alpha", "args.alpha")


def typed_method_words() -> Counter:
    found: Counter = Counter()
    for sub in SCANNED:
        for path in sorted((ROOT / sub).rglob("*.py")):
            rel = str(path.relative_to(ROOT))
            if rel == "report/sections/references.py":
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            parents, docs = _parents(tree), _docstrings(tree)
            for n in ast.walk(tree):
                if not (isinstance(n, ast.Constant) and isinstance(n.value, str)) or n in docs:
                    continue
                if CITE_KEY.match(n.value) or TOKEN.match(n.value) or _is_reading(n, parents):
                    continue
                for m in VOCAB.finditer(n.value):
                    found[(rel, m.group(0))] += 1
                if re.search(r"(α|alpha) =\s*$", n.value) and _alpha_from_settings(n, parents):
                    found[(rel, "α = <setting>")] += 1
    return found


def test_no_new_typed_method_words_and_pending_only_shrinks():
    found = typed_method_words()
    new = {k: v for k, v in found.items() if v > PENDING.get(k, 0)}
    gone = {k: v for k, v in PENDING.items() if found.get(k, 0) < v}
    assert not new, (
        "method words typed as text (take them from the result's fields: ci_method, test, "
        f"family, settings['multiplicity'], rank_set, alpha): {sorted(new.items())}"
    )
    assert not gone, f"fewer typed method words than PENDING lists; shrink PENDING: {gone}"


def _words(src: str) -> list[str]:
    tree = ast.parse(src)
    parents, docs = _parents(tree), _docstrings(tree)
    words = []
    for n in ast.walk(tree):
        if not (isinstance(n, ast.Constant) and isinstance(n.value, str)) or n in docs:
            continue
        if CITE_KEY.match(n.value) or TOKEN.match(n.value) or _is_reading(n, parents):
            continue
        words += [m.group(0) for m in VOCAB.finditer(n.value)]
        if re.search(r"(α|alpha) =\s*$", n.value) and _alpha_from_settings(n, parents):
            words.append("α = <setting>")
    return words


def test_the_scan_finds_what_it_should():
    # the leaderboard's old typed Methods sentence is caught; reading a field is not
    src = (
        'x = (f"Rank sets are simultaneous (max-t over all pairs; Mogstad et al. 2024) from "\n'
        '    f"{b} cluster-bootstrap resamples")\n'
        'y = t["p_holm"] if "holm" in m else "bootstrap"\n'
        'z = f"(α = {ctx.alpha:g})"\n'
        'w = f"(α = {board.alpha.iloc[0]:g})"\n'
        'p.add_argument("--x", help="Holm or Bonferroni")\n'
    )
    assert sorted(_words(src)) == sorted(
        ["simultaneous", "max-t", "Mogstad", "bootstrap", "α = <setting>"]
    )
