"""How near in meaning is "no relation" for an embedder: its noise floor.

Design:
- A slot is matched by meaning only above the noise floor of the embedder in use, never a
  fixed cosine: the mean plus ``z`` standard deviations of the pairwise cosines between
  unrelated everyday sentences (English and Chinese sets below), measured once per embedder
  object and kept while it lives (a weak-keyed cache).
- :func:`noise_floor` is pure (vectors in, a cosine out); :func:`embedder_floor` embeds the
  calibration sentences the way turns are embedded (``"Sam: ..."``) or plain.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

import numpy as np

__all__ = ["CALIBRATION", "ZH_CALIBRATION", "embedder_floor", "noise_floor"]


#: unrelated everyday statements (none about the same thing): their pairwise cosines are what
#: "no relation" looks like to an embedder
CALIBRATION = (
    "I fed the neighbour's cat while they were away.",
    "The printer at work keeps jamming on double-sided pages.",
    "We watched a documentary about deep-sea fish last night.",
    "My grandmother taught me to knit when I was seven.",
    "The train was twenty minutes late because of a signal fault.",
    "I repainted the bathroom a pale green colour.",
    "Our football club won the regional cup on penalties.",
    "I keep my passwords in a paper notebook in a drawer.",
    "The bakery on the corner sells out of croissants by nine.",
    "I sprained my wrist falling off a skateboard.",
    "Our team migrated the database to a new cluster.",
    "I planted tomatoes and basil on the balcony.",
    "The museum has a new exhibition about Roman coins.",
    "I bought a second-hand piano from a church sale.",
    "My laptop battery only lasts about two hours.",
    "We got stuck in a snowstorm driving through the mountains.",
)


ZH_CALIBRATION = (
    "我昨天帮邻居喂了猫。",
    "公司的打印机总是卡纸。",
    "我们晚上看了一部关于深海鱼的纪录片。",
    "奶奶在我七岁的时候教我织毛衣。",
    "火车因为信号故障晚点了二十分钟。",
    "我把浴室刷成了浅绿色。",
    "我们的球队点球赢得了比赛。",
    "街角的面包店九点就卖完了牛角包。",
    "我在阳台上种了西红柿和罗勒。",
    "博物馆有一个关于古罗马硬币的新展览。",
)


def noise_floor(vectors: np.ndarray, z: float = 2.0) -> float:
    """Mean + ``z`` standard deviations of the pairwise cosines of unrelated sentences.

    >>> round(noise_floor(np.eye(3)), 3)
    0.0
    """
    v = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    sims = v @ v.T
    upper = sims[np.triu_indices(len(v), k=1)]
    return float(upper.mean() + z * upper.std())


_FLOORS: weakref.WeakKeyDictionary[object, dict[tuple[bool, bool], float]] = (
    weakref.WeakKeyDictionary()
)


_FLOORS_LOCK = threading.Lock()


def embedder_floor(embedder: Any, cjk: bool, *, named: bool = True) -> float:
    """The noise floor of ``embedder`` for English or Chinese sentences, said by a named
    speaker (``"Sam: ..."``, as turns are embedded; mean + 2 sd) or plain (mean + 2.5 sd: the
    stricter bar of the word-level check). Measured once per embedder object."""
    slot = (cjk, named)
    with _FLOORS_LOCK:
        try:
            known = _FLOORS.setdefault(embedder, {})
        except TypeError:  # an embedder that cannot be weakly referenced: measured each time
            known = {}
        if slot in known:
            return known[slot]
    said = ZH_CALIBRATION if cjk else CALIBRATION
    texts = [(("王明: " if cjk else "Sam: ") + t) if named else t for t in said]
    vectors = np.asarray(embedder.embed_documents(texts), dtype=np.float64)
    floor = noise_floor(vectors, 2.0 if named else 2.5)
    with _FLOORS_LOCK:
        known[slot] = floor
    return floor
