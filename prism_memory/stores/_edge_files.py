"""The files of an embedded store beside its shard: layout record, purge journal, rebuild
swap, and the disk-space margin.

Design:
- ``<path>/prism-store.json`` records the store's layout (vector size, embedder, tokenizer
  version, CJK vector): read on open (:func:`read_layout`, which refuses an embedder of another
  size) and written atomically once the shard is complete (:func:`write_layout`).
- A purge is journalled durably before its deletes (:func:`write_journal`) and the journal is
  removed once the shard is rebuilt (:func:`remove_journal`); a store opened with it still
  there completes the purge.
- A rebuild swaps directories by renames around a ``.rebuilt`` marker; :func:`recover_rebuild`
  finishes or undoes a swap a crash interrupted (idempotent, run on open).
- Every engine allocation is preceded by :func:`check_free_space`: the engine maps its files
  into memory and a page it cannot allocate on a full disk kills the process with SIGBUS.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import EmbeddingDimensionError, StoreError

__all__ = [
    "MB",
    "META",
    "NEW_STORE_MB",
    "OPEN_MB",
    "PURGE_JOURNAL",
    "StoreLayout",
    "check_free_space",
    "copy_sparse",
    "read_layout",
    "rebuild_paths",
    "recover_rebuild",
    "remove_journal",
    "write_journal",
    "write_layout",
]

META = "prism-store.json"
MB = 1 << 20
#: measured: a new, empty store fills 131 MB of a tmpfs (its sparse files get their pages
#: filled); a disk that keeps holes allocates less, but the files grow into that size
NEW_STORE_MB = 132
#: opening replays the WAL and preallocates a 32 MB WAL segment (measured: 32 MB on tmpfs)
OPEN_MB = 64
#: written (durably) before the deletes of a purging delete, removed once the shard is rebuilt:
#: a store opened with it still there rebuilds its shard first (the purge is completed)
PURGE_JOURNAL = "purge-pending"


@dataclass(frozen=True)
class StoreLayout:
    """What a store's layout record says beyond its vector size."""

    sparse_version: int
    cjk_dim: int
    cjk_embedder: str


def read_layout(meta_path: Path, store: Path, dim: int, embedder_name: str) -> StoreLayout:
    """The layout the store at ``store`` was written with (tokenizer version, CJK vector);
    :class:`EmbeddingDimensionError` for an embedder of another vector size.

    Example::

        read_layout(Path(".prism/prism-store.json"), Path(".prism"), 384, "minilm")
    """
    try:
        meta = json.loads(meta_path.read_text())
        if not isinstance(meta, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError) as exc:
        raise StoreError(
            f"{meta_path} is unreadable ({exc}); it records the store's vector size. "
            f'Restore it, or write {{"dim": <embedder dim>}} into it to reopen the store'
        ) from None
    # the CJK vector is part of the store's layout: what the store has decides
    cjk: dict[str, Any] = meta["cjk"] if isinstance(meta.get("cjk"), dict) else {}
    layout = StoreLayout(
        # a store written before CJK bigrams keeps the word tokenizer (sparse.py)
        sparse_version=int(meta.get("sparse", 1)),
        cjk_dim=int(cjk.get("dim", 0)),
        cjk_embedder=str(cjk.get("embedder", "")),
    )
    if int(meta.get("dim", dim)) != dim:
        raise EmbeddingDimensionError(
            f"the store at {store} holds {meta['dim']}-dimensional vectors "
            f"(embedder {meta.get('embedder') or 'unknown'!r}) but the embedder makes "
            f"{dim}-dimensional ones ({embedder_name!r}); use the original embedder or a "
            "new path (or export_jsonl + import_jsonl to re-embed)"
        )
    return layout


def write_layout(meta_path: Path, dim: int, embedder_name: str, layout: StoreLayout) -> None:
    """Record the store's layout (atomically: written, then renamed into place)."""
    tmp = meta_path.with_suffix(".tmp")
    cjk = {"cjk": {"dim": layout.cjk_dim, "embedder": layout.cjk_embedder}}
    tmp.write_text(
        json.dumps(
            {
                "dim": dim,
                "embedder": embedder_name,
                "format": 1,
                "sparse": layout.sparse_version,
                **(cjk if layout.cjk_dim else {}),
            }
        )
    )
    os.replace(tmp, meta_path)


def check_free_space(min_free_mb: int, mb: float, what: str, target: Path) -> None:
    """Raise :class:`StoreError` unless ``mb`` MB are free on the filesystem of ``target``
    (checks are off with ``min_free_mb=0``)."""
    if min_free_mb <= 0:
        return
    try:
        free = shutil.disk_usage(target).free
    except OSError:  # cannot tell: let the engine try
        return
    if free >= mb * MB:
        return
    raise StoreError(
        f"{what} needs {mb:.1f} MB free on the filesystem of {target}, which has "
        f"{free / MB:.1f} MB free; nothing was written. Free disk space or move the store "
        "to a larger filesystem. The embedded engine maps its files into memory and would "
        "crash (SIGBUS) on a full disk, so PRISM keeps a margin of "
        f"PrismConfig.store.min_free_mb = {min_free_mb} MB (a write needs the margin "
        "plus about three times its size)"
    )


def write_journal(store: Path) -> bool:
    """Journal a purge of the store at ``store`` durably (the file and its directory are
    fsynced); whether this call wrote it (``False``: one was pending already)."""
    journal = store / PURGE_JOURNAL
    if journal.exists():
        return False
    tmp = journal.with_name(journal.name + ".tmp")
    with open(tmp, "w") as fh:
        fh.write("a purge started and has not finished; the next open completes it\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, journal)
    _fsync_dir(store)
    return True


def remove_journal(store: Path) -> None:
    """Remove the purge journal of the store at ``store`` (durably), if there is one."""
    journal = store / PURGE_JOURNAL
    if journal.exists():
        journal.unlink()
        _fsync_dir(store)


def copy_sparse(src: str, dst: str) -> str:
    """Copy a file keeping its holes: the engine preallocates its WAL and mmap pages as sparse
    files (32 MB each, nearly all holes); a plain copy would write every zero to disk."""
    size = os.path.getsize(src)
    with open(src, "rb") as fin, open(dst, "wb") as fout:
        offset = 0
        while offset < size:
            try:
                start = os.lseek(fin.fileno(), offset, os.SEEK_DATA)
                end = os.lseek(fin.fileno(), start, os.SEEK_HOLE)
            except OSError:  # ENXIO: only a hole is left (or the filesystem has no SEEK_DATA)
                break
            fin.seek(start)
            fout.seek(start)
            remaining = end - start
            while remaining > 0:
                chunk = fin.read(min(remaining, 1 << 20))
                if not chunk:
                    break
                fout.write(chunk)
                remaining -= len(chunk)
            offset = end
        fout.truncate(size)
    shutil.copystat(src, dst)
    return dst


def _fsync_dir(path: Path) -> None:
    """Make a rename or unlink in ``path`` durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def rebuild_paths(shard_path: Path) -> tuple[Path, Path, Path]:
    """The new shard, the marker that it is complete, and where the old shard moves."""
    return (
        shard_path.with_name(shard_path.name + ".rebuild"),
        shard_path.with_name(shard_path.name + ".rebuilt"),
        shard_path.with_name(shard_path.name + ".old"),
    )


def recover_rebuild(shard_path: Path) -> None:
    """Finish or undo a purge rebuild that a crash interrupted (idempotent, run on open).

    - new shard incomplete (no ``.rebuilt`` marker): drop it, the old shard is intact;
    - marker present and the old shard already moved away: move the new shard in;
    - a leftover ``.old`` shard next to a live one: remove it.
    """
    new_path, done, old_path = rebuild_paths(shard_path)
    if done.exists() and new_path.exists():
        if shard_path.exists():
            shutil.rmtree(new_path, ignore_errors=True)
        else:
            os.replace(new_path, shard_path)
        done.unlink(missing_ok=True)
    elif new_path.exists():
        shutil.rmtree(new_path, ignore_errors=True)
    done.unlink(missing_ok=True)
    if old_path.exists():
        if shard_path.exists():
            shutil.rmtree(old_path, ignore_errors=True)
        else:
            os.replace(old_path, shard_path)
