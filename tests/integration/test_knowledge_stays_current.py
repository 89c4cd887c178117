"""Knowledge that stays current (issue #27), through the public API, the embedded engine and
the real offline model: changes said in other words supersede, mere mentions do not; every
change is a version (history, restore, as_of); conflicts and stale summaries are marked."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest

from prism_memory import FastEmbedEmbedder, Memory, NotFoundError, ValidationError

MAR = datetime(2026, 3, 1, 10, tzinfo=timezone.utc)
APR = datetime(2026, 4, 1, 10, tzinfo=timezone.utc)


@pytest.fixture
def memory(tmp_path: Path, real_embedder: FastEmbedEmbedder) -> Iterator[Memory]:
    m = Memory(path=tmp_path / "store", embedder=real_embedder)
    yield m
    m.close()


def _say(m: Memory, user: str, text: str, when: datetime, session: str) -> None:
    m.remember(
        [{"role": "user", "content": text, "name": "Fatima"}],
        user_id=user,
        session_id=session,
        event_time=when,
    )
    m.end_session(user_id=user, session_id=session)


def test_a_change_in_other_words_supersedes_and_keeps_its_history(memory: Memory) -> None:
    _say(memory, "f", "My phone is an iPhone 12.", MAR, "s1")
    _say(memory, "f", "Switched to a Pixel 8 over the weekend.", APR, "s2")
    facts = memory.list(user_id="f", kind="fact")
    assert [f.text for f in facts] == ["Fatima's phone: Switched to a Pixel 8 over the weekend"]
    versions = memory.history(facts[0].id, user_id="f")
    assert [(v.event, v.current) for v in versions] == [("added", False), ("superseded", True)]
    assert "iPhone 12" in (versions[1].previous_text or "") and versions[1].time == APR
    # what was valid then, and what holds now
    then = memory.search("which phone?", user_id="f", as_of=datetime(2026, 3, 15))
    assert any("iPhone" in h.record.text for h in then)
    assert not any("Pixel" in h.record.text for h in then)
    now = memory.recall("which phone does Fatima have?", user_id="f")
    assert "Pixel 8" in now.text
    # the session digest of the old value says it changed
    digest = [r.text for r in memory.list(user_id="f", kind="summary") if "iPhone" in r.text]
    assert digest and all("[since changed:" in t for t in digest)


def test_a_mere_mention_supersedes_nothing(memory: Memory) -> None:
    _say(memory, "m", "I work at Google.", MAR, "s1")
    _say(memory, "m", "I had lunch with a friend who works at Meta.", APR, "s2")
    _say(memory, "m", "My friend just moved to Berlin.", APR, "s3")
    texts = [r.text for r in memory.list(user_id="m", kind="fact")]
    assert any("Google" in t for t in texts)
    assert memory.count(user_id="m", layer="semantic", include_history=True) == memory.count(
        user_id="m", layer="semantic", include_history=False
    )


def test_update_keeps_versions_restore_and_delete(memory: Memory) -> None:
    r = memory.add("Hotel budget: 500 a night", user_id="u")
    memory.update(r.id, user_id="u", text="Hotel budget: 800 a night", reason="got a raise")
    restored = memory.restore(r.id, 1, user_id="u", reason="raise cancelled")
    assert restored.text == "Hotel budget: 500 a night" and restored.id == r.id
    events = memory.history(r.id, user_id="u")
    assert [(e.event, e.text, e.reason) for e in events] == [
        ("added", "Hotel budget: 500 a night", "added"),
        ("updated", "Hotel budget: 800 a night", "got a raise"),
        ("restored", "Hotel budget: 500 a night", "raise cancelled"),
    ]
    assert memory.search("hotel budget", user_id="u")[0].record.text == restored.text
    with pytest.raises(ValidationError, match="between 1 and 3"):
        memory.restore(r.id, 9, user_id="u")
    assert memory.history(r.id, user_id="u") == events  # a refused restore changed nothing
    with pytest.raises(NotFoundError):
        memory.history(r.id, user_id="someone-else")
    assert memory.delete(r.id, user_id="u")
    assert memory.count(user_id="u") == 0  # its versions went with it
    with pytest.raises(NotFoundError):
        memory.history(r.id, user_id="u")


async def test_async_twins_and_the_deprecated_transcript(memory: Memory) -> None:
    r = await memory.aadd("Likes green tea", user_id="a", kind="preference")
    await memory.aupdate(r.id, user_id="a", text="Likes oolong tea")
    assert [v.event for v in await memory.ahistory(r.id, user_id="a")] == ["added", "updated"]
    memory.remember("hello there", user_id="a", session_id="s")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = memory.history(user_id="a", session_id="s")
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)
    assert [t.text for t in old] == [
        t.text for t in memory.session_turns(user_id="a", session_id="s")
    ]


def test_a_new_reply_language_replaces_the_old_one(memory: Memory) -> None:
    _say(memory, "r", "Please reply to me in Spanish.", MAR, "s1")
    _say(memory, "r", "From now on respond only in French.", APR, "s2")
    prefs = [r.text for r in memory.list(user_id="r", kind="preference")]
    assert len(prefs) == 1 and "French" in prefs[0]


def test_a_memory_tool_write_reconciles_the_same_way(memory: Memory) -> None:
    memory.remember_fact("User prefers replies in Spanish", user_id="t")
    memory.remember_fact("From now on respond only in French", user_id="t")
    current = [r.text for r in memory.list(user_id="t", layer="semantic")]
    assert current == ["From now on respond only in French"]
    old = memory.list(user_id="t", layer="semantic", include_history=True)
    assert any(r.text == "User prefers replies in Spanish" and r.valid_to for r in old)


def test_conflicting_preferences_are_marked_newer_first(memory: Memory) -> None:
    _say(memory, "x", "I prefer replies in German.", MAR, "s1")
    _say(memory, "x", "I like answers in French.", APR, "s2")
    ctx = memory.recall("which language should replies be in?", user_id="x")
    lines = [line for line in ctx.text.splitlines() if "conflicts with" in line]
    assert len(lines) == 2
    assert "French" in lines[0] and "newer" in lines[0]
    assert "German" in lines[1]
