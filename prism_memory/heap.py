"""Give memory back to the operating system: the C heap's free pages, a store's mapped pages.

Design: a memory library lives inside someone else's agent process, so what it no longer needs
it hands back. Two Linux/glibc tools, each a no-op where it does not exist:

- :func:`trim_heap`: glibc ``malloc_trim(0)``, after work that frees many small blocks at once
  (building the embedding session, a tokenizer's tables, a batch of long texts).
- :func:`release_mapped_files`: ``madvise(MADV_DONTNEED)`` on the *shared* file mappings under
  a directory (an embedded store's memory-mapped index pages, which the engine reads in whole
  when it opens a store). The pages stay in the kernel's page cache, dirty ones included (a
  shared mapping's writes live in the file's pages, not in the mapping), and come back on the
  next touch; only the ones a call needs are mapped again. Private mappings are never touched
  (dropping them would lose their writes).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from typing import Any

__all__ = ["release_mapped_files", "trim_heap"]

_MADV_DONTNEED = 4
_libc: Any = None


def _c_library() -> Any:
    """The C library (``False`` when there is none to ask), loaded once."""
    global _libc
    if _libc is None:
        _libc = False
        try:
            name = ctypes.util.find_library("c")
            if name is not None:
                _libc = ctypes.CDLL(name, use_errno=True)
        except OSError:  # pragma: no cover - no C library to ask
            pass
    return _libc


def trim_heap() -> None:
    """Give freed heap pages back to the OS (glibc ``malloc_trim``); a no-op elsewhere.

    >>> trim_heap()
    """
    libc = _c_library()
    trim = getattr(libc, "malloc_trim", None) if libc else None
    if trim is not None:
        trim(0)


def shared_file_mappings(directory: str, containing: str = "") -> list[tuple[int, int]]:
    """``(start, end)`` of this process's shared file mappings of files under ``directory``
    whose path contains ``containing`` (from ``/proc/self/maps``; empty where there is no
    such file).

    >>> shared_file_mappings("/nonexistent")
    []
    """
    root = os.path.realpath(directory).rstrip(os.sep) + os.sep
    spans: list[tuple[int, int]] = []
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                parts = line.split(maxsplit=5)
                if len(parts) < 6 or parts[1][3] != "s" or not parts[5].startswith(root):
                    continue
                if containing not in parts[5][len(root) :]:
                    continue
                start, end = parts[0].split("-")
                spans.append((int(start, 16), int(end, 16)))
    except OSError:
        return []
    return spans


def release_mapped_files(directory: str, containing: str = "") -> int:
    """Unmap the resident pages of the shared file mappings under ``directory`` (whose path
    below it contains ``containing``) from this process (``madvise(MADV_DONTNEED)``; the data
    stays in the page cache and in the files).
    Returns the bytes of address space advised; 0 where this is not Linux.

    >>> release_mapped_files("/nonexistent")
    0
    """
    libc = _c_library()
    madvise = getattr(libc, "madvise", None) if libc else None
    if madvise is None:
        return 0
    madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    done = 0
    for start, end in shared_file_mappings(directory, containing):
        if madvise(start, end - start, _MADV_DONTNEED) == 0:
            done += end - start
    return done
