"""Options and helpers shared by sub-commands: loading input, JSON output."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from ..data.errors import InputError
from ..data.model import Study
from ..data.tables import TableMapping, load_any


def input_parser(sub: Any, name: str, what: str, **kwargs: Any) -> argparse.ArgumentParser:
    """The parser of the command ``name`` (``what``: its help; ``kwargs`` as in ``add_parser``)
    with the input arguments every command that reads a study takes (:func:`add_input_args`)."""
    p = sub.add_parser(name, help=what, **kwargs)
    add_input_args(p)
    return p


def add_input_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "path",
        help="a Med-RewardBench bundle directory, or a table (.csv/.tsv/.jsonl/.json/.parquet)",
    )
    g = p.add_argument_group("table mapping (for tables; or use --mapping FILE.toml)")
    g.add_argument(
        "--mapping", help="TOML file describing the table's columns (see data/mappings/)"
    )
    g.add_argument(
        "--layout",
        choices=["long", "wide"],
        help="long: one row per verdict; wide: one column per rater",
    )
    g.add_argument("--item", help="item id column(s), comma-separated")
    g.add_argument("--rater", help="rater column(s) (long layout), comma-separated")
    g.add_argument("--value", help="value column (long layout)")
    g.add_argument("--role", choices=["expert", "judge"], help="role of every rater (long layout)")
    g.add_argument("--raters", help="wide layout: rater columns as name:role,name:role")
    g.add_argument("--dimension", help="the dimension of every row (a constant; default overall)")
    g.add_argument(
        "--dimension-column",
        help="long layout: the column naming each row's dimension (question, criterion)",
    )
    g.add_argument("--order", help="presentation-order column")
    g.add_argument("--gold", help="supplied gold-label column")
    g.add_argument("--invalid", help="tokens meaning an unparseable verdict, comma-separated")
    add_exchangeable(
        g,
        "this role's rater ids are exchangeable slots (crowd labels), not persons; "
        "repeatable (also the mapping key exchangeable = [...])",
    )
    g.add_argument(
        "--broadcast",
        action="store_true",
        help="Med-RewardBench: copy a single verdict to all dimensions (flagged 'broadcast')",
    )


def add_exchangeable(
    p: argparse.ArgumentParser | argparse._ArgumentGroup, help: str, dest: str = "exchangeable"
) -> None:
    """``--exchangeable ROLE`` (repeatable): rater ids of that role are slots, not persons."""
    p.add_argument(
        "--exchangeable", dest=dest, choices=["expert", "judge"], action="append",
        metavar="ROLE", help=help,
    )  # fmt: skip


#: table options that describe columns; with --mapping the mapping file does that instead.
TABLE_OPTIONS = (
    "layout", "item", "rater", "value", "role", "raters", "dimension", "dimension_column",
    "order", "gold", "invalid",
)  # fmt: skip


def refuse_with_mapping(args: argparse.Namespace, options: tuple[str, ...]) -> None:
    """Options that a mapping file overrides are refused with ``--mapping``, never ignored."""
    if not getattr(args, "mapping", None):
        return
    given = [o for o in options if getattr(args, o, None) not in (None, False)]
    if given:
        names = ", ".join("--" + o.replace("_", "-") for o in given)
        raise InputError(
            f"{names} cannot be combined with --mapping (the mapping file describes the table)",
            file=args.mapping,
            hint="put the setting into the mapping file, or drop --mapping",
        )


def mapping_from_args(args: argparse.Namespace) -> TableMapping | str | None:
    if args.mapping:
        refuse_with_mapping(args, TABLE_OPTIONS)
        return args.mapping
    if not (args.item or args.layout):
        given = [o for o in TABLE_OPTIONS[2:] if getattr(args, o, None) not in (None, False)]
        if not given:
            return None
        if Path(args.path).is_dir():  # a bundle says what its columns are: never drop an option
            names = ", ".join("--" + o.replace("_", "-") for o in given)
            raise InputError(
                f"{names} describes the columns of a table, but {args.path} is a bundle folder "
                "(its files say what each column is)",
                file=args.path,
                hint="drop the option, or give a table file",
            )
    layout = args.layout or "long"
    d: dict[str, Any] = {"layout": layout, "item": args.item.split(",") if args.item else ["item"]}
    if layout == "long":
        d["rater"] = args.rater.split(",") if args.rater else ["rater"]
        d["value"] = args.value or "value"
        d["role"] = args.role or "judge"
    else:
        if not args.raters:
            raise InputError("wide layout needs --raters name:role,name:role")
        d["raters"] = {}
        for spec in args.raters.split(","):
            name, _, role = spec.partition(":")
            d["raters"][name] = {"role": role or "expert"}
    if args.dimension:
        d["dimension"] = args.dimension
    if getattr(args, "dimension_column", None):
        d["dimension_column"] = args.dimension_column
    if args.order:
        d["order"] = args.order
    if args.gold:
        d["gold"] = args.gold
    if args.invalid:
        d["invalid"] = args.invalid.split(",")
    return TableMapping.from_dict(d, source="command line")


def table_mapping(args: argparse.Namespace) -> TableMapping | None:
    """The mapping of the command line (file or options) as a ``TableMapping``, or ``None``."""
    m = mapping_from_args(args)
    if m is None or isinstance(m, TableMapping):
        return m
    return TableMapping.from_toml(m)


def load_input(args: argparse.Namespace) -> Study:
    from ..engine.choose import check_fits_memory

    rows = (getattr(args, "engine_settings", None) or {}).get("memory_rows")
    check_fits_memory(
        args.path, table_mapping(args), command=getattr(args, "command", None), memory_rows=rows
    )
    study = load_any(
        args.path, mapping_from_args(args), broadcast=getattr(args, "broadcast", False)
    )
    if getattr(args, "command", None) != "validate":  # validate only counts: any size
        from ..data.limits import check_design_size

        check_design_size(study, args.path)
    declare(args, study)
    if getattr(args, "ties", "keep") == "exclude":
        study = _exclude_ties(args, study)
    return study


def declare(args: argparse.Namespace, study: Any) -> None:
    """What the command line adds to the study's declarations, on every engine:
    ``--exchangeable ROLE`` (to the mapping's) and a ``--gold-method`` it must be able to use."""
    extra = getattr(args, "exchangeable", None) or []
    if extra:
        study.exchangeable = tuple(dict.fromkeys([*study.exchangeable, *extra]))
    if getattr(args, "gold_method", None) not in (None, "auto"):
        from ._resolve import check_gold_method

        check_gold_method(
            study, args.gold_method, reference=getattr(args, "reference", None),
            can_reference=hasattr(args, "reference"),
        )  # fmt: skip


def _exclude_ties(args: argparse.Namespace, study: Study) -> Study:
    """``--ties exclude``: the study without tie gold labels; the count is printed (stderr)."""
    import sys

    from ..data.ties import exclude_tie_gold

    if not any(s.tie is not None for s in study.scales.values()):
        raise InputError(
            "--ties exclude: no dimension of this study has a tie category "
            "(the mapping's [scale] tie = ...); drop --ties"
        )
    study, counts = exclude_tie_gold(
        study, getattr(args, "gold_method", None) or "auto",
        reference=getattr(args, "reference", None),
    )  # fmt: skip
    if counts["items"] == 0:
        print("medjudge: note: no item has a tie gold label (--ties exclude)", file=sys.stderr)
    else:
        print(f"medjudge: note: {study.notes[-1]}", file=sys.stderr)
    return study


def check_dimensions(study: Study, names: list[str] | None, option: str) -> list[str]:
    """``names`` (or all dimensions), each checked against the study's dimensions."""
    if not names:
        return list(study.dimensions)
    unknown = [d for d in names if d not in study.dimensions]
    if unknown:
        raise InputError(
            f"{option} {unknown[0]!r}: no such dimension; the data have "
            + ", ".join(map(str, study.dimensions))
        )
    return list(dict.fromkeys(names))


def check_order(study: Study, order: str | None, option: str) -> str | None:
    """A presentation order that exists among the judges' verdicts (``None`` passes)."""
    if order is None:
        return None
    present = [o for o in study.judge_orders() if o]
    if order not in present:
        have = ", ".join(present) if present else "none recorded"
        raise InputError(
            f"{option} {order!r}: no verdicts in that presentation order; orders present: {have}"
        )
    return order


def from_args(args: argparse.Namespace, *names: str) -> dict[str, Any]:
    """``{name: args.name}``: options passed unchanged to an argument of the same name."""
    return {name: getattr(args, name) for name in names}


def print_json(args: argparse.Namespace, result: Any) -> bool:
    """With ``--json``: print ``result`` (a result object or a dict) as JSON and return True."""
    if not getattr(args, "json", False):
        return False
    print(dump_json(result))
    return True


def counts_text(counts: Any, *, names: bool = False) -> str:
    """``{"items_without_gold": 0}`` as ``items without gold 0``: a count per key, for the
    terminal (never a Python dict); ``names=True``: the keys are names (raters), kept as they
    are."""
    if not isinstance(counts, dict):
        return str(counts)
    if not counts:
        return "none"
    return ", ".join(f"{k if names else str(k).replace('_', ' ')} {v}" for k, v in counts.items())


def _jsonable(o: Any) -> Any:
    if isinstance(o, dict):
        return {str(k): _jsonable(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_jsonable(v) for v in o]
    if isinstance(o, np.ndarray):
        return _jsonable(o.tolist())
    if isinstance(o, np.generic):
        o = o.item()
    if isinstance(o, float) and not math.isfinite(o):
        return None
    if hasattr(o, "to_dict") and not isinstance(o, type):
        return _jsonable(o.to_dict())
    return o


def dump_json(obj: Any) -> str:
    return json.dumps(_jsonable(obj), indent=2, sort_keys=False, ensure_ascii=False)


def term_width() -> int:
    """Width for printed tables: the terminal's columns on a terminal, 100 when the output is a
    pipe or a file (pandas wraps wider tables into column blocks)."""
    import shutil
    import sys

    if sys.stdout.isatty():
        return max(40, shutil.get_terminal_size((100, 24)).columns)
    return 100


def table_text(frame: Any, max_rows: int = 60, **kwargs: Any) -> str:
    """``frame`` as text at :func:`term_width`; a table cut to ``max_rows`` rows or cells cut to
    :data:`MAX_CELL` characters says so and how to see everything (``--json``)."""
    kwargs.setdefault("na_rep", "—")  # a missing number is never printed as a bare NaN
    text = frame.to_string(
        line_width=term_width(), max_rows=max_rows, max_colwidth=MAX_CELL, **kwargs
    )
    notes = []
    if len(frame) > max_rows:
        notes.append(f"showing {max_rows} of {len(frame):,} rows")
    text_columns = [c for c in frame.columns if frame[c].dtype.kind in "OSUT"]
    if any(frame[c].astype(str).str.len().gt(MAX_CELL).any() for c in text_columns):
        notes.append(f"long cells cut to {MAX_CELL} characters")
    if notes:
        text += f"\n({'; '.join(notes)}; --json prints everything)"
    return text


#: the widest cell :func:`table_text` prints (lists of judges would make lines of 1,000+)
MAX_CELL = 40
