"""Seeded simulator of a Med-RewardBench-shaped study (the demo bundle), with its true parameters.

Generative model (all draws from one ``numpy.random.default_rng(seed)``):

1. **Items.** ``n_items`` cases over the 13 organ systems (fixed, unequal shares). Cases share
   images (``image_id``, the cluster unit) *inside* their organ system, as in Med-RewardBench
   (one image, one organ): an organ with ``n_o`` cases has ``max(2, ceil(0.6 n_o))`` image
   slots and each case picks one at random (about two questions per image). Each image is read
   in one of the 8 clinical departments: its organ's main department with probability 0.8,
   radiology otherwise; so organ system and department are constant within an image.
2. **Truth.** A latent better answer per item for ``overall`` with P(A) = ``prevalence_A``; each
   other dimension agrees with ``overall`` with probability ``dim_coupling[d]`` (dimensions are
   correlated, not copies).
3. **Experts.** Three physicians; expert e labels dimension d correctly with probability
   ``expert_accuracy[e][d]`` (one physician drifts on creativity and on two organs). The
   shipped ``human_answer`` is their strict majority (3 binary votes always have one).
4. **Lengths.** The gold-preferred answer is the longer one with probability
   ``p_gold_longer``.
5. **Judges.** For judge j, dimension d, organ o, an *attending* verdict equals gold with
   probability ``p = expit(base_j + dim_j[d] + organ_j[o])``. With probability ``pi_j`` the judge
   instead answers the first-shown position (position bias), and with probability ``lambda_j``
   the longer answer (verbosity bias). So, conditional on a usable verdict,
   ``P(correct) = pi_j·1[gold shown first] + lambda_j·1[longer = gold] + (1 − pi_j − lambda_j)·p``.
6. **Outputs.** Each verdict is rendered as raw text in one of the judge's styles (JSON, key–value
   text, JSON after a ``<think>`` block). With probability ``invalid_rate_j`` the output is
   unusable (refusal, "Both are equally good", truncated JSON); with ``partial_rate_j`` one
   dimension is dropped; with ``broadcast_rate_j`` the judge emits a single ``[[X]]`` verdict
   (its overall choice), which the loader counts as invalid unless broadcasting is asked for.
7. **Swapped order.** For the judges in ``swap_judges`` a second prediction file shows answer 2
   first (order "BA"); position bias then favours answer 2.

``truth/params.json`` records every parameter and the implied **population** accuracy of each
judge × dimension conditional on a usable verdict (what the ``exclude`` policy estimates) and
under the Med-RewardBench ``wrong`` policy, computed exactly from the model (not from the draw).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy.special import expit

from .scale import MEDREWARDBENCH_DIMENSIONS as DIMS

_LETTERS = np.array(["A", "B"])

ORGANS = (
    "abdomen",
    "brain",
    "breast",
    "chest",
    "eye",
    "foot",
    "gastrointestinal_tract",
    "heart",
    "lower_limb",
    "lung",
    "oral_cavity",
    "pelvic_cavity",
    "upper_limb",
)
ORGAN_SHARE = np.array(
    [0.09, 0.11, 0.06, 0.12, 0.07, 0.04, 0.08, 0.08, 0.05, 0.12, 0.05, 0.07, 0.06]
)
DEPARTMENTS = (
    "radiology",
    "neurology",
    "cardiology",
    "ophthalmology",
    "gastroenterology",
    "orthopaedics",
    "obstetrics_gynaecology",
    "stomatology",
)
# main department of each organ (the rest of the cases go to radiology)
ORGAN_DEPT = {
    "abdomen": "gastroenterology",
    "brain": "neurology",
    "breast": "obstetrics_gynaecology",
    "chest": "radiology",
    "eye": "ophthalmology",
    "foot": "orthopaedics",
    "gastrointestinal_tract": "gastroenterology",
    "heart": "cardiology",
    "lower_limb": "orthopaedics",
    "lung": "radiology",
    "oral_cavity": "stomatology",
    "pelvic_cavity": "obstetrics_gynaecology",
    "upper_limb": "orthopaedics",
}
MAIN_DEPT_SHARE = 0.8  # share of images read in their organ's main department
IMAGE_SLOTS_PER_CASE = 0.6  # image slots per case of an organ (~0.49 distinct images per case)
DIM_COUPLING = {
    "accuracy": 0.85,
    "relevance": 0.8,
    "comprehensiveness": 0.75,
    "creativity": 0.6,
    "responsiveness": 0.8,
    "overall": 1.0,
}
PREVALENCE_A = 0.55
P_GOLD_LONGER = 0.62


@dataclass(frozen=True)
class JudgeSpec:
    name: str
    base: float  # logit of attending accuracy
    dim: dict[str, float]
    organ: dict[str, float]
    position_bias: float
    length_bias: float
    invalid_rate: float
    partial_rate: float
    broadcast_rate: float
    style: str  # json | kv | think


def _judges() -> list[JudgeSpec]:
    z = dict.fromkeys(DIMS, 0.0)
    zo = dict.fromkeys(ORGANS, 0.0)
    weak_creat = {**z, "creativity": -0.5, "comprehensiveness": -0.2}
    med_accuracy = {**z, "accuracy": 0.3}
    med_organs = {**zo, "brain": 0.5, "heart": 0.4, "foot": -0.6, "oral_cavity": -0.6}
    hard_organs = {**zo, "eye": -0.7, "breast": -0.5, "lung": 0.3}
    return [
        JudgeSpec(
            "sim-proprietary-a", 1.25, weak_creat, zo, 0.00, 0.05, 0.005, 0.005, 0.00, "json"
        ),
        JudgeSpec(
            "sim-proprietary-b",
            1.10,
            weak_creat,
            hard_organs,
            0.04,
            0.05,
            0.010,
            0.010,
            0.00,
            "json",
        ),
        JudgeSpec("sim-general-72b", 0.95, z, zo, 0.08, 0.00, 0.010, 0.010, 0.00, "json"),
        JudgeSpec("sim-general-32b", 0.80, weak_creat, zo, 0.10, 0.05, 0.020, 0.010, 0.01, "kv"),
        JudgeSpec("sim-general-8b", 0.55, z, hard_organs, 0.18, 0.05, 0.030, 0.020, 0.03, "json"),
        JudgeSpec("sim-general-7b", 0.45, weak_creat, zo, 0.25, 0.00, 0.050, 0.020, 0.05, "kv"),
        JudgeSpec(
            "sim-med-8b", 0.40, med_accuracy, med_organs, 0.12, 0.00, 0.040, 0.020, 0.02, "think"
        ),
        JudgeSpec("sim-med-7b", 0.20, z, med_organs, 0.30, 0.00, 0.080, 0.030, 0.08, "json"),
        JudgeSpec("sim-reward-7b", 0.70, z, zo, 0.05, 0.20, 0.010, 0.000, 0.00, "json"),
        JudgeSpec("sim-critic-7b", 0.60, weak_creat, zo, 0.00, 0.10, 0.020, 0.010, 0.00, "think"),
        JudgeSpec("sim-small-3b", 0.10, z, zo, 0.40, 0.00, 0.120, 0.050, 0.10, "kv"),
        JudgeSpec("sim-control", 0.75, z, zo, 0.00, 0.00, 0.010, 0.000, 0.00, "json"),
    ]


EXPERTS = ("physician_1", "physician_2", "physician_3")


def _expert_accuracy() -> dict[str, dict[str, float]]:
    base = {"physician_1": 0.90, "physician_2": 0.87, "physician_3": 0.84}
    acc = {e: dict.fromkeys(DIMS, b) for e, b in base.items()}
    acc["physician_3"]["creativity"] = 0.70  # drifts on the vaguest dimension
    return acc


EXPERT_ORGAN_DRIFT = {"physician_3": {"oral_cavity": -0.15, "foot": -0.15}}
SWAP_JUDGES = ("sim-general-8b", "sim-med-7b", "sim-control")


def _images_within_organs(organ: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Image index of each case, drawn inside the case's organ system.

    Organ ``o`` with ``n_o`` cases gets ``m_o = max(2, ceil(0.6 n_o))`` image slots of its own
    (numbered after the slots of the organs before it); each case picks one of its organ's slots
    uniformly at random, so an image never spans two organ systems and holds about two questions
    (slots never picked are not images). One bounded-integer draw per case, in case order.

    Examples
    --------
    >>> import numpy as np
    >>> organ = np.array([0, 0, 0, 1, 1, 0])
    >>> image = _images_within_organs(organ, np.random.default_rng(0))
    >>> bool(set(image[organ == 0]).isdisjoint(image[organ == 1]))
    True
    """
    n_o = np.bincount(organ, minlength=len(ORGANS))
    # at least 2 slots: numpy draws nothing for a range of one value, and a draw per case keeps
    # the rest of the stream (truth, experts, judges) independent of the organ counts
    slots = np.maximum(2, np.ceil(IMAGE_SLOTS_PER_CASE * n_o)).astype(np.int64)
    first_slot = np.concatenate([[0], np.cumsum(slots)[:-1]])
    return first_slot[organ] + rng.integers(0, slots[organ])


def _render(choices: dict[str, str], style: str, rng: np.random.Generator, winner: str) -> str:
    reason = rng.choice(
        [
            "Answer {w} identifies the key imaging finding.",
            "Answer {w} is more complete and clinically relevant.",
            "Both answers mention the lesion; {w} explains it better.",
        ]
    ).format(w=winner)
    if style == "kv":
        return "\n".join(f"{d}: {c}" for d, c in choices.items()) + f"\nreason: {reason}"
    body = json.dumps({**choices, "reason": reason})
    if style == "think":
        return "<think>Compare {the two answers}; accuracy: maybe A?</think>\n" + body
    return body


_INVALID_OUTPUTS = (
    "Both answers are equally good; it is a tie.",
    "I cannot evaluate medical images without more context.",
    '{"accuracy": "A", "relevance": "B", "comprehens',
    "Both responses have merits and flaws.",
    "",
)


def simulate(out: str | Path, *, seed: int = 20261122, n_items: int = 1026) -> dict:
    """Write a demo bundle to ``out`` and return the true parameters (also in truth/params.json).

    The generative model (items, truth, experts, lengths, judges with position and verbosity
    bias, raw outputs, swapped order) is the one in this module's docstring.

    Parameters
    ----------
    out : str or pathlib.Path
        The folder to write (created if needed): ``pair_gt_all/``, ``predictions/``,
        ``truth/params.json`` and ``README.md``, in Med-RewardBench's native layout.
    seed : int, default 20261122
        Seed of the one ``numpy.random.default_rng`` all draws come from; the same seed and
        ``n_items`` write identical files.
    n_items : int, default 1026
        Number of simulated cases (the demo bundle has 1026).

    Returns
    -------
    dict
        The true parameters, as written to ``truth/params.json``: ``seed``, ``n_items``,
        ``organs``, ``organ_share``, ``departments``, ``dimensions``,
        ``prevalence_A_truth_overall``, ``dim_coupling``, ``p_gold_longer``,
        ``expert_accuracy_vs_truth``, ``expert_organ_drift``, ``swap_judges``, ``judges``
        (per judge its specification and exact population accuracies under the ``exclude``
        and ``wrong`` policies), ``gold_A_prevalence_population`` and ``notes``.

    References
    ----------
    .. [1] Zheng, L., Chiang, W.-L., Sheng, Y., et al. (2023). Judging LLM-as-a-judge with
       MT-Bench and Chatbot Arena. *Advances in Neural Information Processing Systems 36*
       (Datasets and Benchmarks) — position and verbosity bias of LLM judges, as simulated.
    .. [2] medjudge's data model: the bundle layout written here is described in
       ``data/FORMAT.md`` in the repository.

    Examples
    --------
    >>> import numpy as np
    >>> import medjudge as mj
    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> truth = mj.simulate(folder, n_items=60, seed=3)
    >>> sorted(truth)[:3]
    ['departments', 'dim_coupling', 'dimensions']
    """
    rng = np.random.default_rng(seed)
    out = Path(out)
    for sub in ("pair_gt_all", "predictions", "truth"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    it = _draw_items(rng, n_items)
    _write_items(out, it)
    _write_expert_labels(out, it)
    params_judges = {}
    for spec in _judges():
        for order in ["AB"] + (["BA"] if spec.name in SWAP_JUDGES else []):
            lines = [_judge_line(spec, order, i, it, rng) for i in range(n_items)]
            suffix = "" if order == "AB" else "_swapped"
            (out / "predictions" / f"pair_{spec.name}{suffix}.jsonl").write_text(
                "\n".join(lines) + "\n", encoding="utf-8"
            )
        params_judges[spec.name] = _judge_truth(spec)
    params = _params(seed, n_items, it["exp_acc"], params_judges)
    (out / "truth" / "params.json").write_text(
        json.dumps(params, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )
    (out / "README.md").write_text(_readme(seed, n_items), encoding="utf-8")
    return params


def _draw_items(rng: np.random.Generator, n_items: int) -> dict[str, Any]:
    """Items, truth, expert labels, gold and answer lengths (the random stream's first part)."""
    organ = rng.choice(len(ORGANS), size=n_items, p=ORGAN_SHARE / ORGAN_SHARE.sum())
    u_dept = rng.random(n_items)
    image = _images_within_organs(organ, rng)
    # one department per image: the organ's main one with probability 0.8, else radiology,
    # decided by the uniform of the image's first case (one uniform per image)
    _, first_case, case_image = np.unique(image, return_index=True, return_inverse=True)
    main_dept = np.array([DEPARTMENTS.index(ORGAN_DEPT[ORGANS[o]]) for o in organ])
    dept = np.where(
        u_dept[first_case][case_image] < MAIN_DEPT_SHARE,
        main_dept,
        DEPARTMENTS.index("radiology"),
    )
    qids = [f"{ORGANS[o]}_{i:04d}" for i, o in enumerate(organ)]

    truth = {"overall": np.where(rng.random(n_items) < PREVALENCE_A, 0, 1)}  # 0 = A, 1 = B
    for d in DIMS:
        if d != "overall":
            keep = rng.random(n_items) < DIM_COUPLING[d]
            truth[d] = np.where(keep, truth["overall"], 1 - truth["overall"])

    exp_acc = _expert_accuracy()
    expert_labels = {}
    for e in EXPERTS:
        expert_labels[e] = {}
        drift = np.array([EXPERT_ORGAN_DRIFT.get(e, {}).get(ORGANS[o], 0.0) for o in organ])
        for d in DIMS:
            correct = rng.random(n_items) < exp_acc[e][d] + drift
            expert_labels[e][d] = np.where(correct, truth[d], 1 - truth[d])
    gold = {
        d: (np.sum([expert_labels[e][d] for e in EXPERTS], axis=0) >= 2).astype(int) for d in DIMS
    }

    longer_is_gold = rng.random(n_items) < P_GOLD_LONGER
    short = rng.integers(40, 160, size=n_items)
    long_ = short + rng.integers(10, 120, size=n_items)
    longer_pos = np.where(
        longer_is_gold, gold["overall"], 1 - gold["overall"]
    )  # 0 = answer1 longer
    len1 = np.where(longer_pos == 0, long_, short)
    len2 = np.where(longer_pos == 0, short, long_)
    return {
        "organ": organ, "dept": dept, "image": image, "qids": qids, "exp_acc": exp_acc,
        "expert_labels": expert_labels, "gold": gold, "longer_pos": longer_pos,
        "len1": len1, "len2": len2,
    }  # fmt: skip


def _write_items(out: Path, it: dict[str, Any]) -> None:
    """``pair_gt_all/<organ>.jsonl``: the items with the experts' majority (no empty file)."""
    organ, dept, image, qids, gold = it["organ"], it["dept"], it["image"], it["qids"], it["gold"]
    len1, len2 = it["len1"], it["len2"]
    by_organ: dict[str, list[str]] = {o: [] for o in ORGANS}
    for i in range(len(qids)):
        rec = {
            "question_id": qids[i],
            "modality_type": ORGANS[organ[i]],
            "department": DEPARTMENTS[dept[i]],
            "image_id": f"img_{image[i]:04d}",
            "dataset": "simulated",
            "question_type": "open",
            "question": f"Describe the main finding in this {ORGANS[organ[i]].replace('_', ' ')} image.",
            "answer1_text": f"Synthetic answer 1 ({len1[i]} words).",
            "answer2_text": f"Synthetic answer 2 ({len2[i]} words).",
            "answer1_len": int(len1[i]),
            "answer2_len": int(len2[i]),
            "human_answer": {d: str(_LETTERS[gold[d][i]]) for d in DIMS},
        }
        by_organ[ORGANS[organ[i]]].append(json.dumps(rec))
    for o, lines in by_organ.items():
        if not lines:  # a small study may draw no item of an organ: no empty file
            continue
        (out / "pair_gt_all" / f"{o}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _write_expert_labels(out: Path, it: dict[str, Any]) -> None:
    """``expert_labels.jsonl``: each physician's labels, one line per item and expert."""
    qids, expert_labels = it["qids"], it["expert_labels"]
    with (out / "expert_labels.jsonl").open("w", encoding="utf-8") as fh:
        for i in range(len(qids)):
            for e in EXPERTS:
                fh.write(
                    json.dumps(
                        {
                            "question_id": qids[i],
                            "annotator": e,
                            "labels": {d: str(_LETTERS[expert_labels[e][d][i]]) for d in DIMS},
                        }
                    )
                    + "\n"
                )


def _judge_line(spec: Any, order: str, i: int, it: dict[str, Any], rng: np.random.Generator) -> str:
    """One raw output of judge ``spec`` on item ``i`` shown in ``order`` (draws from ``rng``)."""
    organ, gold, longer_pos, qids = it["organ"], it["gold"], it["longer_pos"], it["qids"]
    u_kind = rng.random()
    first_shown = 0 if order == "AB" else 1  # original index of the answer shown as A
    choices = {}
    for d in DIMS:
        p = expit(spec.base + spec.dim[d] + spec.organ[ORGANS[organ[i]]])
        u = rng.random()
        if u < spec.position_bias:
            c = first_shown
        elif u < spec.position_bias + spec.length_bias:
            c = longer_pos[i]
        else:
            c = gold[d][i] if rng.random() < p else 1 - gold[d][i]
        shown = c if order == "AB" else 1 - c  # letter as presented
        choices[d] = str(_LETTERS[shown])
    if u_kind < spec.invalid_rate:
        raw = str(rng.choice(_INVALID_OUTPUTS))
    elif u_kind < spec.invalid_rate + spec.broadcast_rate:
        raw = f"After comparing both answers, my verdict is [[{choices['overall']}]]."
    elif u_kind < spec.invalid_rate + spec.broadcast_rate + spec.partial_rate:
        drop = DIMS[int(rng.integers(len(DIMS)))]
        raw = _render(
            {d: c for d, c in choices.items() if d != drop},
            spec.style,
            rng,
            choices["overall"],
        )
    else:
        raw = _render(choices, spec.style, rng, choices["overall"])
    rec = {
        "question_id": qids[i],
        "modality_type": ORGANS[organ[i]],
        "chosen_answer": raw,
        "answer_model": spec.name,
    }
    if order == "BA":
        rec["order"] = "BA"
    return json.dumps(rec)


def _params(seed: int, n_items: int, exp_acc: dict, judges: dict) -> dict:
    """The true parameters written to ``truth/params.json``."""
    return {
        "seed": seed,
        "n_items": n_items,
        "organs": list(ORGANS),
        "organ_share": ORGAN_SHARE.tolist(),
        "departments": list(DEPARTMENTS),
        "dimensions": list(DIMS),
        "prevalence_A_truth_overall": PREVALENCE_A,
        "dim_coupling": DIM_COUPLING,
        "p_gold_longer": P_GOLD_LONGER,
        "expert_accuracy_vs_truth": exp_acc,
        "expert_organ_drift": EXPERT_ORGAN_DRIFT,
        "swap_judges": list(SWAP_JUDGES),
        "judges": judges,
        "gold_A_prevalence_population": {d: _gold_prevalence_a(d) for d in DIMS},
        "notes": "true_accuracy_usable: P(correct | usable verdict), order AB, population over organs; "
        "true_accuracy_wrong_policy: the same times P(verdict usable for that dimension) "
        "(invalid, partial-dropped and, unless broadcasting is enabled, broadcast outputs count wrong).",
    }


def _p_gold_a_given_truth_a(d: str) -> float:
    """P(majority of the 3 experts says A | truth A) averaged over organs (drift included)."""
    acc = _expert_accuracy()
    total = 0.0
    for o, w in zip(ORGANS, ORGAN_SHARE / ORGAN_SHARE.sum(), strict=True):
        ps = [acc[e][d] + EXPERT_ORGAN_DRIFT.get(e, {}).get(o, 0.0) for e in EXPERTS]
        p1, p2, p3 = ps
        maj = p1 * p2 + p1 * p3 + p2 * p3 - 2 * p1 * p2 * p3
        total += w * maj
    return total


def _gold_prevalence_a(d: str) -> float:
    q = (
        PREVALENCE_A
        if d == "overall"
        else PREVALENCE_A * DIM_COUPLING[d] + (1 - PREVALENCE_A) * (1 - DIM_COUPLING[d])
    )
    m = _p_gold_a_given_truth_a(d)
    return q * m + (1 - q) * (1 - m)


def _judge_truth(spec: JudgeSpec) -> dict:
    w = ORGAN_SHARE / ORGAN_SHARE.sum()
    acc_usable, acc_wrong, by_organ = {}, {}, {}
    usable = 1 - spec.invalid_rate - spec.broadcast_rate
    for d in DIMS:
        p_org = {o: float(expit(spec.base + spec.dim[d] + spec.organ[o])) for o in ORGANS}
        attend = float(sum(wi * p_org[o] for wi, o in zip(w, ORGANS, strict=True)))
        a = (
            spec.position_bias * _gold_prevalence_a(d)
            + spec.length_bias * _p_longer_is_gold(d)
            + (1 - spec.position_bias - spec.length_bias) * attend
        )
        acc_usable[d] = a
        acc_wrong[d] = a * (usable - spec.partial_rate / len(DIMS))
        by_organ[d] = {
            o: spec.position_bias * _gold_prevalence_a(d)
            + spec.length_bias * _p_longer_is_gold(d)
            + (1 - spec.position_bias - spec.length_bias) * p
            for o, p in p_org.items()
        }
    return {
        "base_logit": spec.base,
        "dim_effect": spec.dim,
        "organ_effect": spec.organ,
        "position_bias": spec.position_bias,
        "length_bias": spec.length_bias,
        "invalid_rate": spec.invalid_rate,
        "partial_rate": spec.partial_rate,
        "broadcast_rate": spec.broadcast_rate,
        "style": spec.style,
        "true_accuracy_usable": acc_usable,
        "true_accuracy_wrong_policy": acc_wrong,
        "true_accuracy_usable_by_organ": by_organ,
    }


def _p_longer_is_gold(d: str) -> float:
    """P(the longer answer is the gold answer on dimension d): lengths follow *overall* gold."""
    if d == "overall":
        return P_GOLD_LONGER
    # gold_d equals gold_overall with probability c_g (agreement of the two majority labels)
    c = _p_gold_dims_agree(d)
    return P_GOLD_LONGER * c + (1 - P_GOLD_LONGER) * (1 - c)


def _p_gold_dims_agree(d: str) -> float:
    """P(gold_d == gold_overall), from truth coupling and expert majority accuracy (organ-averaged)."""
    acc = _expert_accuracy()
    w = ORGAN_SHARE / ORGAN_SHARE.sum()
    total = 0.0
    for o, wi in zip(ORGANS, w, strict=True):

        def maj(dim: str, o: str = o) -> float:
            p1, p2, p3 = (acc[e][dim] + EXPERT_ORGAN_DRIFT.get(e, {}).get(o, 0.0) for e in EXPERTS)
            return p1 * p2 + p1 * p3 + p2 * p3 - 2 * p1 * p2 * p3

        md, mo = maj(d), maj("overall")
        same_truth = DIM_COUPLING[d]
        agree_if_same = md * mo + (1 - md) * (1 - mo)
        agree_if_diff = md * (1 - mo) + (1 - md) * mo
        total += wi * (same_truth * agree_if_same + (1 - same_truth) * agree_if_diff)
    return total


def _readme(seed: int, n_items: int) -> str:
    return f"""# Demo bundle (simulated — not real data)

Made by `medjudge simulate --out data/demo --seed {seed} --items {n_items}`; see
`analysis/medjudge/data/simulate.py` for the generative model and `data/FORMAT.md` for the format.

- `pair_gt_all/<organ>.jsonl` — {n_items} items over 13 organ systems and 8 departments, with the
  three-physician majority as `human_answer` (Med-RewardBench native format).
- `expert_labels.jsonl` — each physician's labels (companion file).
- `predictions/pair_<judge>.jsonl` — 12 simulated judges' raw outputs (JSON, key-value text,
  `<think>` blocks, single `[[X]]` verdicts, refusals, truncated JSON);
  `pair_<judge>_swapped.jsonl` — the same judge with answer 2 shown first (order BA).
- `truth/params.json` — every parameter and the implied true accuracies, so estimates can be
  checked against the truth.
"""


_EXAMPLES: dict[tuple[int, int], object] = {}


def example_study(n_items: int = 60, seed: int = 3):  # noqa: ANN201 (Study; imported lazily)
    """A small simulated Med-RewardBench-shaped study, for examples and quick trials.

    Writes a bundle with :func:`simulate` into a temporary folder and loads it; the result is
    kept per ``(n_items, seed)``, so the docstring examples that use it share one load (treat it
    as read-only).

    Examples
    --------
    >>> from medjudge.data.simulate import example_study
    >>> study = example_study()
    >>> len(study.items), len(study.judges), len(study.experts)
    (60, 12, 3)
    """
    key = (int(n_items), int(seed))
    if key not in _EXAMPLES:
        import tempfile

        from .tables import load_any

        folder = tempfile.mkdtemp(prefix="medjudge-example-")
        simulate(folder, seed=seed, n_items=n_items)
        _EXAMPLES[key] = load_any(folder)
    return _EXAMPLES[key]
