"""A learned second opinion for the poisoning screen: hashed n-gram logistic regression.

Design:
- Features come from the views of a text the rules read (:func:`text_views`: as written,
  identifiers, de-hyphenated, de-obfuscated, leetspeak, decoded segments, comments): hashed
  word uni- and bigrams and character 3-5-grams, each block scaled to unit length, plus the
  source. A block shorter than ``MIN_WORDS`` words / ``MIN_CHAR_GRAMS`` n-grams is scaled as if
  it were that long: "Agreed!" holds the evidence of one word, not of a whole sentence, and
  must not be amplified to one. Buckets come from stable hashes (CRC32 for words, a fixed
  multiplicative hash of code points for character n-grams), never Python's salted ``hash()``,
  so a text scores the same in every process.
- The model is linear (L2-regularised, class-balanced logistic regression, trained by
  ``research/screen/train_screen.py``, a training tool kept out of the package); inference is
  one gather and a dot product in numpy.
- Weights are stored sparse (bucket index + float32 weight, non-zero entries only) with the two
  per-source probability thresholds chosen by the trainer (values of :data:`THRESHOLD_GRID`),
  and expanded to a dense ``2**18`` float32 vector (1 MB) when read.
- Status: shipped since the third revision of the rules, retrained in the fifth, each time by
  a rule written before its cross-validation (``train_screen``; history in
  ``research/screen/decision-log.md``). The weights ship as ``data/screen_model.npz``;
  ``poisoning.screen`` quarantines when the rules or the model fire (:meth:`ScreenModel.fires`),
  and the model may overrule the rules when it is confident a text is benign
  (``poisoning.vetoed``).
"""

from __future__ import annotations

import math
import re
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ._normalize import read_views

__all__ = [
    "DIM",
    "MIN_WORDS",
    "THRESHOLD_GRID",
    "WORD",
    "ScreenModel",
    "decide",
    "featurize",
    "read_model",
    "save_model",
    "text_views",
]

DIM_BITS = 18
DIM = 1 << DIM_BITS
FORMAT_VERSION = 3  # 3: short texts are damped (MIN_WORDS, MIN_CHAR_GRAMS)

WORD = re.compile(r"\w+")
_MIX = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing multiplier
_SHIFT = np.uint64(64 - DIM_BITS)
_CHAR_NS = (3, 4, 5)
MIN_WORDS = 12  # a shorter text weighs its words as if it had this many
MIN_CHAR_GRAMS = 100  # and its character n-grams as if it had this many
#: The thresholds training chooses from: the n-gram model's thresholds and the ensemble's
#: (``research/screen/train_screen.py``, ``train_transformer.py``) are values of this grid.
THRESHOLD_GRID = (*(round(0.5 + 0.01 * i, 2) for i in range(50)), 0.995, 0.999)
_MASK = DIM - 1

FloatArray = npt.NDArray[np.float64]
IndexArray = npt.NDArray[np.int64]


def text_views(text: str) -> list[str]:
    """The readings of ``text`` the rules examine; the first is the text as written."""
    return read_views(text).all()


def _char_buckets(text: str) -> IndexArray:
    """Buckets of all character 3-5-grams of ``text`` (vectorised multiplicative hash)."""
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    parts: list[IndexArray] = []
    for n in _CHAR_NS:
        if len(codes) < n:
            continue
        m = len(codes) - n + 1
        h = np.full(m, np.uint64(n), dtype=np.uint64)
        for k in range(n):
            h = (h * np.uint64(1_000_003)) ^ codes[k : k + m]
        parts.append(((h * _MIX) >> _SHIFT).astype(np.int64))
    if not parts:
        return np.zeros(0, dtype=np.int64)
    return np.concatenate(parts)


def featurize(views: Sequence[str], source: str) -> tuple[IndexArray, FloatArray]:
    """Sparse feature vector (sorted unique bucket indices, values) of one text.

    ``views`` are the readings of the text (:func:`text_views`). The rule signals are
    deliberately *not* features: the rules were revised on every dev corpus, so on training data
    they are near-perfect and a model given them learns to copy them.
    """
    return with_source(text_features(views), source)


def text_features(views: Sequence[str]) -> tuple[IndexArray, IndexArray]:
    """The buckets of a text's own words and word pairs, and of its character n-grams: what
    :func:`featurize` reads of the text whatever its source (computed once when a text is
    read as coming from two sources)."""
    seen: list[str] = []
    for v in views:
        folded = v.casefold()
        if folded and folded not in seen:
            seen.append(folded)
    words: set[int] = set()
    for v in seen:
        toks = WORD.findall(v)
        words.update(zlib.crc32(t.encode("utf-8")) & _MASK for t in toks)
        words.update(zlib.crc32(f"{a} {b}".encode()) & _MASK for a, b in pairwise(toks))
    chars = np.unique(_char_buckets("\x00".join(f" {' '.join(v.split())} " for v in seen)))
    word_idx = np.fromiter(sorted(words), dtype=np.int64, count=len(words))
    return word_idx, chars


def with_source(
    features: tuple[IndexArray, IndexArray], source: str
) -> tuple[IndexArray, FloatArray]:
    """:func:`text_features` with the source's own features, as :func:`featurize` returns them."""
    word_idx, chars = features
    src = str(source).lower()
    named = [f"s:{src}", "s:internal" if src == "user" else "s:external"]
    name_idx = np.array([zlib.crc32(n.encode()) & _MASK for n in named], dtype=np.int64)
    idx = np.concatenate([word_idx, chars, name_idx])
    val = np.concatenate(
        [
            np.full(len(word_idx), 1.0 / math.sqrt(max(len(word_idx), MIN_WORDS))),
            np.full(len(chars), 1.0 / math.sqrt(max(len(chars), MIN_CHAR_GRAMS))),
            np.ones(len(name_idx)),
        ]
    )
    # merge collisions: one value per bucket
    order = np.argsort(idx, kind="stable")
    idx, val = idx[order], val[order]
    uniq, start = np.unique(idx, return_index=True)
    return uniq, np.add.reduceat(val, start)


@dataclass(frozen=True)
class ScreenModel:
    """Dense weights of the linear screen model, its intercept and per-source thresholds."""

    weights: npt.NDArray[np.float32]
    bias: float
    threshold_user: float = math.inf
    threshold_external: float = math.inf

    def probability(self, idx: IndexArray, val: FloatArray) -> float:
        """P(attack) for one featurized text."""
        z = self.bias + float(np.dot(self.weights[idx].astype(np.float64), val))
        if z >= 0:
            return 1.0 / (1.0 + math.exp(-z))
        e = math.exp(z)
        return e / (1.0 + e)

    def threshold(self, external: bool) -> float:
        """The probability at which the model quarantines content of that source group."""
        return self.threshold_external if external else self.threshold_user

    def text_probability(self, views: Sequence[str], source: str) -> float:
        """P(attack) of a text (its ``views``) from ``source``: the highest over its
        :func:`windows`, so a long text is read at the length the model was trained on."""
        return self.reading(views)(source)

    def reading(self, views: Sequence[str]) -> Callable[[str], float]:
        """:meth:`text_probability` of a text for any source, its windows featurized once."""
        read = [text_features(w) for w in windows(views)]
        return lambda source: max(self.probability(*with_source(f, source)) for f in read)

    def fires(self, views: Sequence[str], source: str, external: bool) -> tuple[bool, float]:
        """Whether the model quarantines a text (its ``views``) from ``source``, and P(attack)
        (:func:`decide`)."""
        read = self.reading(views)
        p = read(source)
        as_user = (lambda: read("user")) if external else None
        return decide(p, as_user, self.threshold_user, self.threshold_external)


# The corpora the model is trained on hold texts of at most 2,000 characters. A longer text
# with many distinct words drifts towards "attack" as it grows (its hashed features' small
# weights add up: a 30,000-character travel diary scored 0.94), so it is read in windows of
# that length, half-overlapping, and its P is the highest window's: an instruction buried
# anywhere is still read next to its own context.
WINDOW_CHARS = 2000


def windows(views: Sequence[str], size: int = WINDOW_CHARS) -> list[list[str]]:
    """The views of a text cut into half-overlapping windows of ``size`` characters (aligned by
    offset across the views); a text no view of which is longer is one window, as it is.

    >>> windows(["short", "views"])
    [['short', 'views']]
    >>> [[len(v) for v in w] for w in windows(["x" * 2500, "y" * 1200], size=1000)]
    [[1000, 1000], [1000, 700], [1000, 200], [1000]]
    """
    longest = max((len(v) for v in views), default=0)
    if longest <= size:
        return [list(views)]
    step = size // 2
    return [
        [v[start : start + size] for v in views if len(v) > start]
        for start in range(0, longest - step, step)
    ]


def decide(
    p: float, as_user: Callable[[], float] | None, t_user: float, t_external: float
) -> tuple[bool, float]:
    """Whether an opinion quarantines a text it gives P(attack) ``p`` as read from its source,
    and the probability that decided.

    ``as_user`` is ``None`` for the user's own words (threshold ``t_user``). For external content
    (tool, web, assistant; threshold ``t_external``) it computes P(attack) of the same text read
    as the user's words, asked only when ``p`` does not fire; that reading fires at ``t_user``,
    so an opinion is never more lenient with a web page than with the user. If neither reading
    fires, the higher P is returned: the veto never trusts a tool more than the user.

    >>> decide(0.6, None, 0.7, 0.5), decide(0.6, lambda: 0.1, 0.7, 0.5)
    ((False, 0.6), (True, 0.6))
    >>> decide(0.3, lambda: 0.8, 0.7, 0.5), decide(0.3, lambda: 0.4, 0.7, 0.5)
    ((True, 0.8), (False, 0.4))
    """
    if as_user is None:
        return p >= t_user, p
    if p >= t_external:
        return True, p
    p_user = as_user()
    return (True, p_user) if p_user >= t_user else (False, max(p, p_user))


def save_model(
    path: Path,
    weights: FloatArray,
    bias: float,
    *,
    threshold_user: float = math.inf,
    threshold_external: float = math.inf,
) -> int:
    """Write ``weights`` sparsely (non-zero float32 entries only); returns how many were kept."""
    w32 = weights.astype(np.float32)
    nz = np.flatnonzero(w32).astype(np.int32)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        np.savez_compressed(
            fh,
            index=nz,
            weight=w32[nz],
            bias=np.array([bias], dtype=np.float64),
            thresholds=np.array([threshold_user, threshold_external], dtype=np.float64),
            meta=np.array([FORMAT_VERSION, DIM_BITS], dtype=np.int64),
        )
    return len(nz)


def read_model(path: Path) -> ScreenModel:
    """Load a model file written by :func:`save_model`."""
    with np.load(path) as data:
        version, bits = (int(x) for x in data["meta"])
        if version != FORMAT_VERSION or bits != DIM_BITS:
            raise ValueError(f"{path}: model format {version}/{bits}, expected {FORMAT_VERSION}")
        dense = np.zeros(DIM, dtype=np.float32)
        dense[data["index"].astype(np.int64)] = data["weight"]
        t_user, t_ext = (float(x) for x in data["thresholds"])
        return ScreenModel(dense, float(data["bias"][0]), t_user, t_ext)
