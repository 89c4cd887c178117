"""One process per embedded path: a second process gets StoreLockedError with the fix."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from prism_memory import FakeEmbedder, Memory

_CHILD = """
import sys
from prism_memory import FakeEmbedder, Memory, StoreLockedError
try:
    Memory(path=sys.argv[1], embedder=FakeEmbedder())
except StoreLockedError as exc:
    print("LOCKED", exc)
    sys.exit(3)
print("OPENED")
"""


def _second_process(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _CHILD, str(path)], capture_output=True, text=True, timeout=120
    )


def test_second_process_on_same_path_gets_store_locked_error(tmp_path: Path) -> None:
    path = tmp_path / "store"
    with Memory(path=path, embedder=FakeEmbedder()) as m:
        m.add("held open by the first process", user_id="alice")
        proc = _second_process(path)
        assert proc.returncode == 3, proc.stdout + proc.stderr
        message = proc.stdout
        assert "already open in another process" in message
        assert "Memory(url=" in message  # the fix: a Qdrant server for several processes
        assert "one process per path" in message.lower()
    # once the first process closes, the path opens elsewhere and the data is there
    proc = _second_process(path)
    assert proc.returncode == 0 and "OPENED" in proc.stdout, proc.stderr
