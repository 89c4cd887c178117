"""``start_warm_up``: what a first recall would wait for, loaded when the store opens.

Design: in a fresh process the first recall loads the embedding model (~0.6 s for the packaged
MiniLM: its ONNX session) and the token encoding (~0.4 s: tiktoken's ranks) before it can
answer; an agent opens its memory at start-up and recalls seconds later, when a user asks.
So the pipeline starts one daemon thread as it is built that loads both: the encoding
(``tokens.encoding``, built once under its lock) and each embedder that offers a
``warm_up()`` method (``FastEmbedEmbedder``: its session; no model call, so a store opened
once the model is loaded costs nothing and competes with nothing). An embedder without
one is not called: a remote API must not see a request the user did not make. A recall that
arrives first waits on the same locks for what is still loading, never loads twice. A failure
is left to the first real call, which raises it with its own message.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence

from ..embeddings import Embedder
from ..tokens import encoding

__all__ = ["start_warm_up"]

log = logging.getLogger("prism_memory")


def start_warm_up(embedders: Sequence[Embedder | None]) -> threading.Thread:
    """Start (and return) the daemon thread loading the encoding and ``embedders``' models."""
    thread = threading.Thread(
        target=_warm_up, args=(list(embedders),), name="prism-warm-up", daemon=True
    )
    thread.start()
    return thread


def _warm_up(embedders: list[Embedder | None]) -> None:
    try:
        encoding()
        for emb in embedders:
            warm = getattr(emb, "warm_up", None)
            if callable(warm):
                warm()
    except Exception:  # the first real call raises it, with the fix in its message
        log.debug("warm-up failed; the first recall loads what it needs", exc_info=True)
