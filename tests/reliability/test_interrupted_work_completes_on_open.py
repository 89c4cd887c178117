"""Interrupted work is completed when the store is opened again: a turn whose extraction never
ran is extracted, and a purge interrupted by an error or a kill at any point is finished without
losing writes the engine had not flushed.

Engine-level tests run on the real embedded engine (Qdrant Edge) with the hashing fake embedder.
Tests that kill processes are ``slow`` (``make test-reliability``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memories import open_memory

from prism_memory import Memory


def files_containing(root: Path, needle: str) -> list[str]:
    raw = needle.encode()
    return [
        str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and raw in p.read_bytes()
    ]


# -- a turn whose extraction never ran is extracted when the store is opened again ----
_TEA = json.dumps(
    {"items": [{"schema": "Preference", "fields": {"subject": "oolong tea", "polarity": "like"}}]}
)


def preferences(m: Memory, **scope: str) -> list[str]:
    return sorted(r.text for r in m.list(**scope, kind="preference"))


def test_pending_extraction_is_resumed_on_open(tmp_path: Path) -> None:
    """In process: the background job is lost (as in a kill) and the store closed; a Memory
    opened later extracts the turn, with its LLM or, without one, with the rules."""
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    for reopen_llm, expected in (
        (FakeListChatModel(responses=[_TEA]), ["User likes oolong tea"]),
        (None, ["User likes oolong tea"]),  # rule records read as short statements (#18)
    ):
        root = tmp_path / f"s-{reopen_llm is None}"
        m = open_memory(root, llm=FakeListChatModel(responses=[_TEA]), background=True)
        assert m._worker is not None
        m._worker.submit = lambda job: None  # type: ignore[method-assign]  # the job is lost
        m.remember("I love oolong tea", user_id="u", session_id="s")
        assert preferences(m, user_id="u") == []
        m.close()
        with open_memory(root, llm=reopen_llm, background=True) as again:
            again.flush()
            assert preferences(again, user_id="u") == expected
            assert not [r for r in again.session_turns(user_id="u", session_id="s") if r.extraction]
        with open_memory(root) as third:  # done once: nothing is pending any more
            assert third.resume_extraction() == 0


def test_turns_are_marked_until_their_extraction_ran(tmp_path: Path) -> None:
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    with open_memory(tmp_path / "s", llm=FakeListChatModel(responses=[_TEA])) as m:
        m.remember(
            [
                {"role": "user", "content": "I love oolong tea"},
                {"role": "assistant", "content": "ok"},
            ],
            user_id="u",
            session_id="s",
        )
        assert [r.extraction for r in m.session_turns(user_id="u", session_id="s")] == [None] * 2
        assert preferences(m, user_id="u") == ["User likes oolong tea"]
    with open_memory(tmp_path / "r") as m:  # rules only: nothing waits, nothing is marked
        m.remember("I love oolong tea", user_id="u", session_id="s")
        assert m.session_turns(user_id="u", session_id="s")[0].extraction is None


_CHILD_REMEMBER = """
import sys
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from prism_memory import FakeEmbedder, Memory
from prism_memory.config import PrismConfig, SafetyConfig

llm = FakeListChatModel(responses=[sys.argv[2]], sleep=120)  # far slower than the kill
m = Memory(path=sys.argv[1], embedder=FakeEmbedder(dim=64), llm=llm, background=True,
           config=PrismConfig(safety=SafetyConfig(screen="off")))
m.remember("I love oolong tea", user_id="u", session_id="s")
print("remembered", flush=True)
sys.stdin.read()  # wait for the kill
"""


@pytest.mark.slow
def test_killed_after_remember_returns_the_facts_appear_after_reopen(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys

    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    root = tmp_path / "store"
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD_REMEMBER, str(root), _TEA],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])},
    )
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "remembered"
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    with open_memory(root, llm=FakeListChatModel(responses=[_TEA]), background=True) as m:
        assert [r.text for r in m.session_turns(user_id="u", session_id="s")] == [
            "I love oolong tea"
        ]
        m.flush()
        assert preferences(m, user_id="u") == ["User likes oolong tea"]


# -- a purge interrupted by a crash is completed when the store is opened again --------
PURGE_CANARY = "PURGECANARYk4"


def _fill_for_purge(m: Memory) -> None:
    m.add_many([f"bob note {i} about the garden" for i in range(40)], user_id="bob")
    m.add(f"{PURGE_CANARY} alice's locker code is 4711", user_id="alice")
    m.remember(f"I love hiking {PURGE_CANARY}", user_id="alice", session_id="s1")
    m.flush()


def _check_scrubbed(root: Path) -> None:
    """After an interrupted purge: bob intact, alice gone and in no file, through later writes
    and another reopen."""
    from prism_memory.stores.edge import PURGE_JOURNAL

    with open_memory(root) as m:
        assert m.count(user_id="bob") == 40
        assert m.count(user_id="alice") == 0
        assert files_containing(root, PURGE_CANARY) == []
        assert not (root / PURGE_JOURNAL).exists()
        m.add_many([f"bob later {i}" for i in range(5)], user_id="bob")
        m.flush()
    assert files_containing(root, PURGE_CANARY) == []
    with open_memory(root) as m:
        assert m.count(user_id="bob") == 45
        assert m.delete_all(user_id="alice") == 0


def test_purge_interrupted_by_an_error_is_completed_on_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from prism_memory.stores.edge import EdgeStore

    root = tmp_path / "s"
    m = open_memory(root)
    _fill_for_purge(m)
    assert files_containing(root, PURGE_CANARY)

    def fail(self: EdgeStore) -> None:
        raise OSError("the process stopped here")

    monkeypatch.setattr(EdgeStore, "_rebuild", fail)
    with pytest.raises(OSError):
        m.delete_all(user_id="alice")
    m.close()
    monkeypatch.undo()
    with open_memory(root) as m:
        assert m.count(user_id="bob") == 40 and m.count(user_id="alice") == 0
        assert files_containing(root, PURGE_CANARY) == []


def test_rebuild_keeps_writes_the_engine_has_not_flushed(tmp_path: Path) -> None:
    """Every shard a process builds is a copy of one template (same segment ids): a rebuild
    that closed the old shard after the swap let it write into the new shard's files, which
    lost records and, after a kill, left a store that no longer opened."""
    root = tmp_path / "s"
    with open_memory(root) as m:
        for round_ in range(3):
            m.add_many([f"note {round_}-{i} about the garden" for i in range(20)], user_id="bob")
            with m.store._lock:  # what a purge completed on open does: no flush before
                m.store._rebuild()
        m.add_many([f"late note {i}" for i in range(20)], user_id="bob")
        assert m.count(user_id="bob") == 80
    for _ in range(2):
        with open_memory(root) as m:
            assert m.count(user_id="bob") == 80


_CHILD_UNFLUSHED = """
import os, signal, sys
from prism_memory import FakeEmbedder, Memory
from prism_memory.config import PrismConfig, SafetyConfig

m = Memory(path=sys.argv[1], embedder=FakeEmbedder(dim=64),
           config=PrismConfig(safety=SafetyConfig(screen="off")))
for k in range(int(sys.argv[2])):
    m.add_many([f"bob note {sys.argv[3]}-{k}-{i} in the garden" for i in range(20)], user_id="bob")
    m.store.begin_purge()  # a purge journalled, its rebuild never reached
    print(k, flush=True)
os.kill(os.getpid(), signal.SIGKILL)  # acknowledged writes in the WAL only
"""


@pytest.mark.parametrize("rounds", [1, 3])
def test_purge_owed_on_open_keeps_unflushed_writes(tmp_path: Path, rounds: int) -> None:
    """A process killed with writes in the WAL only and a purge journalled: opening completes
    the purge, keeps every acknowledged write, and the store opens again and again."""
    import os
    import subprocess
    import sys

    from prism_memory.stores.edge import PURGE_JOURNAL

    root = tmp_path / "s"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    for r in range(rounds):
        child = subprocess.run(
            [sys.executable, "-c", _CHILD_UNFLUSHED, str(root), "3", str(r)],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )
        assert child.stdout.split() == ["0", "1", "2"], child.stderr[-2000:]
        assert (root / PURGE_JOURNAL).exists()
        for _ in range(2):
            with open_memory(root) as m:
                assert m.count(user_id="bob") == 60 * (r + 1)
                assert not (root / PURGE_JOURNAL).exists()


_CHILD_PURGE = """
import os, signal, sys
from pathlib import Path
from prism_memory import FakeEmbedder, Memory
from prism_memory.config import PrismConfig, SafetyConfig
from prism_memory.stores import edge

root, point = Path(sys.argv[1]), sys.argv[2]

def die():
    os.kill(os.getpid(), signal.SIGKILL)

real_replace, real_new_shard = os.replace, edge.EdgeStore._new_shard

def replace(src, dst):
    name = Path(src).name
    if point == "marker-written" and name == "shard":
        die()  # the new shard is complete and marked, the old one not moved yet
    if point == "old-moved" and name == "shard.rebuild":
        die()  # the old shard moved away, the new one not moved in
    real_replace(src, dst)
    if point == "swapped" and name == "shard.rebuild":
        die()  # swapped; the old shard not removed yet

def new_shard(self, path):
    shard = real_new_shard(self, path)
    if point == "new-shard-empty" and Path(path).name == "shard.rebuild":
        die()  # the new shard exists, nothing copied into it
    return shard

def at(name):
    real = getattr(edge.EdgeStore, name, None)
    if real is None:
        return
    def wrapper(self, *args, **kwargs):
        if point == name:
            die()
        return real(self, *args, **kwargs)
    setattr(edge.EdgeStore, name, wrapper)

edge.os.replace = replace
edge.EdgeStore._new_shard = new_shard
for name in ("delete_by_filter", "_rebuild", "_end_purge"):
    at(name)
m = Memory(path=root, embedder=FakeEmbedder(dim=64),
           config=PrismConfig(safety=SafetyConfig(screen="off")))
m.add_many([f"bob note {i} about the garden" for i in range(40)], user_id="bob")
m.add("CANARY alice's locker code is 4711", user_id="alice")
m.remember("I love hiking CANARY", user_id="alice", session_id="s1")
m.flush()
print("filled", flush=True)
m.delete_all(user_id="alice")
print("purged", flush=True)
""".replace("CANARY", PURGE_CANARY)


@pytest.mark.slow
@pytest.mark.parametrize(
    "point",
    [
        "delete_by_filter",  # journalled, nothing deleted yet
        "_rebuild",  # deleted, the rebuild not started
        "new-shard-empty",
        "marker-written",
        "old-moved",
        "swapped",
        "_end_purge",  # rebuilt, the journal not removed yet
    ],
)
def test_purge_killed_at_any_point_is_completed_on_open(tmp_path: Path, point: str) -> None:
    import os
    import signal
    import subprocess
    import sys

    root = tmp_path / "s"
    child = subprocess.run(
        [sys.executable, "-c", _CHILD_PURGE, str(root), point],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])},
    )
    assert child.returncode == -signal.SIGKILL, child.stderr[-2000:]
    assert child.stdout.splitlines() == ["filled"]
    if point == "delete_by_filter":  # the delete never happened: nothing was acknowledged
        with open_memory(root) as m:
            assert m.count(user_id="bob") == 40
            assert m.count(user_id="alice") == 3  # the note, the turn, the preference
            m.delete_all(user_id="alice")
            assert files_containing(root, PURGE_CANARY) == []
        return
    _check_scrubbed(root)
