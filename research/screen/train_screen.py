"""Train the poisoning screen's linear model and decide, by a pre-registered rule, what ships.

A training tool, kept in ``research/screen`` and in no wheel: it imports the installed core
(``prism_memory.safety``) and reads the corpora of ``research/screen/corpora``.

Design:
- Since the fifteenth revision the shipped n-gram model is trained by
  ``train_transformer --ngram-out`` on the transformer's corpora, with this module's
  :func:`train_model` (features, fit, thresholds and LoCoMo guard as below). This command is
  the sixth revision's decision, kept so that it can be replayed (from the repository root;
  deterministic; a few minutes on two cores). Each honest fold replays old rules: put the files
  ``_normalize.py``, ``_rules.py``, ``poisoning.py`` and ``_model.py`` of
  ``prism_memory/safety/`` as of commit ``4e8dc19`` (blind3; it has no ``_model.py``) and as of
  ``c70679e`` (blind4) in a folder of their own each, outside the checkout (``git show
  COMMIT:prism_memory/safety/FILE.py``), and name the folders::

      .venv/bin/python research/screen/train_screen.py \\
        --rules blind3=RULES_4E8DC19 --rules blind4=RULES_C70679E --out screen_model_sixth.npz

- Data: the training corpora in ``research/screen/corpora`` (``poisoning_corpora.json`` says
  who wrote each one and what it was used for; the blind corpora that measure the shipped
  revision stay in ``tests/fixtures``, :data:`CORPUS_DIRS`); :data:`CORPORA` are the sixth
  revision's. Blind corpora are trained on only after they measured a revision once.
- Chat augmentation: a benign chat turn of the user's (families in :data:`CHAT_FAMILIES`) is
  also a benign text from a *tool*, since a tool that reads a chat log returns ordinary chat
  and a tool does not turn it into orders. Preferences and standing rules are not copied: from
  a tool or a web page they are orders. Augmented rows stay in their corpus's folds.
- The model: ``_model.featurize`` features, L2-regularised logistic regression with class-
  balanced sample weights, fitted by full-batch L-BFGS from zero for a fixed number of
  iterations in float64 with order-fixed sums, so a run reproduces its weights bit for bit.
- Thresholds per source group (user; external = tool / web / assistant / derived): the
  lowest grid value whose benign rate is <= 1% among out-of-fold probabilities of the
  training rows (inner leave-one-corpus-out), then raised by the *LoCoMo guard*: no LoCoMo dev
  chat turn may be quarantined, as ``user`` or as ``tool``, by the n-gram model alone (the
  ensemble's guard tolerates 0.5% since the fifteenth revision). LoCoMo is never trained on.
- Honest folds: a fold scored with rules revised on its corpus cannot show what the model
  adds, so each replays the rules of a commit that had not seen its corpus
  (:data:`HONEST_FOLDS`), with their own model off.
- Every decision rule and result is kept in ``research/screen/decision-log.md``; the
  current rule:

Pre-registered decision of the sixth revision (written before its run):

1. Contenders: ``fifth`` = the recipe that ships now (nine corpora) and ``sixth`` = the same
   plus blind corpus 5 (measured once against the fifth revision) and training corpus 6a
   (an eleventh author: attacks and benign text in twenty languages, users' rules about other
   people in harmful / harmless pairs, web pages that address their human reader). Same
   features, augmentation, regularisation, iterations and threshold rule.
2. Honest folds as before (``blind3`` with the rules of ``4e8dc19``, ``blind4`` with the rules
   of ``c70679e``), at the operating point that would ship (LoCoMo guard).
3. Combination: as in the fifth revision, plus the veto: a rules quarantine is overruled when
   the model's P(attack) < 0.1, nothing in the text is hidden and the rules found no secret or
   data leaving (``poisoning.vetoed``; used by both contenders).
4. The old folds cannot show what a new author's text adds (the purpose of the data), so the
   rule is non-inferiority: ship ``sixth`` iff on BOTH folds its combined attack rate is >=
   ``fifth``'s - 1 point and its combined benign rate <= ``fifth``'s + 1 point. The measure of
   the decision is blind corpus 6, written while it was made and measured once.
5. If ``sixth`` ships, the final model is trained on all its corpora as before.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
import math
import os
import re
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

from prism_memory.safety import _model
from prism_memory.safety.poisoning import EXTERNAL_SOURCES, rule_assessment, threshold_for, vetoed

__all__ = [
    "RECIPES",
    "Dataset",
    "FoldResult",
    "Recipe",
    "augment_chat",
    "choose_thresholds",
    "dataset_from_rows",
    "evaluate_fold",
    "fit",
    "load_dataset",
    "locomo_turns",
    "main",
    "predict",
    "prefer",
]

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
#: Where corpora are looked for, in order: the training and studied corpora, then the blind
#: corpora that measure the shipped revision (read by ``make test``).
CORPUS_DIRS = (HERE / "corpora", REPO / "tests" / "fixtures")
MANIFEST = CORPUS_DIRS[0] / "poisoning_corpora.json"


def _locomo_dir() -> Path:
    """The LoCoMo dev folder: ``$PRISM_LOCOMO_DEV``, else ``../shared/bench/locomo-dev`` relative
    to the repository root (as the Makefile uses it); ``--locomo`` overrides."""
    env = os.environ.get("PRISM_LOCOMO_DEV")
    return Path(env) if env else REPO.parent / "shared" / "bench" / "locomo-dev"


LOCOMO = _locomo_dir()
CORPORA = (
    "corpus",
    "holdout",
    "blind",
    "dev2",
    "blind2",
    "blind3",
    "blind4",
    "train5a",
    "train5b",
    "train5c",
    "train5d",
    "blind5",
    "train6a",
)
HONEST_FOLDS = {"blind3": "4e8dc19", "blind4": "c70679e"}
CHAT_FAMILIES = frozenset({"chat", "user_fact", "benign_fact", "non_english"})
L2 = 1e-5
ITERATIONS = 150
GRID = _model.THRESHOLD_GRID
MAX_TRAIN_BENIGN = 0.01
MIN_ATTACK_GAIN = -1.0  # points over the recipe that ships now (sixth revision: non-inferior)
MAX_BENIGN_COST = 1.0  # points over the recipe that ships now


@dataclass(frozen=True)
class Recipe:
    """Which corpora a model is trained on, and whether chat turns are also read as tool text."""

    name: str
    corpora: tuple[str, ...]
    augment: bool


RECIPES = (Recipe("fifth", CORPORA[:11], True), Recipe("sixth", CORPORA, True))

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
RuleVerdict = Callable[[str, str], bool]


def is_external(source: str) -> bool:
    """Whether ``source`` is held to the external (strict) thresholds."""
    return str(source).lower() in EXTERNAL_SOURCES


@cache
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

    @property
    def augmented(self) -> BoolArray:
        """Whether every row is a copy made by :func:`augment_chat`."""
        return np.array([bool(r.get("augmented")) for r in self.rows], dtype=bool)

    def training(self, recipe: Recipe, held_out: str | None = None) -> Dataset:
        """The rows ``recipe`` trains on, without the corpus ``held_out``."""
        corpus = self.corpus
        mask = np.isin(corpus, recipe.corpora) & (corpus != held_out)
        if not recipe.augment:
            mask &= ~self.augmented
        return self.subset(mask)

    def test(self, name: str) -> Dataset:
        """The rows of corpus ``name`` as written (no augmented copies)."""
        return self.subset((self.corpus == name) & ~self.augmented)

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


def corpus_file(name: str, folders: Path | Sequence[Path] = CORPUS_DIRS) -> Path:
    """``poisoning_{name}.jsonl`` in the first of ``folders`` that holds it (else the first)."""
    dirs = [folders] if isinstance(folders, Path) else list(folders)
    paths = [d / f"poisoning_{name}.jsonl" for d in dirs]
    return next((p for p in paths if p.is_file()), paths[0])


def _read_rows(
    names: Sequence[str], folders: Path | Sequence[Path] = CORPUS_DIRS
) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for name in names:
        with corpus_file(name, folders).open(encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    rows.append({**json.loads(line), "corpus": name})
    return rows


def augment_chat(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Copies, as ``tool`` text, of the benign chat turns of the user in ``rows``.

    >>> augment_chat([{"text": "we hiked", "label": "benign", "source": "user", "family": "chat"},
    ...               {"text": "answer in French", "label": "benign", "source": "user",
    ...                "family": "user_pref"}])
    [{'text': 'we hiked', 'label': 'benign', 'source': 'tool', 'family': 'chat', 'augmented': True}]
    """
    return [
        {**r, "source": "tool", "augmented": True}
        for r in rows
        if r["label"] == "benign" and r["source"] == "user" and r.get("family") in CHAT_FAMILIES
    ]


def load_dataset(
    names: Sequence[str] = CORPORA,
    folders: Path | Sequence[Path] = CORPUS_DIRS,
    *,
    augment: bool = False,
) -> Dataset:
    """Read the corpora and featurize every text (with :func:`augment_chat` copies if asked)."""
    rows = _read_rows(names, folders)
    if augment:
        rows += augment_chat(rows)
    return dataset_from_rows(rows)


def dataset_from_rows(rows: Sequence[dict[str, Any]]) -> Dataset:
    """Featurize ``rows`` (dicts with ``text``, ``label``, ``source`` and ``corpus``)."""
    rows = list(rows)
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


def model_flags(
    p: FloatArray,
    external: BoolArray,
    thresholds: tuple[float, float],
    p_user: FloatArray | None = None,
) -> BoolArray:
    """Rows whose probability passes the threshold of their source group.

    ``p_user`` is the probability of every row read as the user's own words: an external row
    it passes at the user threshold is flagged too (never more lenient with a tool than with
    the user, as ``_model.ScreenModel.fires`` decides).
    """
    flags = np.where(external, p >= thresholds[1], p >= thresholds[0])
    if p_user is not None:
        flags |= external & (p_user >= thresholds[0])
    return flags


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
    recipe: str = ""
    probs_user: FloatArray | None = None
    vetoes: BoolArray | None = None

    @property
    def model(self) -> BoolArray:
        """Quarantined by the model at the fold's thresholds."""
        return model_flags(self.probs, self.external, self.thresholds, self.probs_user)

    @property
    def combined(self) -> BoolArray:
        """Quarantined by the rules (unless the model overrules them) or by the model."""
        rules = self.rules if self.vetoes is None else self.rules & ~self.vetoes
        return rules | self.model

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


def train_model(train: Dataset, turns: Sequence[str], *, l2: float = L2) -> _model.ScreenModel:
    """Fit on ``train``; thresholds from its inner folds, raised by the LoCoMo guard."""
    thresholds = choose_thresholds(train, inner_out_of_fold(train, l2=l2))
    w, b = fit(train, l2=l2)
    model = _model.ScreenModel(w.astype(np.float32), b, *thresholds)
    raised = locomo_check(model, turns)[1]
    return replace(model, threshold_user=raised[0], threshold_external=raised[1])


def evaluate_fold(
    data: Dataset,
    held_out: str,
    verdict: RuleVerdict,
    rules_commit: str,
    recipe: Recipe,
    turns: Sequence[str],
    *,
    l2: float = L2,
) -> FoldResult:
    """Train ``recipe`` without ``held_out`` (thresholds on its corpora, then the LoCoMo guard)
    and score ``held_out`` with it and with the rules of ``rules_commit``."""
    model = train_model(data.training(recipe, held_out), turns, l2=l2)
    held = data.test(held_out)
    p = predict(held, model.weights.astype(np.float64), model.bias)
    p_user = np.array([model.probability(*_features(r["text"], "user")) for r in held.rows])
    rules = np.array([verdict(r["text"], r["source"]) for r in held.rows], dtype=bool)
    # the veto reads the hiding signals of the current rules (they come from the views)
    vetoes = np.array(
        [
            vetoed(rule_assessment(r["text"], r["source"])[0].signals, q)
            for r, q in zip(held.rows, p)
        ],
        dtype=bool,
    )
    thresholds = (model.threshold_user, model.threshold_external)
    return FoldResult(
        held_out,
        rules_commit,
        held.labels,
        rules,
        p,
        held.external,
        thresholds,
        recipe.name,
        p_user,
        vetoes,
    )


def prefer(shipped: Sequence[FoldResult], contender: Sequence[FoldResult]) -> bool:
    """The pre-registered rule: on every fold the contender's combined screen catches at least
    ``MIN_ATTACK_GAIN`` points more attacks than the shipped recipe's (-1: at most one point
    fewer) and quarantines at most ``MAX_BENIGN_COST`` points more benign texts."""
    if not shipped or len(shipped) != len(contender):
        return False
    for old, new in zip(shipped, contender):
        attack_gain = new.rate(new.combined, True)[2] - old.rate(old.combined, True)[2]
        benign_cost = new.rate(new.combined, False)[2] - old.rate(old.combined, False)[2]
        if attack_gain < MIN_ATTACK_GAIN or benign_cost > MAX_BENIGN_COST:
            return False
    return True


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
            name = (
                f"{f.recipe} {f.name} ({f.rules_commit})"
                if attacks
                else f"  thresholds {f.thresholds}"
            )
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

    kwargs = {"model": False} if "model" in inspect.signature(rules.screen).parameters else {}

    def verdict(text: str, source: str) -> bool:
        return bool(rules.screen(text, source, **kwargs).quarantined)

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


@cache
def _features(text: str, source: str) -> tuple[npt.NDArray[np.int64], FloatArray]:
    """The model's features of one text (cached: the LoCoMo guard scores every turn per fold)."""
    return _model.featurize(_model.text_views(text), source)


def locomo_check(
    model: _model.ScreenModel, turns: Sequence[str]
) -> tuple[dict[str, int], tuple[float, float]]:
    """Turns the combined screen quarantines per source, and thresholds raised until none are."""
    counts: dict[str, int] = {}
    t_user, t_ext = model.threshold_user, model.threshold_external
    for source in ("user", "tool"):
        external = is_external(source)
        rules = np.array([rules_quarantine(t, source) for t in turns], dtype=bool)
        p = np.array([model.probability(*_features(t, source)) for t in turns])
        fired = p >= model.threshold(external)
        if external:  # read as the user's words too (at the user threshold raised so far)
            fired |= np.array([model.probability(*_features(t, "user")) >= t_user for t in turns])
        counts[f"{source}: rules"] = int(rules.sum())
        counts[f"{source}: combined"] = int((rules | fired).sum())
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
    """Run the honest folds for both recipes, apply the pre-registered rule, train what ships."""
    ap = argparse.ArgumentParser(description="Cross-validate / train the screen model.")
    ap.add_argument("--rules", action="append", default=[], help="NAME=DIR of old rules")
    ap.add_argument("--out", type=Path, help="write the final model here (only if adopted)")
    ap.add_argument("--locomo", type=Path, default=LOCOMO, help="LoCoMo dev folder")
    args = ap.parse_args(argv)
    if not MANIFEST.is_file() or not args.locomo.is_dir():
        print(
            f"train_screen needs a source checkout: the corpora in {MANIFEST.parent} and the "
            f"LoCoMo dev folder ({args.locomo}; --locomo or PRISM_LOCOMO_DEV). Run it from the "
            "repository.",
            file=sys.stderr,
        )
        return 2
    dirs = _rule_dirs(args.rules)
    data = load_dataset(augment=True)
    turns = list(locomo_turns(args.locomo))
    modules = {n: load_rules(dirs[n]) for n in HONEST_FOLDS}
    folds: dict[str, list[FoldResult]] = {}
    for recipe in RECIPES:
        folds[recipe.name] = [
            evaluate_fold(
                data,
                name,
                rule_verdict(modules[name]),
                commit,
                recipe,
                turns,
            )
            for name, commit in HONEST_FOLDS.items()
        ]
        print(cv_table(folds[recipe.name]), flush=True)
        for f in folds[recipe.name]:
            attacks, benign = f.gains()
            print(
                f"{recipe.name} {f.name}: the model adds {attacks:+.1f} attack points, "
                f"{benign:+.1f} benign points to the rules"
            )
    shipped, contender = RECIPES
    adopted = prefer(folds[shipped.name], folds[contender.name])
    print(f"decision: {'SHIP ' + contender.name if adopted else 'KEEP ' + shipped.name}")
    if not adopted:
        return 0
    model = train_model(data.training(contender), turns)
    counts, _ = locomo_check(model, turns)
    print(f"final thresholds (user, external): {model.threshold_user}, {model.threshold_external}")
    print(f"LoCoMo dev: {len(turns)} turns; quarantined {counts}")
    print(f"model time per text: {1e3 * time_per_text(data.rows, model):.3f} ms")
    if args.out is not None:
        kept = _model.save_model(
            args.out,
            model.weights.astype(np.float64),
            model.bias,
            threshold_user=model.threshold_user,
            threshold_external=model.threshold_external,
        )
        print(f"wrote {args.out} ({kept} non-zero weights, {args.out.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
