"""Cosine calibration: one embedder's similarities on the scale the scoring was tuned on.

Design:
- Every cosine threshold and penalty of recall (``min_semantic``, the speaker-only penalty,
  the semantic part of the score) was tuned on all-MiniLM-L6-v2, where two unrelated
  sentences score about 0.06. Other embedders place unrelated texts elsewhere (a
  multilingual-e5 model near 0.8), so a fixed constant means something else under them.
- Each embedder's *baseline* is measured once per process: the mean cosine between the
  pairs of a fixed set of unrelated everyday sentences in the script the embedder is used
  for (English for the main embedder, Chinese for the CJK one). :func:`calibrated` maps a
  cosine affinely so the embedder's baseline lands on the reference baseline and 1 stays 1;
  for the reference model (and any embedder within 0.001 of it) the map is the identity, so
  English recall with the default embedder is unchanged bit for bit.
- Pure functions plus one small cache keyed by embedder name and size.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..embeddings.base import Embedder

__all__ = [
    "REFERENCE_BASELINE",
    "Calibration",
    "baseline_similarity",
    "calibrated",
    "calibration_for",
]

#: all-MiniLM-L6-v2's baseline on :data:`PROBES_EN` (measured; the scale scores were tuned on)
REFERENCE_BASELINE = 0.0555

#: unrelated everyday sentences: their mean pairwise cosine is an embedder's baseline
PROBES_EN: tuple[str, ...] = (
    "I fixed the kitchen sink this morning",
    "Our flight to Lisbon leaves on Friday",
    "She adopted a grey kitten last spring",
    "The quarterly report is due next week",
    "He runs five kilometres before work",
    "My grandmother grows tomatoes in her garden",
)
PROBES_CJK: tuple[str, ...] = (
    "我昨天去超市买了牛奶",
    "下周一公司要开年度总结会",
    "他每天早上骑自行车上班",
    "这家餐厅的火锅特别辣",
    "我女儿明年要考大学了",
    "周末我们去西湖划船",
)


def calibrated(cos: float, baseline: float, reference: float = REFERENCE_BASELINE) -> float:
    """``cos`` mapped so ``baseline`` becomes ``reference`` and 1 stays 1.

    >>> round(calibrated(0.8, 0.8), 4), round(calibrated(1.0, 0.8), 4)
    (0.0555, 1.0)
    >>> calibrated(0.42, REFERENCE_BASELINE + 0.0005)
    0.42
    """
    if abs(baseline - reference) < 1e-3 or baseline >= 1.0:
        return cos
    return reference + (cos - baseline) * (1.0 - reference) / (1.0 - baseline)


def baseline_similarity(embedder: Embedder, probes: Sequence[str]) -> float:
    """Mean cosine between distinct pairs of ``probes`` under ``embedder``."""
    vecs = np.asarray(embedder.embed_documents(list(probes)), dtype=np.float64)
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    vecs = vecs / np.where(norms == 0, 1.0, norms)
    sims = vecs @ vecs.T
    n = len(probes)
    return float((sims.sum() - np.trace(sims)) / (n * (n - 1)))


@dataclass(frozen=True)
class Calibration:
    """An embedder's baseline and the map onto the reference scale."""

    baseline: float

    def __call__(self, cos: float) -> float:
        return calibrated(cos, self.baseline)

    @property
    def identity(self) -> bool:
        return abs(self.baseline - REFERENCE_BASELINE) < 1e-3


_CACHE: dict[tuple[str, int, str], Calibration] = {}
_LOCK = threading.Lock()
_REFERENCE_MODELS = frozenset({"sentence-transformers/all-MiniLM-L6-v2"})


def calibration_for(embedder: Embedder, script: str = "en") -> Calibration:
    """The embedder's :class:`Calibration`, measured once per process (``script``: ``en`` or
    ``cjk``, the probes it is measured on). The reference model needs no measurement."""
    if script == "en" and embedder.name in _REFERENCE_MODELS:
        return Calibration(REFERENCE_BASELINE)
    key = (embedder.name, embedder.dim, script)
    with _LOCK:
        cal = _CACHE.get(key)
    if cal is None:
        probes = PROBES_CJK if script == "cjk" else PROBES_EN
        cal = Calibration(baseline_similarity(embedder, probes))
        with _LOCK:
            _CACHE[key] = cal
    return cal
