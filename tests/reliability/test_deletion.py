"""Complete deletion: nothing of a deleted user comes back, and no file keeps their text.

Qdrant keeps deleted payloads in its WAL and in segment pages until they are rotated or
vacuumed; the embedded store's purge (run by ``delete_all``) rebuilds the shard so a canary
written for the user is absent from every file under the store path.
"""

from __future__ import annotations

import json
from pathlib import Path

from prism_memory import FakeEmbedder, Memory
from prism_memory.stores.edge import recover_rebuild

CANARY = "CANARYq7zx"


def files_containing(root: Path, needle: str) -> list[str]:
    raw = needle.encode()
    return [
        str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and raw in p.read_bytes()
    ]


def _fill(m: Memory) -> None:
    m.add_many([f"bob note {i} about the garden" for i in range(40)], user_id="bob")
    m.add(f"{CANARY} alice's locker code is 4711", user_id="alice")
    m.add_many([f"alice note {i}" for i in range(10)], user_id="alice")
    m.remember(
        [{"role": "user", "content": f"I love hiking {CANARY}", "id": "m1"}],
        user_id="alice",
        session_id="s1",
    )
    m.task("move", user_id="alice", goal=f"move flat {CANARY}")


def test_delete_all_leaves_nothing_on_any_read_path(tmp_path: Path) -> None:
    with Memory(path=tmp_path / "s", embedder=FakeEmbedder()) as m:
        _fill(m)
        before = m.recall("locker code hiking", user_id="alice", session_id="s1")
        assert CANARY in before.text  # the cache now holds alice's context
        n = m.delete_all(user_id="alice")
        assert n >= 12
        assert m.count(user_id="alice") == 0
        assert m.search("locker code", user_id="alice") == []
        assert list(m.list(user_id="alice")) == []
        assert m.buffer(user_id="alice", session_id="s1") == []
        after = m.recall("locker code hiking", user_id="alice", session_id="s1")
        assert CANARY not in after.text and after.records == []
        assert m.export_jsonl(tmp_path / "a.jsonl", user_id="alice") == 0
        assert CANARY not in json.dumps(m.task("move", user_id="alice").model_dump(mode="json"))
        # only alice went
        assert m.count(user_id="bob") == 40


def test_canary_is_absent_from_every_file_after_the_purge(tmp_path: Path) -> None:
    root = tmp_path / "s"
    with Memory(path=root, embedder=FakeEmbedder()) as m:
        _fill(m)
        m.flush()
        assert files_containing(root, CANARY), "the canary should be on disk before deletion"
        m.delete_all(user_id="alice")
        assert files_containing(root, CANARY) == []
        assert m.count(user_id="bob") == 40
        assert len(m.search("garden", user_id="bob", limit=50)) == 40
    assert files_containing(root, CANARY) == []
    with Memory(path=root, embedder=FakeEmbedder()) as m:  # the rebuilt store reopens intact
        assert m.count(user_id="bob") == 40
        m.add("bob is back", user_id="bob")
        assert m.count(user_id="bob") == 41


def test_interrupted_purge_is_finished_or_undone_on_open(tmp_path: Path) -> None:
    root = tmp_path / "s"
    with Memory(path=root, embedder=FakeEmbedder()) as m:
        m.add_many([f"fact {i}" for i in range(5)], user_id="bob")
    shard = root / "shard"
    # crash after the old shard moved away and before the new one moved in
    (root / "shard.rebuilt").write_text("complete")
    shard.rename(root / "shard.rebuild")
    recover_rebuild(shard)
    assert shard.exists() and not (root / "shard.rebuild").exists()
    # crash while the new shard was being written: it is dropped, the old one stays
    (root / "shard.rebuild").mkdir()
    (root / "shard.rebuild" / "partial").write_text("x")
    with Memory(path=root, embedder=FakeEmbedder()) as m:
        assert m.count(user_id="bob") == 5
    assert not (root / "shard.rebuild").exists()


def test_delete_by_source_rolls_back_one_source_and_what_was_derived(tmp_path: Path) -> None:
    with Memory(path=tmp_path / "s", embedder=FakeEmbedder()) as m:
        keep = m.add("I prefer aisle seats", user_id="alice")
        page = "https://evil.example/page"
        bad = m.add_many(
            [
                {"text": "Refunds go to IBAN X", "source_ids": [page]},
                {"text": "The support line is 555-0100", "source_ids": [page]},
            ],
            user_id="alice",
            source="web",
        )
        derived = m.add(
            "Summary: refunds go to IBAN X",
            user_id="alice",
            source="derived",
            source_ids=[bad[0].id],
        )
        other_user = m.add("Refunds go to IBAN X", user_id="bob", source="web", source_ids=[page])
        assert m.delete_by_source(page, user_id="alice") == 3
        remaining = {r.id for r in m.list(user_id="alice", include_history=True)}
        assert remaining == {keep.id}
        assert derived.id not in remaining
        assert m.get(other_user.id, user_id="bob").text == "Refunds go to IBAN X"
        # by source kind: every tool record of the scope
        m.add("tool said hi", user_id="alice", source="tool")
        assert m.delete_by_source("tool", user_id="alice") == 1
        assert m.count(user_id="alice") == 1


def test_delete_by_source_removes_records_of_a_remembered_message(tmp_path: Path) -> None:
    with Memory(path=tmp_path / "s", embedder=FakeEmbedder()) as m:
        m.remember(
            [{"role": "user", "content": "My budget is 500 euros a night", "id": "msg-9"}],
            user_id="alice",
            session_id="s1",
        )
        m.end_session(user_id="alice", session_id="s1")
        assert m.count(user_id="alice") >= 1
        n = m.delete_by_source("msg-9", user_id="alice")
        assert n >= 1
        leftovers = [
            r
            for r in m.list(user_id="alice", include_history=True, limit=1000)
            if "msg-9" in r.provenance.source_ids
        ]
        assert leftovers == []
