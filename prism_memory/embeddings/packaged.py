"""The packaged offline MiniLM, run directly on ONNX Runtime with a small memory footprint.

Design:
- What fastembed does for this model (WordPiece tokenizer, BERT graph, mean pooling over the
  attention mask, L2 normalisation) is done here in ~100 lines, so the default embedder does
  not import fastembed (~40 MB of modules) nor build fastembed's session only to replace it.
  Vectors are the same as fastembed's (a test compares them).
- One ONNX session per process, shared by every embedder that uses the packaged model
  (:func:`shared_runner`): two ``Memory`` objects in one agent process hold one copy of it.
- The session keeps ONNX Runtime's graph optimisations: they fold the int8 weights into float
  ones once (a query ~10x faster than dequantising on every call), except the word-embedding
  table, which a batch only looks rows up in: the graph is rewritten at load to gather the int8
  rows and dequantise only those (:mod:`.onnx_graph`; the same bits, 33 MB less heap).
  The memory arena is off: with it, one batch of long turns kept ~350 MB that no later call
  needed; without it, buffers go back to the allocator after each call. Session construction's
  garbage (the int8 graph and its copies) is handed back to the OS right after
  (``malloc_trim``, glibc only), and so are the activations of a call with a long text
  (measured: one 256-piece text left +47 MB behind without it; the trim then costs ~15 ms,
  once per call, and ~0.1 ms after short texts, where it is skipped). Thread spinning is off: spinning workers steal the CPU from the
  rest of the read path on small machines.
- Tokenisation cuts a text to 256 word pieces (the model's ``max_seq_length``; the graph
  accepts 512 at twice the cost for a half it never learned) and pads each batch to its own
  longest text, so batches planned on token counts (``plan_batches``) pad as little as possible.
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
from collections.abc import Sequence
from typing import Any

from ..heap import trim_heap
from .onnx_graph import gather_before_dequantise

__all__ = [
    "MAX_MODEL_TOKENS",
    "TRIM_AFTER_TOKENS",
    "PackagedMiniLM",
    "shared_runner",
]

log = logging.getLogger("prism_memory")

#: word pieces the packaged model embeds (special tokens included): its sentence-transformers
#: ``max_seq_length``, what it was trained on
MAX_MODEL_TOKENS = 256
_shared_lock = threading.Lock()
_shared: dict[tuple[str, str, int | None], PackagedMiniLM] = {}


#: after a call embedding a text this long (word pieces), hand the freed activations back
TRIM_AFTER_TOKENS = 128


class PackagedMiniLM:
    """Tokenizer + ONNX session of the packaged all-MiniLM-L6-v2 (384-d, L2-normalised).

    Setup:
        >>> from prism_memory.embeddings.fastembed import _offline_paths
        >>> runner = shared_runner(*_offline_paths(), threads=None)  # the process's one session

    Use:
        >>> ids = [ids for ids, _cut in runner.tokenize(["window seat", "budget is 500"])]
        >>> vecs = runner.embed_ids(ids)
        >>> len(vecs[0])
        384
    """

    def __init__(self, tokenizer_dir: str, onnx_path: str, threads: int | None = None) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(os.path.join(tokenizer_dir, "tokenizer.json"))
        tokenizer.enable_truncation(max_length=MAX_MODEL_TOKENS)
        tokenizer.no_padding()
        self._tokenizer = tokenizer
        so = ort.SessionOptions()
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        so.enable_cpu_mem_arena = False
        if threads is not None:
            so.intra_op_num_threads = threads
            so.inter_op_num_threads = threads
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
        so.add_session_config_entry("session.inter_op.allow_spinning", "0")
        self.session = _session(ort, onnx_path, so)
        self._inputs = {i.name for i in self.session.get_inputs()}
        self._lock = threading.Lock()
        trim_heap()

    def tokenize(self, texts: Sequence[str]) -> list[tuple[list[int], bool]]:
        """Word-piece ids of each text (with ``[CLS]``/``[SEP]``, cut to 256) and whether it
        was cut."""
        encodings = self._tokenizer.encode_batch(list(texts))
        return [(enc.ids, bool(enc.overflowing)) for enc in encodings]

    def embed_ids(self, batch: Sequence[Sequence[int]]) -> list[list[float]]:
        """Embed one batch of tokenised texts (padded here to the batch's longest)."""
        import numpy as np

        width = max(len(ids) for ids in batch)
        input_ids = np.zeros((len(batch), width), dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.int64)
        for row, ids in enumerate(batch):
            input_ids[row, : len(ids)] = ids
            mask[row, : len(ids)] = 1
        feed: dict[str, Any] = {"input_ids": input_ids}
        if "attention_mask" in self._inputs:
            feed["attention_mask"] = mask
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(input_ids)
        with self._lock:  # one session, one call at a time: its threads already use the cores
            hidden = self.session.run(None, feed)[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        out: list[list[float]] = (pooled / np.clip(norms, 1e-12, None)).tolist()
        return out


def _session(ort: Any, onnx_path: str, options: Any) -> Any:
    """The ONNX Runtime session of the model at ``onnx_path``, its embedding table kept in int8
    (:func:`~.onnx_graph.gather_before_dequantise`). The rewritten model is handed over as a
    file (an in-memory one on Linux, else a temporary file removed right after): given bytes,
    ``InferenceSession`` keeps them for the session's lifetime (23 MB)."""
    with open(onnx_path, "rb") as fh:
        model = gather_before_dequantise(fh.read())
    fd, path = _model_file()
    try:
        with os.fdopen(os.dup(fd), "wb") as out:
            out.write(model)
        del model
        return ort.InferenceSession(path, providers=["CPUExecutionProvider"], sess_options=options)
    finally:
        os.close(fd)
        if not path.startswith("/proc/"):
            os.unlink(path)


def _model_file() -> tuple[int, str]:
    """A file for the rewritten model and the path ONNX Runtime opens it by: an in-memory file
    named through ``/proc`` on Linux; a temporary file where memfd is absent, refused (a
    seccomp sandbox, ``vm.memfd_noexec=2``) or ``/proc`` is not mounted."""
    if hasattr(os, "memfd_create"):
        try:
            fd = os.memfd_create("prism-minilm.onnx")
        except OSError:
            pass
        else:
            path = f"/proc/self/fd/{fd}"
            if os.path.exists(path):
                return fd, path
            os.close(fd)
    return tempfile.mkstemp(suffix=".onnx")


def shared_runner(tokenizer_dir: str, onnx_path: str, threads: int | None) -> PackagedMiniLM:
    """The process's one :class:`PackagedMiniLM` for these files and thread count."""
    key = (tokenizer_dir, onnx_path, threads)
    with _shared_lock:
        runner = _shared.get(key)
        if runner is None:
            runner = _shared[key] = PackagedMiniLM(tokenizer_dir, onnx_path, threads)
        return runner
