"""A deterministic embedder for unit tests: hashed bag of words, no model, no I/O.

Texts sharing words get similar vectors, so ranking tests stay meaningful.
"""

from __future__ import annotations

import hashlib
import math
import re

__all__ = ["FakeEmbedder"]

_WORD = re.compile(r"\w+", re.UNICODE)


class FakeEmbedder:
    """Hashed bag-of-words vectors.

    Example:
        >>> e = FakeEmbedder(dim=32)
        >>> len(e.embed_query("window seat"))
        32
    """

    def __init__(self, dim: int = 64, name: str = "fake-hash") -> None:
        self._dim = dim
        self._name = name
        self.calls = 0

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def name(self) -> str:
        return self._name

    def _one(self, text: str) -> list[float]:
        vec = [0.0] * self._dim
        words = _WORD.findall(text.casefold()) or [text]
        for word in words:
            h = hashlib.blake2b(word.encode(), digest_size=8).digest()
            vec[h[0] % self._dim] += 1.0
            vec[h[1] % self._dim] += 0.5 if h[2] & 1 else -0.5
        norm = math.sqrt(sum(x * x for x in vec)) or 1.0
        return [x / norm for x in vec]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.calls += 1
        return [self._one(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        self.calls += 1
        return self._one(text)
