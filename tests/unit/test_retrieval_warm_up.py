"""A store that opens loads what its first recall would wait for, on a background thread."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from prism_memory import FakeEmbedder, Memory, PrismConfig
from prism_memory.config import RetrievalConfig
from prism_memory.retrieval.warm import start_warm_up, stop_warm_up


class _Warmable(FakeEmbedder):
    """A fake with a model to load: ``warm_up`` says it was called, and from which thread."""

    def __init__(self) -> None:
        super().__init__(dim=32)
        self.warmed = threading.Event()
        self.thread = ""
        self.embedded: list[str] = []

    def warm_up(self) -> None:
        self.thread = threading.current_thread().name
        self.warmed.set()

    def embed_query(self, text: str) -> list[float]:
        self.embedded.append(text)
        return super().embed_query(text)


def test_opening_a_store_warms_the_embedder_in_the_background(tmp_path: Path) -> None:
    emb = _Warmable()
    with Memory(path=tmp_path / "s", embedder=emb) as m:
        assert emb.warmed.wait(30)  # set by the warm-up thread, not by this one
        assert emb.thread == "prism-warm-up" and emb.embedded == []
        m.add("My cat is called Luna", user_id="u")
        assert "Luna" in m.recall("What is my cat called?", user_id="u").text


def test_no_warm_up_when_turned_off_or_when_the_embedder_offers_none(tmp_path: Path) -> None:
    emb = _Warmable()
    off = PrismConfig(retrieval=RetrievalConfig(warm_up=False))
    with Memory(path=tmp_path / "off", embedder=emb, config=off) as m:
        assert m._recall.warm_up is None
    assert not emb.warmed.is_set()
    plain = _Counting()
    with Memory(path=tmp_path / "plain", embedder=plain) as m:
        thread = m._recall.warm_up
        assert thread is not None
        thread.join(30)
        assert not thread.is_alive()
    assert plain.calls == 0  # an embedder without warm_up(), a remote API say, is not called


class _Counting(FakeEmbedder):
    def __init__(self) -> None:
        super().__init__(dim=32)
        self.calls = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.calls += 1
        return super().embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        self.calls += 1
        return super().embed_query(text)


_EXIT_AT_ONCE = """
import sys, tempfile
from prism_memory import Memory
with Memory(path=tempfile.mkdtemp(dir=sys.argv[1])) as m:
    print(m.count(user_id="u"))
"""

_FORK_AT_ONCE = """
import os, signal, sys
from prism_memory import Memory
m = Memory(location=":memory:")
pid = os.fork()
if pid == 0:
    signal.alarm(50)  # a child that inherited a lock held mid-load would hang here
    from prism_memory.tokens import count_tokens
    os._exit(0 if count_tokens("hello world") == 2 else 3)
_, status = os.waitpid(pid, 0)
print("child", os.waitstatus_to_exitcode(status))
m.close()
"""


def _run(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=55
    )


def test_a_script_that_opens_a_store_and_exits_at_once_exits_cleanly(tmp_path: Path) -> None:
    # the warm-up was a daemon thread inside ONNX Runtime's session construction when the
    # interpreter tore down: "terminate called without an active exception", exit code 134
    for _ in range(3):
        done = _run(_EXIT_AT_ONCE, str(tmp_path))
        assert (done.returncode, done.stdout.strip()) == (0, "0"), done.stderr[-2000:]
        assert "terminate called" not in done.stderr


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX")
def test_a_child_forked_right_after_open_does_not_inherit_a_held_lock() -> None:
    done = _run(_FORK_AT_ONCE)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "child 0"


class _StoppedWhileLoading(FakeEmbedder):
    """A model whose load is under way when the store closes (the close lands mid-load)."""

    def warm_up(self) -> None:
        stop_warm_up(threading.current_thread())


def test_a_closed_store_skips_the_loads_its_warm_up_had_not_begun() -> None:
    # a short script should not wait for a model it never used to finish loading
    later = _Warmable()
    thread = start_warm_up([_StoppedWhileLoading(dim=8), later])
    thread.join(30)
    assert not thread.is_alive() and not later.warmed.is_set()
