"""BM25 sparse vectors for every script, the same encoder for every engine.

Design:
- ``qdrant_edge.Bm25`` (pure Rust, offline) turns text into term-frequency sparse vectors; the
  collection's ``bm25`` vector has the IDF modifier, so the engine applies IDF at query time.
  Documents and queries use different weightings (``embed_document`` vs ``embed_query``).
  Vectors are computed here, client-side, so Qdrant Edge and qdrant-client index the same
  terms (``tests/integration/test_congruence.py``).
- Its word tokenizer keeps a run of Chinese or Japanese characters (no spaces between words)
  as one token, so a Chinese clause matched only an identical clause. Tokenizer version 2
  (:data:`SPARSE_VERSION`) rewrites every run of CJK characters (Han, kana, Hangul) into its
  overlapping character bigrams ("李明杰" -> "李明 明杰"; a lone character stays a unigram)
  before the same BM25 model sees the text: words elsewhere, bigrams in CJK runs, one length
  normalisation over both. Text without a CJK character takes exactly the old path, so English
  vectors are byte-identical across versions.
- A store records the version its vectors were written with (``sparse_version``); a store
  written before version 2 keeps version 1 (no rewriting) so its documents and queries still
  agree. Moving such a store to version 2: ``export_jsonl`` and ``import_jsonl`` into a new
  path (docs/multilingual.md).
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import Any

from .errors import ConfigError

__all__ = ["SPARSE_VERSION", "SparseEncoder", "SparseVec", "cjk_bigrams", "has_cjk"]

#: the tokenizer version new stores are written with (1: the engine's word tokenizer only)
SPARSE_VERSION = 2

# Han (with extensions A and the compatibility block), kana, Hangul syllables and jamo
_CJK = (
    "\u1100-\u11ff\u3040-\u30ff\u3131-\u318e\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f\U00020000-\U0002fa1f"
)
_CJK_RUN = re.compile(f"[{_CJK}]+")
_CJK_CHAR = re.compile(f"[{_CJK}]")


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds a Chinese, Japanese or Korean character.

    >>> has_cjk("I moved to 杭州"), has_cjk("I moved to Hangzhou")
    (True, False)
    """
    # most text is ASCII: str.isascii is a flag check, the search a scan of every character
    return not text.isascii() and _CJK_CHAR.search(text) is not None


def _bigrams(run: str) -> str:
    if len(run) == 1:
        return run
    return " ".join(run[i : i + 2] for i in range(len(run) - 1))


def cjk_bigrams(text: str) -> str:
    """``text`` with each CJK run replaced by its space-separated character bigrams.

    >>> cjk_bigrams("我搬到了杭州, near West Lake")
    ' 我搬 搬到 到了 了杭 杭州 , near West Lake'
    """
    return _CJK_RUN.sub(lambda m: f" {_bigrams(m.group())} ", text)


@dataclass(frozen=True)
class SparseVec:
    """Engine-neutral sparse vector."""

    indices: list[int]
    values: list[float]

    def __bool__(self) -> bool:
        return bool(self.indices)


class SparseEncoder:
    """BM25 tokenisation: English words (lower-case, stemming, stopwords), CJK bigrams.

    ``version`` is the store's tokenizer version (:data:`SPARSE_VERSION` for a new store, 1
    for one written before CJK bigrams). Thread-safe.

    Example:
        >>> enc = SparseEncoder()
        >>> bool(enc.document("I prefer window seats")), bool(enc.query("靠窗的座位"))
        (True, True)
        >>> set(enc.query("杭州").indices) <= set(enc.document("我搬到了杭州。").indices)
        True
    """

    def __init__(
        self, language: str = "english", avg_len: float = 40.0, version: int = SPARSE_VERSION
    ) -> None:
        if version not in (1, 2):
            raise ConfigError(
                f"sparse tokenizer version {version!r} is unknown (this release knows 1 and "
                f"{SPARSE_VERSION}); upgrade prism-memory to open a store written by a newer one"
            )
        self._language = language
        self._avg_len = avg_len
        self.version = version
        self._local = threading.local()

    def _model(self) -> Any:
        model = getattr(self._local, "model", None)
        if model is None:
            from qdrant_edge import Bm25, Bm25Config

            model = Bm25(Bm25Config(language=self._language, avg_len=self._avg_len))
            self._local.model = model
        return model

    def _text(self, text: str) -> str:
        if self.version >= 2 and has_cjk(text):
            return cjk_bigrams(text)
        return text

    def document(self, text: str) -> SparseVec:
        v = self._model().embed_document(self._text(text))
        return SparseVec(list(v.indices), [float(x) for x in v.values])

    def query(self, text: str) -> SparseVec:
        v = self._model().embed_query(self._text(text))
        return SparseVec(list(v.indices), [float(x) for x in v.values])

    def documents(self, texts: list[str]) -> list[SparseVec]:
        return [self.document(t) for t in texts]
