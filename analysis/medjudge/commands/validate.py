"""``medjudge validate``: load a bundle or table and print what is in it, and what is wrong."""

from __future__ import annotations

import argparse

from ..data.errors import InputError
from . import _options as opt
from ._common import dump_json, input_parser, load_input, term_width
from ._engine import add_engine_arg, engine_of, refuse_options


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = input_parser(
        sub, "validate", "load and check input; print counts per role, rater, dimension, status"
    )
    add_engine_arg(p, "count per role, rater, dimension and status with aggregate queries")
    opt.add(p, "--json")
    p.set_defaults(func=run)


def _role_name(s: dict, role: str) -> str:
    name = s.get("role_names", {}).get(role)
    return f" ({name})" if name else ""


def design_lines(design: dict) -> list[str]:
    """The design each dimension is analysed under and where each part came from (dimensions
    with the same design share one entry)."""
    groups: dict[str, list[str]] = {}
    for d, g in design.items():
        src = g.get("source", {})
        parts = [f"{g['presentation']} ({src.get('presentation', '')})"]
        if g["presentation"] == "pairwise":
            parts.append(
                f"first {g['first']!r}, second {g['second']!r}, tie "
                + (repr(g["tie"]) if g["tie"] is not None else "none")
                + f" ({src.get('categories', '')})"
            )
            if g.get("kind") == "swapped":
                parts.append(
                    f"accuracy uses order {g['accuracy_order']} for judges seen in both orders "
                    f"({src.get('accuracy_order', '')})"
                )
        groups.setdefault("; ".join(parts), []).append(d)
    return [f"design ({', '.join(ds)}): {text}" for text, ds in groups.items()]


def format_summary(s: dict, rater_table) -> str:
    lines = [
        f"{s['name']}: {s['n_items']} items, {s['n_ratings']} verdict rows",
        "roles: "
        + ", ".join(
            f"{k}{_role_name(s, k)} {v} "
            + ("exchangeable annotation slots" if k in s.get("exchangeable", ()) else "raters")
            + f" ({s['ratings_per_role'].get(k, 0)} rows)"
            for k, v in s["roles"].items()
        ),
        "dimensions: "
        + ", ".join(
            d
            + (
                f" ({s['scales'][d]['level']}, {len(s['scales'][d]['categories'])} categories)"
                if "scales" in s
                else ""
            )
            for d in s["dimensions"]
        )  # fmt: skip
        + (f"; items clustered by {s['cluster']!r}" if s.get("cluster") else ""),
        "orders: " + (", ".join(o or "(unknown)" for o in s["orders"])),
        "presentation: " + ", ".join(f"{d} {k}" for d, k in s.get("presentation", {}).items()),
        *design_lines(s.get("design", {})),
        "status: " + ", ".join(f"{k} {v}" for k, v in s["status"].items()),
        f"verdicts without a usable value: {s['verdicts_without_value']}",
        f"duplicates: {s['duplicates']}",
        *(
            ["verdict rows not 'ok', by reason:"]
            + [f"  {v:6d}  {k}" for k, v in s["not_ok_reasons"].items()]
            if s["not_ok_reasons"]
            else []
        ),
        "",
        "per rater (rows by parse status):",
        rater_table.to_string(line_width=term_width(), index=False),
        "",
        "gold labels per dimension:",
    ]
    for dim, g in s["gold"].items():
        lines.append(f"  {dim}: " + ", ".join(f"{k} {v}" for k, v in g.items()))
    if "supplied_vs_majority_mismatch" in s:
        lines.append(
            "supplied gold vs expert majority, items that differ: "
            + ", ".join(f"{k} {v}" for k, v in s["supplied_vs_majority_mismatch"].items())
        )
    if s["load_counts"]:
        lines.append("load counts: " + ", ".join(f"{k} {v}" for k, v in s["load_counts"].items()))
    warnings = []
    for judge, st in s["status_per_judge"].items():
        bad = sum(v for k, v in st.items() if k != "ok")
        if bad:
            warnings.append(
                f"{judge}: {bad} verdict rows not 'ok' ({', '.join(f'{k} {v}' for k, v in st.items() if k != 'ok')})"
            )
    if s.get("not_assigned"):
        lines += ["", "not assigned (items a judge has no verdict row for; left out, not wrong):"]
        lines += [
            f"  {judge}: " + ", ".join(f"{d} {n}" for d, n in per.items())
            for judge, per in s["not_assigned"].items()
        ]
    for dim, g in s["gold"].items():
        if g.get("no_gold"):
            warnings.append(
                f"{dim}: {g['no_gold']} items without gold are excluded from judge metrics"
            )
    if warnings or s["notes"]:
        lines += ["", "warnings / notes:"] + [f"  - {w}" for w in warnings + s["notes"]]
    return "\n".join(lines)


def summary_of(args: argparse.Namespace, command: str = "validate"):  # noqa: ANN201
    """(summary, rater table) of the input, on the path ``--engine`` chooses."""
    engine, mapping = engine_of(args, command)
    if engine != "memory":
        from ..engine.choose import refuse_folder
        from ..engine.summary import columnar_summary
        from ._engine import engine_settings

        refuse_folder(args.path, engine)
        refuse_options(args, engine, {"broadcast": False, "exchangeable": None})
        if mapping is None:
            raise InputError(
                f"--engine {engine}: the columnar path reads a table with a mapping "
                "(--mapping FILE.toml or --item/--rater/--value)"
            )
        settings = engine_settings(args)
        return columnar_summary(
            args.path, mapping, engine=engine, memory_limit=settings.get("memory_limit"),
            spark_master=settings.get("spark_master"),
        )  # fmt: skip
    study = load_input(args)
    return study.summary(), study.rater_table()


def run(args: argparse.Namespace) -> int:
    s, table = summary_of(args)
    if args.json:
        s["per_rater"] = table.to_dict(orient="records")
        print(dump_json(s))
    else:
        print(format_summary(s, table))
    return 0
