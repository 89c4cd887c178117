"""One embedded path, one store per process: ``Memory(path=p)`` twice shares the open store,
its write events and scope locks, reference-counted; a second process still gets
``StoreLockedError`` (``test_core_bad_input.py::test_a_path_open_in_another_process``).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from llama_index.core.chat_engine import SimpleChatEngine
from llama_index.core.llms.mock import MockLLM

from llamaindex_prism import PrismMemory
from prism_memory import ConfigError, FakeEmbedder, Memory, PrismConfig, PrismError
from prism_memory._shared import open_refs

_OPENER = textwrap.dedent(
    """
    import sys
    from prism_memory import FakeEmbedder, Memory
    with Memory(path=sys.argv[1], embedder=FakeEmbedder(dim=16)) as m:
        print(m.count(user_id="foo"))
    """
)


def _open_in_another_process(path: Path) -> int:
    """How many of ``foo``'s records another process finds at ``path`` (fails if it cannot open)."""
    done = subprocess.run(
        [sys.executable, "-c", _OPENER, str(path)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return int(done.stdout.strip())


def test_two_memories_on_one_path_share_the_store(tmp_path: Path) -> None:
    path = tmp_path / "s"
    m1 = Memory(path=path, embedder=FakeEmbedder(dim=16))
    m2 = Memory(
        path=str(path / ".." / "s"), embedder=FakeEmbedder(dim=16)
    )  # same path, spelt otherwise
    try:
        assert m1.store is m2.store and open_refs(path) == 2
        rec = m1.add("I prefer window seats", user_id="foo")
        assert m2.get(rec.id, user_id="foo").text == "I prefer window seats"
        m2.add("my budget is 500 a night", user_id="foo")
        assert m1.count(user_id="foo") == 2
    finally:
        m1.close()
        m2.close()
    assert open_refs(path) == 0


def test_a_write_through_one_memory_invalidates_the_other_recall_cache(tmp_path: Path) -> None:
    path = tmp_path / "s"
    with (
        Memory(path=path, embedder=FakeEmbedder(dim=16)) as m1,
        Memory(path=path, embedder=FakeEmbedder(dim=16)) as m2,
    ):
        assert m2.config.retrieval.cache_size > 0  # the recall cache is on
        m2.add("the dentist appointment is on Friday", user_id="foo")
        before = m2.recall("what about the window seats?", user_id="foo")
        again = m2.recall("what about the window seats?", user_id="foo")
        assert "window" not in before.text and again.text == before.text  # cached
        m1.add("I prefer window seats on trains", user_id="foo")
        after = m2.recall("what about the window seats?", user_id="foo")
        assert "I prefer window seats on trains" in after.text
        # deletions travel too
        m1.delete_all(user_id="foo")
        assert "window" not in m2.recall("what about the window seats?", user_id="foo").text


def test_close_is_reference_counted(tmp_path: Path) -> None:
    path = tmp_path / "s"
    m1 = Memory(path=path, embedder=FakeEmbedder(dim=16))
    m2 = Memory(path=path, embedder=FakeEmbedder(dim=16))
    m1.add("first", user_id="foo")
    m1.close()
    m1.close()  # twice: still one reference dropped
    assert open_refs(path) == 1
    with pytest.raises(PrismError, match="closed"):
        m1.count(user_id="foo")
    m2.add("second", user_id="foo")  # the other keeps working on the open store
    assert m2.count(user_id="foo") == 2
    assert m2.recall("first", user_id="foo").records
    m2.close()
    assert open_refs(path) == 0
    assert _open_in_another_process(path) == 2  # the last close released the path


def test_another_process_is_locked_out_until_the_last_close(tmp_path: Path) -> None:
    path = tmp_path / "s"
    m1 = Memory(path=path, embedder=FakeEmbedder(dim=16))
    m2 = Memory(path=path, embedder=FakeEmbedder(dim=16))
    m1.add("kept", user_id="foo")
    m1.close()
    done = subprocess.run(
        [sys.executable, "-c", _OPENER, str(path)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode != 0 and "StoreLockedError" in done.stderr
    m2.close()
    assert _open_in_another_process(path) == 1


@pytest.mark.parametrize(
    ("second", "named"),
    [
        ({"embedder": FakeEmbedder(dim=32)}, "32 dimensions"),
        ({"embedder": FakeEmbedder(dim=16, name="other-model")}, "'other-model'"),
        (
            {
                "embedder": FakeEmbedder(dim=16),
                "config": PrismConfig.model_validate({"store": {"hnsw_m": 32}}),
            },
            "hnsw_m=32",
        ),
    ],
    ids=["dimension", "embedder-name", "store-config"],
)
def test_an_incompatible_second_open_says_what_is_open(
    tmp_path: Path, second: dict[str, object], named: str
) -> None:
    path = tmp_path / "s"
    with Memory(path=path, embedder=FakeEmbedder(dim=16)) as m1:
        m1.add("first", user_id="foo")
        with pytest.raises(ConfigError) as info:
            Memory(path=path, **second)  # type: ignore[arg-type]
        msg = str(info.value)
        assert "already open in this process" in msg and "'fake-hash' (16 dimensions)" in msg
        assert named in msg and "same embedder and store settings" in msg
        assert open_refs(path) == 1  # the refused open holds nothing
        assert m1.count(user_id="foo") == 1
    assert open_refs(path) == 0


def test_a_failed_open_releases_its_reference(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s"
    with Memory(path=path, embedder=FakeEmbedder(dim=16)) as m1:

        def broken(*args: object, **kwargs: object) -> None:
            raise RuntimeError("a part failed to set up")

        with monkeypatch.context() as patch:
            patch.setattr("prism_memory.memory.RecallPipeline.__init__", broken)
            with pytest.raises(RuntimeError, match="failed to set up"):
                Memory(path=path, embedder=FakeEmbedder(dim=16))
        assert open_refs(path) == 1
        m1.add("still open", user_id="foo")
    assert open_refs(path) == 0
    assert _open_in_another_process(path) == 1


def test_threads_open_and_close_one_path_concurrently(tmp_path: Path) -> None:
    path = tmp_path / "s"
    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def worker(i: int) -> None:
        try:
            start.wait()
            for j in range(6):
                with Memory(path=path, embedder=FakeEmbedder(dim=16)) as m:
                    m.add(f"thread {i} round {j}", user_id="foo")
                    assert m.count(user_id="foo") >= 1
        except BaseException as exc:  # collected, asserted below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not errors, errors
    assert open_refs(path) == 0
    assert _open_in_another_process(path) == 48


def test_llamaindex_from_defaults_twice_on_one_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PRISM_PATH", str(tmp_path / "li"))
    first = PrismMemory.from_defaults(user_id="alice")
    second = PrismMemory.from_defaults(user_id="alice")  # raised StoreLockedError before
    engines = [
        SimpleChatEngine.from_defaults(llm=MockLLM(), memory_cls=PrismMemory) for _ in range(2)
    ]
    held = [first.memory, second.memory, *(e._memory.memory for e in engines)]
    try:
        assert len({id(m.store) for m in held}) == 1 and open_refs(tmp_path / "li") == 4
        assert first.memory.embedder is second.memory.embedder  # the model is loaded once
        first.memory.add("I am vegetarian", user_id="alice", kind="preference")
        assert "vegetarian" in second.memory.recall("what do I eat?", user_id="alice").text
        for engine in engines:
            engine.chat("hello")
    finally:
        for m in held:
            m.close()
    assert open_refs(tmp_path / "li") == 0
