"""``start_warm_up``: what a first recall would wait for, loaded when the store opens.

Design: in a fresh process the first recall loads the embedding model (~0.6 s for the packaged
MiniLM: its ONNX session) and the token encoding (~0.4 s: tiktoken's ranks) before it can
answer; an agent opens its memory at start-up and recalls seconds later, when a user asks.
So the pipeline starts one thread as it is built that loads both: the encoding
(``tokens.encoding``, built once under its lock) and each embedder that offers a
``warm_up()`` method (``FastEmbedEmbedder``: its session; no model call, so a store opened
once the model is loaded costs nothing and competes with nothing). An embedder without
one is not called: a remote API must not see a request the user did not make. A recall that
arrives first waits on the same locks for what is still loading, never loads twice. A failure
is left to the first real call, which raises it with its own message.

The thread must never be cut off mid-load: a native library torn down under it aborts the
process (a script that opens a store and exits at once), and a fork while it holds a lock
leaves the child that lock held forever. So it is not a daemon (the interpreter waits for it
at exit), ``Memory.close`` stops it (:func:`stop_warm_up`: what it has not begun is skipped,
so a short script waits at most for the step in progress), and a fork first joins every
warm-up still running (``os.register_at_fork``), so a child never inherits a half-taken lock.
"""

from __future__ import annotations

import logging
import os
import threading
import weakref
from collections.abc import Sequence

from ..embeddings import Embedder
from ..tokens import encoding

__all__ = ["join_warm_ups", "start_warm_up", "stop_warm_up"]

log = logging.getLogger("prism_memory")

# each running warm-up thread and the event that tells it to skip what it has not begun
_RUNNING: weakref.WeakKeyDictionary[threading.Thread, threading.Event] = weakref.WeakKeyDictionary()
_RUNNING_LOCK = threading.Lock()


def start_warm_up(embedders: Sequence[Embedder | None]) -> threading.Thread:
    """Start (and return) the thread loading the encoding and ``embedders``' models."""
    stop = threading.Event()
    thread = threading.Thread(
        target=_warm_up, args=(list(embedders), stop), name="prism-warm-up", daemon=False
    )
    with _RUNNING_LOCK:
        _RUNNING[thread] = stop
    thread.start()
    return thread


def stop_warm_up(thread: threading.Thread) -> None:
    """Tell ``thread`` to skip the loads it has not begun and wait for the one in progress.

    >>> from prism_memory import FakeEmbedder
    >>> t = start_warm_up([FakeEmbedder(dim=8)])
    >>> stop_warm_up(t); t.is_alive()
    False
    """
    with _RUNNING_LOCK:
        stop = _RUNNING.get(thread)
    if stop is not None:
        stop.set()
    if thread is not threading.current_thread():
        thread.join()


def join_warm_ups() -> None:
    """Wait for every warm-up thread of this process still loading (before a fork).

    >>> join_warm_ups()  # nothing running: returns at once
    """
    with _RUNNING_LOCK:
        threads = [t for t in _RUNNING if t.is_alive() and t is not threading.current_thread()]
    for t in threads:
        t.join()


if hasattr(os, "register_at_fork"):  # POSIX: a child must not inherit a lock held mid-load
    os.register_at_fork(before=join_warm_ups)


def _warm_up(embedders: list[Embedder | None], stop: threading.Event) -> None:
    try:
        if not stop.is_set():
            encoding()
        for emb in embedders:
            warm = getattr(emb, "warm_up", None)
            if callable(warm) and not stop.is_set():
                warm()
    except Exception:  # the first real call raises it, with the fix in its message
        log.debug("warm-up failed; the first recall loads what it needs", exc_info=True)
