"""A Chinese conversation through remember + end_session + recall, on the real embedded
engine and the real offline model: kinship attributes under the right person, a move that
supersedes the old city, a session summary in Chinese, and names in a question found."""

from __future__ import annotations

from collections.abc import Callable

from prism_memory import Memory


def _session(
    memory: Memory, user: str, session: str, when: str, turns: list[tuple[str, str]]
) -> None:
    messages = [
        {"role": role, "content": text, **({"name": "李华"} if role == "user" else {})}
        for role, text in turns
    ]
    memory.remember(messages, user_id=user, session_id=session, event_time=when)
    memory.end_session(user_id=user, session_id=session)


def test_chinese_conversation_end_to_end(memory: Memory, uid: Callable[[str], str]) -> None:
    user = uid("lihua")
    _session(
        memory,
        user,
        "s1",
        "2026-03-02T10:00:00+08:00",
        [
            ("user", "李明杰是我的下属，其年龄是32岁。"),
            ("assistant", "好的，我记住了。"),
            ("user", "我住在上海，平时上班坐地铁。"),
            ("assistant", "明白了，你住在上海，每天坐地铁通勤。"),
        ],
    )
    _session(memory, user, "s2", "2026-06-02T10:00:00+08:00", [("user", "我上个月搬到了杭州。")])

    current = list(memory.list(user_id=user, layer="semantic", limit=100))
    texts = [r.text for r in current]
    # the subordinate's age is on his card, never the user's
    assert "李明杰（下属）：32岁" in texts
    assert not any(r.fields.get("attribute") == "age" for r in current)
    # the move replaced the city: one current home city, the old one kept as history
    homes = [r for r in current if r.fields.get("attribute") == "home city"]
    assert [r.text for r in homes] == ["李华住在杭州"]
    history = memory.list(user_id=user, layer="semantic", include_history=True, limit=100)
    assert any(r.text == "李华住在上海" and r.valid_to is not None for r in history)
    # the session digest is Chinese, with no English glue
    summaries = [r.text for r in current if r.kind.value == "summary"]
    assert summaries and all("said" not in s and "The " not in s for s in summaries)
    assert any(s.startswith("李明杰是李华的下属") for s in summaries)

    # a question naming the person reaches his card through the entity route (the context
    # may show the card or the turn it comes from, whichever packs better)
    card = next(r for r in current if r.text == "李明杰（下属）：32岁")
    ctx = memory.recall("李明杰和王志宏谁更年轻？", user_id=user, budget_tokens=500)
    assert "李明杰" in ctx.trace.intent.get("entities", [])
    found = ctx.trace.candidate(card.id)
    assert found is not None and "entity" in found.routes
    assert "32岁" in ctx.text
    # where the user lives now: the new city is shown, the old one marked as changed
    ctx = memory.recall("我现在住在哪里？", user_id=user, budget_tokens=500)
    assert "杭州" in ctx.text
    for line in ctx.text.splitlines():
        if "上海" in line and "住" in line and "助手" not in line and "assistant" not in line:
            assert "changed" in line, line
