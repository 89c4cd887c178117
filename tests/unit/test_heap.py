"""Memory handed back to the OS: a directory's shared file mappings, the C heap."""

from __future__ import annotations

import mmap
import os
from pathlib import Path

from prism_memory.heap import release_mapped_files, shared_file_mappings, trim_heap

_SIZE = 4 * 1024 * 1024


def _resident_kb(start: int) -> int:
    """Rss of the mapping starting at ``start`` (from /proc/self/smaps)."""
    inside = False
    with open("/proc/self/smaps", encoding="utf-8") as fh:
        for line in fh:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                inside = int(head.split("-")[0], 16) == start
            elif inside and head == "Rss:":
                return int(line.split()[1])
    raise AssertionError("mapping not found")


def _mapped(path: Path, flags: int) -> mmap.mmap:
    path.write_bytes(b"\0" * _SIZE)
    with open(path, "r+b") as fh:
        return mmap.mmap(fh.fileno(), _SIZE, flags=flags)


def test_release_unmaps_resident_pages_and_keeps_every_write(tmp_path: Path) -> None:
    shared = _mapped(tmp_path / "page.dat", mmap.MAP_SHARED)
    private = _mapped(tmp_path / "private.dat", mmap.MAP_PRIVATE)
    try:
        shared[:] = b"x" * _SIZE  # every page resident and dirty
        private[:4] = b"mine"
        ((start, end),) = shared_file_mappings(str(tmp_path), containing="page.dat")
        assert end - start == _SIZE and _resident_kb(start) >= _SIZE // 1024
        assert release_mapped_files(str(tmp_path)) == _SIZE  # the private mapping is skipped
        assert _resident_kb(start) == 0
        assert shared[-1:] == b"x" and private[:4] == b"mine"  # data back from the page cache
        shared[:4] = b"late"  # a write after the release lands in the file
        shared.flush()
    finally:
        shared.close()
        private.close()
    data = (tmp_path / "page.dat").read_bytes()
    assert data[:4] == b"late" and data[4:] == b"x" * (_SIZE - 4)
    trim_heap()


def test_release_of_an_unmapped_or_missing_directory_does_nothing(tmp_path: Path) -> None:
    assert release_mapped_files(str(tmp_path)) == 0
    assert release_mapped_files(os.path.join(str(tmp_path), "missing")) == 0
