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
        m.remember("I booked a flight to Tokyo", user_id="u", session_id="s1")
    with Memory(path=tmp_path / "s", embedder=FakeEmbedder()) as m:  # reopened: facets once
        names = m._recall.names
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
        assert names.facet_reads == 1  # an edit is not an insert: read again
        m.delete(rec.id, user_id="u")
        m.recall("dog?", user_id="u")
        assert names.facet_reads == 2
        scope = Scope(user_id="u")
        held = names.counts(scope)
        assert (dict(held.speakers), dict(held.entities), held.total) == _fresh(m, scope)
        # another tenant's writes never touch this scope's counts
        m.add("Ana lives in Porto", user_id="other", entities=["Porto"])
        assert "porto" not in names.counts(scope).entities


def test_a_scope_begun_in_this_process_is_never_read_by_facets(tmp_path: Path) -> None:
    """A new user's first recall pays no facet read, and knows the same names a read finds."""
    with Memory(path=tmp_path / "s", embedder=FakeEmbedder()) as m:
        names = m._recall.names
        m.add("Ana lives in Porto", user_id="old", entities=["Porto"])
        # one call that writes many turns and the facts drawn from them (several events)
        m.remember(
            [
                {"role": "user", "name": "Sam", "content": f"I visited Porto on day {i}."}
                for i in range(6)
            ],
            user_id="u",
            session_id="s-many",
        )
        for i, (who, text) in enumerate(
            [("Priya", "Priya moved to Lisbon"), ("Tom", "Tom met Rex")]
        ):
            m.remember(
                [{"role": "user", "name": who, "content": text}], user_id="u", session_id=f"s{i}"
            )
        m.add("Rex is a beagle", user_id="u", entities=["Rex"], session_id="s9")
        ctx = m.recall("what did Priya do?", user_id="u")
        assert ctx is not None and names.facet_reads == 0
        scope = Scope(user_id="u")
        held = names.counts(scope)
        assert (dict(held.speakers), dict(held.entities), held.total) == _fresh(m, scope)
        assert "priya" in m._recall._known_names(scope)[1]
        # a scope that already held records before this process wrote is read, once
        m2 = Memory(path=tmp_path / "s", embedder=FakeEmbedder())
        try:
            m2.add("Ana moved to Braga", user_id="old", entities=["Braga"])
            m2.recall("where is Ana?", user_id="old")
            assert m2._recall.names.facet_reads == 1
            old = Scope(user_id="old")
            got = m2._recall.names.counts(old)
            assert (dict(got.speakers), dict(got.entities), got.total) == _fresh(m2, old)
        finally:
            m2.close()


def test_moving_turns_between_layers_keeps_the_counts(tmp_path: Path) -> None:
    """Ending a session moves its turns to the episodic layer (an update of fields the counts
    do not read): the next recall still needs no facet read, and the counts stay exact."""
    with Memory(path=tmp_path / "s", embedder=FakeEmbedder()) as m:
        names = m._recall.names
        m.remember(
            [{"role": "user", "name": "Priya", "content": "Priya moved to Lisbon in May"}],
            user_id="u",
            session_id="s1",
        )
        m.end_session(user_id="u", session_id="s1")
        m.recall("where did Priya move?", user_id="u")
        assert names.facet_reads == 0
        scope = Scope(user_id="u")
        held = names.counts(scope)
        assert (dict(held.speakers), dict(held.entities), held.total) == _fresh(m, scope)


def test_a_write_announced_in_parts_is_counted_once_all_parts_arrive(tmp_path: Path) -> None:
    """One write's records announced in several events (turns, then the facts drawn from
    them): the counts start when the last part arrives, and equal what facets read."""
    with Memory(path=tmp_path / "s", embedder=FakeEmbedder()) as m:
        records = [
            m.add(f"Sam visited Porto on day {i}", user_id="u", entities=["Porto"], session_id="s")
            for i in range(6)
        ]
        names = ScopeNames(m._engine.store, m._engine.visible_filter)
        scope = Scope(user_id="u", session_id="s")
        names.on_write(scope, records[:4])  # the store already holds all six
        names.on_write(scope, records[4:])
        held = names.counts(Scope(user_id="u"))
        assert names.facet_reads == 0
        assert (dict(held.speakers), dict(held.entities), held.total) == _fresh(
            m, Scope(user_id="u")
        )
