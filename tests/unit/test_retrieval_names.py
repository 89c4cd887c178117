"""The names a scope knows are read by facets once, then kept current by write events."""

from __future__ import annotations

from pathlib import Path

from prism_memory import FakeEmbedder, Memory
from prism_memory.records import Scope
from prism_memory.retrieval.names import ScopeNames


def _fresh(m: Memory, scope: Scope) -> tuple[dict[str, int], dict[str, int], int]:
    """What a new reader (facets) finds: the reference the maintained counts must equal."""
    counts = ScopeNames(m._engine.store, m._engine.visible_filter).counts(scope)
    return dict(counts.speakers), dict(counts.entities), counts.total


def test_an_agent_loop_reads_the_facets_once_and_the_counts_stay_exact(tmp_path: Path) -> None:
    with Memory(path=tmp_path / "s", embedder=FakeEmbedder()) as m:
        names = m._recall.names
        m.remember("I booked a flight to Tokyo", user_id="u", session_id="s1")
        m.recall("where am I flying?", user_id="u")
        assert names.facet_reads == 1
        for i, (who, text) in enumerate(
            [("Priya", "Priya moved to Lisbon"), ("Tom", "Tom adopted a dog named Rex")]
        ):
            msg = {"role": "user", "name": who, "content": text}
            m.remember([msg], user_id="u", session_id=f"s{i + 2}")
            ctx = m.recall(f"what did {who} do?", user_id="u")
            assert ctx is not None
        # two writes and two recalls later: no new facet read, and the counts are what a
        # fresh read of the store finds
        assert names.facet_reads == 1
        scope = Scope(user_id="u")
        held = names.counts(scope)
        assert (dict(held.speakers), dict(held.entities), held.total) == _fresh(m, scope)
        assert "priya" in m._recall._known_names(scope)[1]  # the new speaker is known at once


def test_any_change_other_than_an_insert_drops_the_counts(tmp_path: Path) -> None:
    with Memory(path=tmp_path / "s", embedder=FakeEmbedder()) as m:
        names = m._recall.names
        rec = m.add("Tom adopted a dog named Rex", user_id="u", entities=["Rex"])
        m.recall("dog?", user_id="u")
        m.update(rec.id, user_id="u", text="Tom adopted a cat")
        m.recall("dog?", user_id="u")
        assert names.facet_reads == 2  # an edit is not an insert: read again
        m.delete(rec.id, user_id="u")
        m.recall("dog?", user_id="u")
        assert names.facet_reads == 3
        scope = Scope(user_id="u")
        held = names.counts(scope)
        assert (dict(held.speakers), dict(held.entities), held.total) == _fresh(m, scope)
        # another tenant's writes never touch this scope's counts
        m.add("Ana lives in Porto", user_id="other", entities=["Porto"])
        assert "porto" not in names.counts(scope).entities
