"""Train the poisoning screen's linear model and decide, by a pre-registered rule, whether it ships.

Design:
- Commands (from the repository root; deterministic; a few minutes on two cores)::

      mkdir -p /tmp/r1 /tmp/r2 && for f in _normalize _rules poisoning; do \
        git show 366ddf5^:prism_memory/safety/$f.py > /tmp/r1/$f.py; \
        git show 8d7cd2e:prism_memory/safety/$f.py > /tmp/r2/$f.py; done
      .venv/bin/python -m prism_memory.safety.train_screen \
        --rules blind=/tmp/r1 --rules blind2=/tmp/r2 \
        --out prism_memory/safety/data/screen_model.npz

- Data: the six dev corpora in ``tests/fixtures`` (``poisoning_corpora.json``):
  ``corpus``, ``holdout``, ``blind`` (blind corpus 1), ``dev2``, ``blind2`` and, since the
  fourth revision, ``blind3`` (blind corpus 3, now a training corpus). Blind corpus 4 is never
  read here: it is the lead's one honest test of whatever this script decides.
- The model: ``_model.featurize`` features, L2-regularised logistic regression with class-
  balanced sample weights, fitted by full-batch L-BFGS from zero for a fixed number of
  iterations in float64 with order-fixed sums, so a run reproduces its weights bit for bit.
- Honest folds. The current rules were revised on all six files, so a fold scored with them
  cannot show what the model adds. Each honest fold therefore replays the rules of a commit
  that had not seen its corpus: ``blind`` with the rules of ``366ddf5^`` (before the second
  revision), ``blind2`` with the rules of ``8d7cd2e`` (second revision + whole-word secret
  words). The model of a fold is trained on the other corpora (four when the rule below was
  registered, five since blind3 joined).

Pre-registered decision (written before the cross-validation below was run):

1. Honest folds = {blind1 with 366ddf5^ rules, blind2 with 8d7cd2e rules}. For each, the model
   is trained on the other four corpora (l2 1e-5, 150 L-BFGS iterations, as before).
2. Model thresholds per source group (user; external = tool/web/assistant/derived) are chosen
   on the fold's training corpora only: out-of-fold probabilities from an inner
   leave-one-corpus-out over those four corpora (a model scoring its own training rows is
   over-confident), then per group the lowest threshold on the grid 0.50, 0.51, ..., 0.99,
   0.995, 0.999 whose benign rate (model alone, that group's benign training rows) is <= 1%;
   if none is, the model never fires for that group. The held-out corpus plays no part.
3. Combination: quarantine if the rules pass their threshold (user 0.8, external 0.5) OR the
   model passes its own; the model can never lower a rule quarantine.
4. ADOPT iff on BOTH honest folds the combined attack rate exceeds the rules-alone attack rate
   by >= 5 points AND the combined benign rate exceeds the rules-alone benign rate by <= 2
   points. The table is reported either way.
5. If adopted, the final model is trained on all the corpora with thresholds chosen by the
   same procedure (inner leave-one-corpus-out over them). Mandatory check: the combined
   screen with the final model quarantines 0 LoCoMo dev chat turns as source ``user`` and as
   ``tool``; if not, that source group's threshold is raised to the next grid value above the
   highest model probability among the turns the rules let through (and this is reported).

Result (the rule above was not changed after the run; first run, five corpora):

- Thresholds chosen on the training corpora: (user 0.5, external 0.99) for both folds.

  ==================  ========  ==============  ==============  ==============
  fold (rules)                  rules alone     model alone     combined
  ==================  ========  ==============  ==============  ==============
  blind (366ddf5^)    attacks   174/241 72.2%   117/241 48.5%   193/241 80.1%
                      benign    17/244   7.0%     1/244  0.4%    17/244  7.0%
  blind2 (8d7cd2e)    attacks   210/326 64.4%   107/326 32.8%   239/326 73.3%
                      benign    16/314   5.1%     1/314  0.3%    16/314  5.1%
  ==================  ========  ==============  ==============  ==============

  Gains +7.9 / +8.9 attack points at +0.0 / +0.0 benign points: ADOPTED. The final model then
  needed its thresholds raised for LoCoMo to (0.92, 0.995).

Result of the fourth revision (same rule, same commands; blind3 is now a training corpus, so
``CORPORA`` has six names and every fold model is trained on five; the views changed with the
fourth revision of ``_normalize``):

- Thresholds chosen on the training corpora: (0.5, 0.96) for blind, (0.5, 0.97) for blind2.

  ==================  ========  ==============  ==============  ==============
  fold (rules)                  rules alone     model alone     combined
  ==================  ========  ==============  ==============  ==============
  blind (366ddf5^)    attacks   174/241 72.2%   172/241 71.4%   205/241 85.1%
                      benign    17/244   7.0%     3/244  1.2%    18/244  7.4%
  blind2 (8d7cd2e)    attacks   210/326 64.4%   187/326 57.4%   265/326 81.3%
                      benign    16/314   5.1%     0/314  0.0%    16/314  5.1%
  ==================  ========  ==============  ==============  ==============

  Gains +12.9 / +16.9 attack points at +0.4 / +0.0 benign points: ADOPTED.
- Final model (all six corpora): thresholds (0.5, 0.96) from the inner folds; the combined
  screen then quarantined 11 LoCoMo dev turns as ``user`` and 13 as ``tool`` (the rules: 0), so
  they were raised to (0.89, 0.999), after which it quarantines none. At those thresholds the
  fold models add 7/241 (+2.9) and 11/326 (+3.4) attack points, 0 benign: the external
  threshold sits at the top of the grid and the model is a weak second opinion for tool / web
  text. 149,268 non-zero weights, 0.71 MB compressed; 0.17 ms per text for the model.
- With the fourth-revision rules the shipped screen quarantines 314/314 attacks and 0/304
  benign texts of blind3 (rules alone 307/314), but both rules and model have now seen that
  corpus: it is dev data. The honest measure is blind corpus 4.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import re
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

from . import _model
from .poisoning import EXTERNAL_SOURCES, rule_assessment, threshold_for

__all__ = [
    "Dataset",
    "FoldResult",
    "choose_thresholds",
    "decide",
    "evaluate_fold",
    "fit",
    "load_dataset",
    "locomo_turns",
    "main",
    "predict",
]

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures"


def _locomo_dir() -> Path:
    """The LoCoMo dev folder: ``$PRISM_LOCOMO_DEV``, else ``../shared/bench/locomo-dev`` next to
    the checkout or the working directory (as the Makefile uses it); ``--locomo`` overrides."""
    env = os.environ.get("PRISM_LOCOMO_DEV")
    candidates = [Path(env)] if env else []
    candidates += [
        Path(__file__).resolve().parents[3] / "shared" / "bench" / "locomo-dev",
        Path.cwd().parent / "shared" / "bench" / "locomo-dev",
        Path("/work/shared/bench/locomo-dev"),
    ]
    return next((c for c in candidates if c.is_dir()), candidates[0])


LOCOMO = _locomo_dir()
CORPORA = ("corpus", "holdout", "blind", "dev2", "blind2", "blind3")
HONEST_FOLDS = {"blind": "366ddf5^", "blind2": "8d7cd2e"}
L2 = 1e-5
ITERATIONS = 150
GRID = (*(round(0.5 + 0.01 * i, 2) for i in range(50)), 0.995, 0.999)
MAX_TRAIN_BENIGN = 0.01
MIN_ATTACK_GAIN = 5.0  # points
MAX_BENIGN_COST = 2.0  # points

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
RuleVerdict = Callable[[str, str], bool]


def is_external(source: str) -> bool:
    """Whether ``source`` is held to the external (strict) thresholds."""
    return str(source).lower() in EXTERNAL_SOURCES


def rules_quarantine(text: str, source: str) -> bool:
    """The current rules' verdict alone, at the default thresholds."""
    score = rule_assessment(text, source)[0].score
    return score > 0.0 and score >= threshold_for(source, user=0.8, external=0.5)


@dataclass
class Dataset:
    """Rows of the dev corpora with their sparse features (CSR layout) and labels."""

    rows: list[dict[str, Any]]
    indptr: npt.NDArray[np.int64]
    indices: npt.NDArray[np.int64]
    values: FloatArray
    labels: FloatArray

    @property
    def corpus(self) -> npt.NDArray[np.str_]:
        """The corpus name of every row."""
        return np.array([r["corpus"] for r in self.rows])

    @property
    def external(self) -> BoolArray:
        """Whether every row's source is in the external group."""
        return np.array([is_external(r["source"]) for r in self.rows], dtype=bool)

    def subset(self, mask: BoolArray) -> Dataset:
        """The rows selected by ``mask``, in their original order."""
        keep = np.flatnonzero(mask)
        lengths = np.diff(self.indptr)[keep]
        take = np.concatenate(
            [np.arange(s, s + n) for s, n in zip(self.indptr[keep], lengths)]
            or [np.zeros(0, dtype=np.int64)]
        ).astype(np.int64)
        return Dataset(
            [self.rows[i] for i in keep],
            np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
            self.indices[take],
            self.values[take],
            self.labels[keep],
        )


def _read_rows(names: Sequence[str], folder: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for name in names:
        with (folder / f"poisoning_{name}.jsonl").open(encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    rows.append({**json.loads(line), "corpus": name})
    return rows


def load_dataset(names: Sequence[str] = CORPORA, folder: Path = FIXTURES) -> Dataset:
    """Read the corpora and featurize every text."""
    rows = _read_rows(names, folder)
    feats = [_model.featurize(_model.text_views(r["text"]), r["source"]) for r in rows]
    return Dataset(
        rows,
        np.concatenate([[0], np.cumsum([len(i) for i, _ in feats])]).astype(np.int64),
        np.concatenate([i for i, _ in feats]),
        np.concatenate([v for _, v in feats]),
        np.array([float(r["label"] == "attack") for r in rows]),
    )


def _margins(data: Dataset, w: FloatArray, b: float) -> FloatArray:
    if not data.rows:
        return np.zeros(0)
    return b + np.add.reduceat(w[data.indices] * data.values, data.indptr[:-1])


def fit(data: Dataset, *, l2: float = L2, iterations: int = ITERATIONS) -> tuple[FloatArray, float]:
    """Class-balanced L2 logistic regression by L-BFGS (deterministic; returns weights, bias)."""
    y = data.labels
    n_pos = max(float(y.sum()), 1.0)
    n_neg = max(float(len(y) - y.sum()), 1.0)
    sw = np.where(y > 0, 0.5 / n_pos, 0.5 / n_neg)  # sums to 1 over the rows
    row_of = np.repeat(np.arange(len(y)), np.diff(data.indptr))

    def loss_grad(theta: FloatArray) -> tuple[float, FloatArray]:
        w, b = theta[:-1], float(theta[-1])
        z = _margins(data, w, b)
        s = np.where(y > 0, -z, z)  # log(1 + exp(s)) is the loss of each row, computed stably
        loss = float(np.sum(sw * (np.maximum(s, 0.0) + np.log1p(np.exp(-np.abs(s))))))
        r = sw * (0.5 * (1.0 + np.tanh(0.5 * z)) - y)
        g = np.empty_like(theta)
        g[:-1] = np.bincount(data.indices, weights=r[row_of] * data.values, minlength=len(w))
        g[:-1] += l2 * w
        g[-1] = float(r.sum())
        return loss + 0.5 * l2 * float(w @ w), g

    theta = np.zeros(_model.DIM + 1)
    f, g = loss_grad(theta)
    hist: list[tuple[FloatArray, FloatArray]] = []
    for _ in range(iterations):
        if float(np.linalg.norm(g)) < 1e-9:
            break
        # L-BFGS two-loop recursion over the last ten steps
        q = g.copy()
        alphas: list[float] = []
        for s_k, y_k in reversed(hist):
            a = float(s_k @ q) / float(y_k @ s_k)
            alphas.append(a)
            q -= a * y_k
        if hist:
            s_k, y_k = hist[-1]
            q *= float(s_k @ y_k) / float(y_k @ y_k)
        else:
            q /= float(np.linalg.norm(g))
        for (s_k, y_k), a in zip(hist, reversed(alphas)):
            q += (a - float(y_k @ q) / float(y_k @ s_k)) * s_k
        direction = -q
        slope = float(g @ direction)
        if slope >= 0.0:  # not a descent direction: restart from the gradient
            hist.clear()
            direction = -g / float(np.linalg.norm(g))
            slope = float(g @ direction)
        step = 1.0
        for _ in range(30):  # Armijo backtracking
            cand = theta + step * direction
            f_new, g_new = loss_grad(cand)
            if f_new <= f + 1e-4 * step * slope:
                break
            step *= 0.5
        s_vec, y_vec = cand - theta, g_new - g
        if float(s_vec @ y_vec) > 1e-12:
            hist = [*hist[-9:], (s_vec, y_vec)]
        theta, f, g = cand, f_new, g_new
    return theta[:-1], float(theta[-1])


def predict(data: Dataset, w: FloatArray, b: float) -> FloatArray:
    """P(attack) for every row, with the weights rounded to float32 as they are stored."""
    z = _margins(data, w.astype(np.float32).astype(np.float64), b)
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def inner_out_of_fold(data: Dataset, *, l2: float = L2) -> FloatArray:
    """Out-of-fold probabilities by leave-one-corpus-out over the corpora of ``data``."""
    corpus = data.corpus
    probs = np.zeros(len(data.rows))
    for name in dict.fromkeys(corpus.tolist()):
        test = corpus == name
        w, b = fit(data.subset(~test), l2=l2)
        probs[test] = predict(data.subset(test), w, b)
    return probs


def lowest_threshold(benign_probs: FloatArray, max_rate: float = MAX_TRAIN_BENIGN) -> float:
    """The lowest grid threshold passing at most ``max_rate`` of ``benign_probs`` (else inf)."""
    n = max(len(benign_probs), 1)
    for t in GRID:
        if int(np.sum(benign_probs >= t)) / n <= max_rate:
            return t
    return math.inf


def choose_thresholds(data: Dataset, oof: FloatArray) -> tuple[float, float]:
    """(user, external) thresholds from out-of-fold probabilities of the training rows."""
    benign, external = data.labels == 0, data.external
    return (
        lowest_threshold(oof[benign & ~external]),
        lowest_threshold(oof[benign & external]),
    )


def model_flags(p: FloatArray, external: BoolArray, thresholds: tuple[float, float]) -> BoolArray:
    """Rows whose probability passes the threshold of their source group."""
    return np.where(external, p >= thresholds[1], p >= thresholds[0])


@dataclass(frozen=True)
class FoldResult:
    """One honest fold: rule verdicts and model probabilities on the held-out corpus."""

    name: str
    rules_commit: str
    labels: FloatArray
    rules: BoolArray
    probs: FloatArray
    external: BoolArray
    thresholds: tuple[float, float]

    @property
    def model(self) -> BoolArray:
        """Quarantined by the model at the fold's thresholds."""
        return model_flags(self.probs, self.external, self.thresholds)

    @property
    def combined(self) -> BoolArray:
        """Quarantined by the rules or the model."""
        return self.rules | self.model

    def at(self, thresholds: tuple[float, float]) -> FoldResult:
        """The same fold with other model thresholds."""
        return replace(self, thresholds=thresholds)

    def rate(self, flags: BoolArray, attacks: bool) -> tuple[int, int, float]:
        """(quarantined, total, percent) among the attacks or the benign texts."""
        mask = self.labels > 0 if attacks else self.labels == 0
        n, k = int(mask.sum()), int((flags & mask).sum())
        return k, n, 100.0 * k / max(n, 1)

    def gains(self) -> tuple[float, float]:
        """Points of attacks and of benign texts the model adds to the rules."""
        return (
            self.rate(self.combined, True)[2] - self.rate(self.rules, True)[2],
            self.rate(self.combined, False)[2] - self.rate(self.rules, False)[2],
        )


def evaluate_fold(
    data: Dataset, held_out: str, verdict: RuleVerdict, rules_commit: str, *, l2: float = L2
) -> FoldResult:
    """Train on the other corpora, pick thresholds on them only, score ``held_out``."""
    test = data.corpus == held_out
    train, held = data.subset(~test), data.subset(test)
    thresholds = choose_thresholds(train, inner_out_of_fold(train, l2=l2))
    w, b = fit(train, l2=l2)
    p = predict(held, w, b)
    rules = np.array([verdict(r["text"], r["source"]) for r in held.rows], dtype=bool)
    return FoldResult(held_out, rules_commit, held.labels, rules, p, held.external, thresholds)


def decide(folds: Sequence[FoldResult]) -> bool:
    """The pre-registered rule: every honest fold gains >= 5 attack and <= 2 benign points."""
    return bool(folds) and all(
        a >= MIN_ATTACK_GAIN and c <= MAX_BENIGN_COST for a, c in (f.gains() for f in folds)
    )


def cv_table(folds: Sequence[FoldResult]) -> str:
    """Per fold: attacks / benign quarantined by the rules, the model and either."""
    head = f"{'fold (rules)':<30}{'':8}{'rules alone':>18}{'model alone':>18}{'combined':>18}"
    lines = [head, "-" * len(head)]
    for f in folds:
        for attacks in (True, False):
            cells = ""
            for flags in (f.rules, f.model, f.combined):
                k, n, pct = f.rate(flags, attacks)
                cells += f"{f'{k}/{n} {pct:5.1f}%':>18}"
            name = f"{f.name} ({f.rules_commit})" if attacks else f"  thresholds {f.thresholds}"
            lines.append(f"{name:<30}{'attacks' if attacks else 'benign':<8}{cells}")
    return "\n".join(lines)


def load_rules(folder: Path) -> ModuleType:
    """``poisoning.py`` (with its ``_normalize`` / ``_rules``) from ``folder``, as a package."""
    name = "_baseline_safety_" + re.sub(r"\W", "_", str(folder.resolve()))
    spec = importlib.util.spec_from_file_location(
        name, folder / "poisoning.py", submodule_search_locations=[str(folder)]
    )
    if spec is None or spec.loader is None:
        raise FileNotFoundError(folder / "poisoning.py")
    package = importlib.util.module_from_spec(spec)
    sys.modules[name] = package
    spec.loader.exec_module(package)
    return package


def rule_verdict(rules: ModuleType) -> RuleVerdict:
    """The quarantine verdict of a loaded rules module at its default thresholds."""

    def verdict(text: str, source: str) -> bool:
        return bool(rules.screen(text, source).quarantined)

    return verdict


def locomo_turns(folder: Path) -> Iterator[str]:
    """Every chat turn of the LoCoMo files in ``folder``, as a memory would hold it."""
    for path in sorted(folder.glob("*.json")):
        conv = json.loads(path.read_text(encoding="utf-8"))
        conv = conv.get("conversation", conv)
        for key, turns in conv.items():
            if not key.startswith("session_") or not isinstance(turns, list):
                continue
            for turn in turns:
                text = str(turn.get("text", ""))
                if turn.get("blip_caption"):
                    text += f" [shares an image: {turn['blip_caption']}]"
                yield text


def locomo_check(
    model: _model.ScreenModel, turns: Sequence[str]
) -> tuple[dict[str, int], tuple[float, float]]:
    """Turns the combined screen quarantines per source, and thresholds raised until none are."""
    counts: dict[str, int] = {}
    t_user, t_ext = model.threshold_user, model.threshold_external
    for source in ("user", "tool"):
        external = is_external(source)
        rules = np.array([rules_quarantine(t, source) for t in turns], dtype=bool)
        p = np.array(
            [model.probability(*_model.featurize(_model.text_views(t), source)) for t in turns]
        )
        counts[f"{source}: rules"] = int(rules.sum())
        counts[f"{source}: combined"] = int((rules | (p >= model.threshold(external))).sum())
        highest = float(p[~rules].max()) if (~rules).any() else 0.0
        if highest >= model.threshold(external):
            raised = next((g for g in GRID if g > highest), math.inf)
            if external:
                t_ext = max(t_ext, raised)
            else:
                t_user = max(t_user, raised)
    return counts, (t_user, t_ext)


def time_per_text(rows: Sequence[dict[str, Any]], model: _model.ScreenModel) -> float:
    """Seconds the model adds per text (views + featurize + score)."""
    start = time.perf_counter()
    for r in rows:
        model.probability(*_model.featurize(_model.text_views(r["text"]), r["source"]))
    return (time.perf_counter() - start) / max(len(rows), 1)


def _rule_dirs(specs: Sequence[str]) -> dict[str, Path]:
    out: dict[str, Path] = {}
    for spec in specs:
        name, _, folder = spec.partition("=")
        if name not in HONEST_FOLDS or not folder:
            raise SystemExit(f"--rules wants NAME=DIR with NAME in {sorted(HONEST_FOLDS)}")
        out[name] = Path(folder)
    missing = set(HONEST_FOLDS) - set(out)
    if missing:
        raise SystemExit(f"--rules missing for {sorted(missing)} (see the module docstring)")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Run the honest folds, apply the pre-registered rule; if adopted, train and check."""
    ap = argparse.ArgumentParser(description="Cross-validate / train the screen model.")
    ap.add_argument("--rules", action="append", default=[], help="NAME=DIR of old rules")
    ap.add_argument("--out", type=Path, help="write the final model here (only if adopted)")
    ap.add_argument("--locomo", type=Path, default=LOCOMO, help="LoCoMo dev folder")
    args = ap.parse_args(argv)
    missing = [n for n in ("poisoning_corpora.json",) if not (FIXTURES / n).is_file()]
    if missing or not args.locomo.is_dir():
        print(
            f"train_screen needs a source checkout: the corpora in {FIXTURES} and the LoCoMo dev "
            f"folder ({args.locomo}; --locomo or PRISM_LOCOMO_DEV). Run it from the repository.",
            file=sys.stderr,
        )
        return 2
    dirs = _rule_dirs(args.rules)
    data = load_dataset()
    folds = []
    for name, commit in HONEST_FOLDS.items():
        folds.append(evaluate_fold(data, name, rule_verdict(load_rules(dirs[name])), commit))
    print(cv_table(folds))
    adopted = decide(folds)
    for f in folds:
        a, c = f.gains()
        print(f"{f.name}: attacks {a:+.1f} points, benign {c:+.1f} points")
    print(f"decision: {'ADOPT' if adopted else 'NOT ADOPTED'}")
    if not adopted:
        return 0
    thresholds = choose_thresholds(data, inner_out_of_fold(data))
    w, b = fit(data)
    model = _model.ScreenModel(w.astype(np.float32), b, *thresholds)
    print(f"final thresholds (user, external) from the six corpora: {thresholds}")
    turns = list(locomo_turns(args.locomo))
    counts, raised = locomo_check(model, turns)
    print(f"LoCoMo dev: {len(turns)} turns; quarantined {counts}")
    if raised != thresholds:
        print(f"thresholds raised to {raised} so that no LoCoMo turn is quarantined")
        model = _model.ScreenModel(model.weights, b, *raised)
        counts, _ = locomo_check(model, turns)
        print(f"LoCoMo dev after raising: {counts}")
        print("honest folds at the raised thresholds (fold models; not part of the decision):")
        print(cv_table([f.at(raised) for f in folds]))
    print(f"model time per text: {1e3 * time_per_text(data.rows, model):.3f} ms")
    if args.out is not None:
        kept = _model.save_model(
            args.out,
            w,
            b,
            threshold_user=model.threshold_user,
            threshold_external=model.threshold_external,
        )
        print(f"wrote {args.out} ({kept} non-zero weights, {args.out.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
