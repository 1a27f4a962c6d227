"""``medjudge agreement FILE``: agreement coefficients with intervals from a ratings table.

Input: a **wide** table (one row per item, one column per rater, empty cell = missing; the item
column is ``--item``, the rater columns ``--raters`` or every other column), or any table with a
``--mapping FILE.toml`` (long or wide, see data/mappings/). Labels that are not numbers are coded
in the order given by ``--categories`` (or sorted, for nominal data). The measurement level is
never guessed: ``--level`` (default nominal) or the mapping's declared scale.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..analyses.audit import audit_settings
from ..data.design import presentation_design
from ..data.errors import InputError
from ..data.interface import RatingMatrix
from ..data.io import LINE, read_table
from ..data.model import natural_order
from ..data.tables import load_any
from ..stats.agreement import WEIGHT_KINDS, agreement_table
from ..stats.resampling import Bootstrap
from . import _options as opt
from ._common import add_exchangeable, dump_json, refuse_with_mapping, term_width

# short names accepted by --coef -> agreement_table names
COEF_ALIASES = {
    "pa": "percent_agreement",
    "percent": "percent_agreement",
    "cohen": "cohen_kappa",
    "scott": "scott_pi",
    "pabak": "pabak",
    "fleiss": "fleiss_kappa",
    "conger": "conger_kappa",
    "bp": "brennan_prediger",
    "brennan_prediger": "brennan_prediger",
    "gwet": "gwet_ac",
    "ac1": "gwet_ac",
    "ac2": "gwet_ac",
    "alpha": "krippendorff_alpha",
    "krippendorff": "krippendorff_alpha",
    "kendall": "kendall_w",
    "icc": "icc",
}


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "agreement", help="inter-rater agreement coefficients with intervals from a ratings table"
    )
    p.add_argument("path", help="ratings table (.csv/.tsv/.jsonl/.json/.parquet)")
    p.add_argument("--item", help="item id column (wide tables; default: row number)")
    p.add_argument(
        "--raters", help="rater columns, comma-separated (wide tables; default: all but --item)"
    )
    p.add_argument(
        "--mapping", help="TOML column mapping (long or wide tables, see data/mappings/)"
    )
    opt.add(p, "--dimensions")
    opt.renamed(p, "agreement", "--dimension", "dimensions", type=opt.NAMES)
    p.add_argument(
        "--role", choices=["expert", "judge"], help="with --mapping: only raters of this role"
    )
    add_exchangeable(
        p,
        "the rater ids are exchangeable slots (crowd labels), not persons: only "
        "rater-exchangeable coefficients (with a table, any role name marks its columns)",
        dest="exchangeable_roles",
    )
    p.add_argument(
        "--level",
        choices=["nominal", "ordinal", "interval", "ratio"],
        help="measurement level (default: the mapping's scale, else nominal)",
    )
    p.add_argument(
        "--categories", help="category labels in order (ordinal: low to high), comma-separated"
    )
    p.add_argument(
        "--weights", choices=list(WEIGHT_KINDS), help="kappa-family weights (default: the level's)"
    )
    p.add_argument(
        "--coef",
        default="all",
        help="all, or comma-separated: " + ", ".join(sorted(set(COEF_ALIASES))),
    )
    p.add_argument(
        "--ci",
        choices=["auto", "analytic", "bootstrap", "none"],
        default="auto",
        help="auto (default): BCa bootstrap below 100 items, analytic from 100 on "
        "(docs/calibration.md)",
    )
    p.add_argument(
        "--method", choices=["bca", "percentile", "basic"], default="bca", help="bootstrap interval"
    )
    opt.add(
        p, *opt.RESAMPLING, "--json", "--cluster",
        note="; a table without --mapping: a column named here (auto and none: items "
        "independent)",
    )  # fmt: skip
    p.set_defaults(func=run)


def _one_verdict_per_rater(study: Any, dim: str, role: str | None) -> Any:
    """The items x raters matrix with one verdict per cell: judges who saw an item in both
    presentation orders contribute their first presentation (AB), the order accuracy uses;
    every other rater keeps all its verdicts. Said on stderr when it applies."""

    design = presentation_design(study, dim)
    order = design.evaluation_order
    raters = study.raters(role)
    swap = [r for r in raters if r in set(design.swap_judges)] if order else []
    if not swap:
        return study.matrix(dim, role=role)
    print(
        f"medjudge: note: {dim}: {len(swap)} judge(s) saw items in both presentation orders; "
        f"their order-{order} verdicts are used (the order accuracy uses)",
        file=sys.stderr,
    )
    rest = [r for r in raters if r not in set(swap)]
    a = study.matrix(dim, raters=swap, order=order)
    if not rest:
        return a
    b = study.matrix(dim, raters=rest)
    values = np.column_stack([a.values, b.values])
    return RatingMatrix(values, a.items, [*a.raters, *b.raters], dim, a.scale)


def _coefficients(spec: str) -> list[str] | None:
    if spec.strip() == "all":
        return None
    out = []
    for name in (s.strip().lower() for s in spec.split(",") if s.strip()):
        if name in COEF_ALIASES:
            out.append(COEF_ALIASES[name])
        elif name in COEF_ALIASES.values():
            out.append(name)
        else:
            raise InputError(
                f"unknown coefficient {name!r} in --coef",
                hint="use all or " + ", ".join(sorted(set(COEF_ALIASES))),
            )
    return out


def _encode(
    values: pd.DataFrame, level: str, categories: list[str] | None, path: Path
) -> tuple[np.ndarray, Any]:
    """Numeric matrix (NaN = empty cell) and the category labels when labels were coded."""
    cells = values.astype(str).apply(lambda c: c.str.strip())
    filled = cells != ""
    if categories:
        index = {c: i for i, c in enumerate(categories)}
        _refuse_cells(
            cells, filled & ~cells.isin(list(index)), path,
            lambda v: f"label {v!r} is not among --categories {', '.join(categories)}",
        )  # fmt: skip
        X = cells.apply(
            lambda c: c.map(lambda v: float(index[v]) if v in index else np.nan)
        ).to_numpy(float)
        return X, list(categories)
    num = cells.apply(lambda c: pd.to_numeric(c.where(c != ""), errors="coerce"))
    not_num = filled & num.isna()
    if not not_num.to_numpy().any():
        return num.to_numpy(dtype=float), None
    if level != "nominal":
        _refuse_cells(
            cells, not_num, path,
            lambda v: f"{v!r} is not a number, and the {level} level needs an order",
            hint="give the labels in order with --categories low,...,high",
        )  # fmt: skip
    labels = sorted(set(cells.to_numpy()[filled.to_numpy()]))
    index = {c: i for i, c in enumerate(labels)}
    X = cells.apply(lambda c: c.map(lambda v: float(index[v]) if v in index else np.nan)).to_numpy(
        float
    )
    return X, labels


def _refuse_cells(
    cells: pd.DataFrame, bad: pd.DataFrame, path: Path, message: Any, hint: str | None = None
) -> None:
    """The first cell flagged in ``bad`` as one error naming its file, line and column."""
    if not bad.to_numpy().any():
        return
    i, j = np.argwhere(bad.to_numpy())[0]
    raise InputError(
        message(cells.iat[i, j]), file=path, line=int(i) + 2, column=str(cells.columns[j]),
        hint=hint,
    )  # fmt: skip


def _all_numbers(labels: list[Any]) -> bool:
    try:
        [float(x) for x in labels]
    except (TypeError, ValueError):
        return False
    return True


def load_ratings(args: argparse.Namespace) -> tuple[np.ndarray, list[str], list[str], Any, Any]:
    """``(X, items, raters, level-or-scale, labels)`` from the command-line options."""
    path = Path(args.path)
    numeric_level = args.level in ("interval", "ratio")
    if args.mapping:
        refuse_with_mapping(args, ("item", "raters", "categories"))

        study = load_any(path, args.mapping)
        dims = study.dimensions
        dim = opt.one_dimension(args.dimensions, "agreement") or (
            dims[0] if len(dims) == 1 else None
        )
        if dim is None or dim not in study.scales:
            raise InputError(
                "choose one dimension with --dimensions (have " + ", ".join(map(str, dims)) + ")",
                file=path,
            )
        study.exchangeable = tuple(
            dict.fromkeys([*study.exchangeable, *(args.exchangeable_roles or [])])
        )
        role = args.role
        if role is None and study.exchangeable:  # crowd slots are not mixed with named judges
            role = study.exchangeable[0]
        if role is None and study.experts and study.judges:  # nor experts with judges
            raise InputError(
                f"the table has {len(study.experts)} experts and {len(study.judges)} judges; "
                "agreement is computed within one role: add --role expert or --role judge",
                file=path,
            )
        m = _one_verdict_per_rater(study, dim, role)
        args.exchangeable = role in study.exchangeable

        st = audit_settings(study, ci=None, cluster=args.cluster)
        args.cluster_name, args.cluster_ids = st.cluster, st.clusters(m.items)
        scale = m.scale
        level: Any = args.level or scale
        labels = list(scale.categories) if scale.is_categorical else None
        if numeric_level and labels is not None and not _all_numbers(labels):
            raise InputError(
                f"--level {args.level} needs numbers, but {dim!r} has the labels "
                + ", ".join(map(str, labels[:6])),
                file=args.mapping,
                hint="use --level nominal, or ordinal for ordered labels",
            )
        return m.values, m.items, m.raters, level, labels
    df, _ = read_table(path)
    df = df.drop(columns=[c for c in (LINE,) if c in df.columns])
    if args.item and args.item not in df.columns:
        raise InputError(
            f"item column {args.item!r} not found",
            file=path,
            hint="columns: " + ", ".join(map(str, df.columns)),
        )
    raters = (
        [r.strip() for r in args.raters.split(",")]
        if args.raters
        else [c for c in df.columns if c != args.item]
    )
    missing = [r for r in raters if r not in df.columns]
    if missing:
        raise InputError(
            f"rater column {missing[0]!r} not found",
            file=path,
            hint="columns: " + ", ".join(map(str, df.columns)),
        )
    if len(raters) < 2:
        raise InputError("agreement needs at least two rater columns", file=path)
    if not args.raters:
        _refuse_guess(df, raters, path)
    if args.item:  # canonical item order: resampled numbers do not depend on the row order
        df = df.iloc[natural_order(df[args.item])].reset_index(drop=True)
    items = list(df[args.item]) if args.item else [str(i + 1) for i in range(len(df))]
    level = args.level or "nominal"
    cats = [c.strip() for c in args.categories.split(",")] if args.categories else None
    if cats is not None and numeric_level and not _all_numbers(cats):
        raise InputError(
            f"--level {args.level} needs numbers, but --categories are labels "
            + ", ".join(cats[:6]),
            hint="use --level nominal, or ordinal for ordered labels",
        )
    args.exchangeable = bool(args.exchangeable_roles)
    args.cluster_name, args.cluster_ids = None, None
    if args.cluster not in ("auto", "none"):
        if args.cluster not in df.columns:
            raise InputError(
                f"cluster column {args.cluster!r} not found",
                file=path,
                hint="columns: " + ", ".join(map(str, df.columns)),
            )
        if args.cluster in raters:
            raise InputError(f"--cluster {args.cluster!r} is also a rater column", file=path)
        ids = df[args.cluster].astype(str).to_numpy()
        if len(set(ids)) < len(ids):
            args.cluster_name, args.cluster_ids = args.cluster, ids
    X, labels = _encode(df[raters], level, cats, path)
    return X, items, raters, level, labels


def _refuse_guess(df: Any, raters: list[str], path: Path) -> None:
    """Without ``--raters`` every other column is taken as a rater: only if they share one scale.

    A column is off the shared scale when it is free text: more than half of its values distinct,
    over at least 10 rows. Numbers throughout are one (numeric) scale.
    """
    vals = {c: [v for v in df[c] if v != ""] for c in raters}
    if _all_numbers([v for vs in vals.values() for v in vs]):
        return
    off = [c for c, vs in vals.items() if len(vs) >= 10 and len(set(vs)) > len(vs) / 2]
    if off:
        raise InputError(
            f"column(s) {', '.join(map(str, off[:5]))} do not look like ratings on the same scale as the others; "
            "medjudge does not guess which columns are raters",
            file=path,
            hint="name them: --item ID --raters r1,r2,r3 [--level ordinal --categories low,mid,high], "
            'or write a mapping: layout = "wide", item = "ID", [raters.r1] role = "expert", '
            '[scale] level = "nominal", categories = [...] (data/FORMAT.md)',
        )


#: coefficients that treat raters as fixed persons (undefined for exchangeable annotation slots)
PER_RATER = ("conger_kappa", "kendall_w", "cohen_kappa", "scott_pi", "pabak", "icc")
#: coefficients defined for exchangeable raters (labels per item may vary in number)
EXCHANGEABLE = (
    "percent_agreement", "fleiss_kappa", "brennan_prediger", "gwet_ac", "krippendorff_alpha"
)  # fmt: skip


def lvl_numeric(level: Any) -> bool:
    """Whether a measurement level (a name or a scale) is interval or ratio."""
    return (level if isinstance(level, str) else level.level) in ("interval", "ratio")


def compute(args: argparse.Namespace) -> dict[str, Any]:
    X, items, raters, level, labels = load_ratings(args)
    n_missing = int(np.isnan(X).sum())
    ci = None if args.ci == "none" else args.ci
    categories = np.arange(len(labels), dtype=float) if labels is not None else None
    kw: dict[str, Any] = {}
    if labels is not None and isinstance(level, str):
        kw["categories"] = categories
    coefficients = _coefficients(args.coef)
    # with clusters, "auto" is each coefficient's cluster-aware rule (the cluster jackknife;
    # docs/calibration.md, "Agreement coefficients with clusters")
    skipped = {}
    one_way_only = False
    if getattr(args, "exchangeable", False):
        asked = list(PER_RATER) if coefficients is None else coefficients
        for c in PER_RATER:
            if c in asked and c != "icc":
                skipped[c] = "rater ids are exchangeable annotation slots, not persons"
        if coefficients is None:
            coefficients = list(EXCHANGEABLE)
        else:
            coefficients = [c for c in coefficients if c not in PER_RATER]
        if "icc" in asked and lvl_numeric(level):
            # the one-way forms treat the raters of an item as a random draw: they apply to
            # exchangeable slots (the ICC(1) that compare reports); the two-way forms do not
            coefficients.append("icc")
            one_way_only = True
            skipped["ICC(2,·), ICC(3,·)"] = (
                "two-way forms model each rater as a person; exchangeable slots get the one-way "
                "ICC(1,1) and ICC(1,k)"
            )
        elif "icc" in asked:
            skipped["icc"] = "rater ids are exchangeable annotation slots, not persons"
    table = agreement_table(
        X,
        scale=level,
        weights=args.weights,
        ci=ci,
        confidence_level=args.confidence_level,
        bootstrap=Bootstrap(args.resamples, args.seed, method=args.method),
        clusters=getattr(args, "cluster_ids", None),
        coefficients=coefficients,
        **kw,
    )
    if one_way_only:
        table = table[~table["coefficient"].str.match(r"ICC\([23],")].reset_index(drop=True)
    lvl = level if isinstance(level, str) else level.level
    return {
        "file": str(args.path),
        "n_items": int(X.shape[0]),
        "raters": raters,
        "level": lvl,
        "categories": labels,
        "missing_ratings": n_missing,
        "items_with_fewer_than_two_ratings": int(((~np.isnan(X)).sum(axis=1) < 2).sum()),
        "ci": ci or "none",
        "resamples": args.resamples if ci in ("bootstrap", "auto") else None,
        "seed": args.seed if ci in ("bootstrap", "auto") else None,
        "cluster": getattr(args, "cluster_name", None),
        "n_clusters": (
            len(set(args.cluster_ids)) if getattr(args, "cluster_ids", None) is not None else None
        ),
        # a note only where an estimate is not defined (null in JSON, with its reason)
        "coefficients": [
            {k: v for k, v in r.items() if k != "note" or v}
            for r in table.to_dict(orient="records")
        ],
        **({"not_computed": skipped} if skipped else {}),
    }


def run(args: argparse.Namespace) -> int:
    res = compute(args)
    if args.json:
        print(dump_json(res))
        return 0
    print(
        f"{res['file']}: {res['n_items']} items x {len(res['raters'])} raters ({', '.join(res['raters'])}); "
        f"level {res['level']}; {res['missing_ratings']} missing ratings; "
        f"{res['items_with_fewer_than_two_ratings']} items with fewer than two ratings"
    )
    if res["categories"]:
        print("categories (code order): " + ", ".join(map(str, res["categories"])))
    if res.get("cluster"):
        print(
            f"items clustered by {res['cluster']!r} ({res['n_clusters']} clusters): each "
            "interval's ci_method below says how it keeps them"
        )
    t = pd.DataFrame(res["coefficients"])
    for name, why in res.get("not_computed", {}).items():
        print(f"not computed: {name}: {why}", file=sys.stderr)
    if t.empty:
        print(
            "no coefficient applies to these options"
            + (" (the reasons are above)" if res.get("not_computed") else ""),
            file=sys.stderr,
        )
        return 0
    cols = ["coefficient", "estimate", "se", "ci_low", "ci_high", "n", "weights", "ci_method"]
    if "note" in t.columns:  # an estimate that is not defined is said so, with its reason
        undefined = t["note"].fillna("").astype(str) != ""
        t = t.astype({c: object for c in ("estimate", "se", "ci_low", "ci_high")})
        t.loc[undefined, "estimate"] = t.loc[undefined, "note"]
        t.loc[undefined, ["se", "ci_low", "ci_high"]] = "–"
    print(
        t[cols].to_string(
            line_width=term_width(), index=False, float_format=lambda v: f"{v:.4f}", na_rep="–"
        )
    )
    return 0
