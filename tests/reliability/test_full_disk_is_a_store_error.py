"""A full disk is a StoreError with figures, never a SIGBUS: free space is checked before the
engine allocates, and writes refused on a full disk keep everything already acknowledged.

Engine-level tests run on the real embedded engine (Qdrant Edge) with the hashing fake embedder.
Tests that mount a filesystem are ``slow`` (``make test-reliability``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from memories import open_memory

from prism_memory.config import PrismConfig, SafetyConfig


def files_containing(root: Path, needle: str) -> list[str]:
    raw = needle.encode()
    return [
        str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and raw in p.read_bytes()
    ]


PURGE_CANARY = "PURGECANARYk4"


# -- a full disk is a StoreError with figures, never a SIGBUS --------------------------
def _free(monkeypatch: pytest.MonkeyPatch, mb: float) -> None:
    import shutil
    from collections import namedtuple

    from prism_memory.stores import edge

    usage = namedtuple("usage", "total used free")
    real = shutil.disk_usage

    def fake(path: Any) -> Any:
        total = real(path).total
        return usage(total, total - int(mb * 2**20), int(mb * 2**20))

    monkeypatch.setattr(edge.shutil, "disk_usage", fake)


def test_disk_space_is_checked_before_the_engine_allocates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from prism_memory import StoreError
    from prism_memory.stores.edge import PURGE_JOURNAL

    root = tmp_path / "s"
    _free(monkeypatch, 300)
    with pytest.raises(
        StoreError, match=r"creating a new memory store needs 388\.0 MB .* 300\.0 MB"
    ):
        open_memory(root)
    monkeypatch.undo()
    m = open_memory(root)
    kept = m.add("bob likes the garden", user_id="bob")
    m.add(f"{PURGE_CANARY} alice's code", user_id="alice")
    _free(monkeypatch, 256.1)
    m.add("a small note still fits", user_id="bob")
    with pytest.raises(StoreError, match=r"writing 1 memories needs 256\.2 MB .* 256\.1 MB free"):
        m.add("big " * 20_000, user_id="bob")  # 80 kB: needs the margin + ~0.3 MB
    _free(monkeypatch, 200)
    with pytest.raises(StoreError, match="min_free_mb = 256 MB"):
        m.add("refused", user_id="bob")
    with pytest.raises(StoreError):
        m.remember("refused too", user_id="bob", session_id="s")
    assert m.count(user_id="bob") == 2  # nothing of a refused call was written
    _free(monkeypatch, 100)
    with pytest.raises(StoreError, match="purging deleted memories"):
        m.delete_all(user_id="alice")  # the delete is done, the rebuild refused
    assert m.count(user_id="alice") == 0
    assert (root / PURGE_JOURNAL).exists()
    m.close()
    _free(monkeypatch, 50)
    with pytest.raises(StoreError, match=r"opening the memory store needs 64\.0 MB"):
        open_memory(root)
    monkeypatch.undo()
    with open_memory(root) as m:  # enough space again: the owed purge is done on open
        assert m.get(kept.id, user_id="bob").text == "bob likes the garden"
        assert not (root / PURGE_JOURNAL).exists()
        assert files_containing(root, PURGE_CANARY) == []
    _free(monkeypatch, 1)
    off = PrismConfig(safety=SafetyConfig(screen="off"))
    off.store.min_free_mb = 0
    with open_memory(root, config=off) as m:  # checks off
        m.add("written without a check", user_id="bob")


_CHILD_FILL = """
import sys
from prism_memory import FakeEmbedder, Memory, StoreError
from prism_memory.config import PrismConfig, SafetyConfig

def text(batch, i):
    return f"note {batch}-{i} " + "the garden needs water and the fence paint " * 450

m = Memory(path=sys.argv[1], embedder=FakeEmbedder(dim=64),
           config=PrismConfig(safety=SafetyConfig(screen="off")))
for batch in range(5000):
    try:
        m.add_many([text(batch, i) for i in range(20)], user_id="u")
    except StoreError as exc:
        print("refused", str(exc).replace("\\n", " "), flush=True)
        break
    print("ack", batch, flush=True)
try:
    m.remember([text("turn", i) for i in range(20)], user_id="u", session_id="s")
except StoreError:
    print("remember refused", flush=True)
m.close()
"""

_CHILD_CHECK = """
import sys
from prism_memory import FakeEmbedder, Memory, StoreError
from prism_memory.config import PrismConfig, SafetyConfig

def text(batch, i):
    return f"note {batch}-{i} " + "the garden needs water and the fence paint " * 450

cfg = PrismConfig(safety=SafetyConfig(screen="off"))
m = Memory(path=sys.argv[1], embedder=FakeEmbedder(dim=64), config=cfg)
have = set()
cursor = None
while True:
    page = m.list(user_id="u", limit=1000, cursor=cursor)
    have.update(r.text for r in page)
    cursor = page.next_cursor
    if cursor is None:
        break
want = {text(b, i) for b in range(int(sys.argv[2])) for i in range(20)}
print("missing", len(want - have), "stored", len(have), flush=True)
m.close()
try:
    Memory(path=sys.argv[3], embedder=FakeEmbedder(dim=64), config=cfg)
except StoreError as exc:
    print("new store refused", str(exc).replace("\\n", " "), flush=True)
"""


@pytest.mark.slow
def test_a_full_disk_refuses_writes_and_keeps_what_was_acknowledged(tmp_path: Path) -> None:
    """A tmpfs just larger than a new store and the default margin: writes go on until the
    margin is reached, then StoreError (the engine used to die with SIGBUS); everything
    acknowledged is there after reopening; a second store does not fit and is refused."""
    import os
    import subprocess
    import sys

    if os.geteuid() != 0:
        pytest.skip("mounting a size-limited tmpfs needs root")
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=420m", "tmpfs", str(mnt)], check=True)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    try:
        fill = subprocess.run(
            [sys.executable, "-c", _CHILD_FILL, str(mnt / "s")],
            capture_output=True,
            text=True,
            timeout=900,
            env=env,
        )
        assert fill.returncode == 0, (fill.returncode, fill.stderr[-2000:])
        lines = fill.stdout.splitlines()
        acked = sum(1 for line in lines if line.startswith("ack "))
        refused = [line for line in lines if line.startswith("refused ")]
        assert acked > 0 and len(refused) == 1, lines[-3:]
        assert "MB free on the filesystem" in refused[0] and "min_free_mb" in refused[0]
        assert "remember refused" in lines
        check = subprocess.run(
            [sys.executable, "-c", _CHILD_CHECK, str(mnt / "s"), str(acked), str(mnt / "t")],
            capture_output=True,
            text=True,
            timeout=900,
            env=env,
        )
        assert check.returncode == 0, (check.returncode, check.stderr[-2000:])
        out = check.stdout.splitlines()
        assert out[0] == f"missing 0 stored {acked * 20}"
        assert out[1].startswith("new store refused creating a new memory store needs 388.0 MB")
    finally:
        subprocess.run(["umount", str(mnt)], check=False)
        if os.path.ismount(mnt):
            subprocess.run(["umount", "-l", str(mnt)], check=False)
    assert not os.path.ismount(mnt)
