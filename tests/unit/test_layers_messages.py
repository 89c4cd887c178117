"""Message shapes accepted by remember(), and the bad inputs it rejects before storing anything."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from prism_memory import Memory, ValidationError
from prism_memory._messages import parse_messages, parse_time


def test_string_is_one_user_turn() -> None:
    (turn,) = parse_messages("I love seafood")
    assert (turn.text, turn.role, turn.id) == ("I love seafood", "user", None)


def test_dicts_keep_role_name_id_and_timestamp() -> None:
    turns = parse_messages(
        [
            {
                "role": "user",
                "content": "hi",
                "name": "Ann",
                "id": "m1",
                "timestamp": "2024-05-08T10:00:00",
            },
            {"role": "assistant", "content": [{"type": "text", "text": "hello"}]},
        ]
    )
    assert turns[0].name == "Ann" and turns[0].id == "m1"
    assert turns[0].timestamp == datetime(2024, 5, 8, 10, tzinfo=timezone.utc)
    assert turns[1].role == "assistant" and turns[1].text == "hello"


def test_langchain_messages_map_to_roles_and_keep_ids() -> None:
    turns = parse_messages(
        [
            SystemMessage("be brief"),
            HumanMessage("book a hotel", id="h1"),
            AIMessage("done", id="a1"),
            ToolMessage("ok", tool_call_id="t1"),
        ]
    )
    assert [t.role for t in turns] == ["system", "user", "assistant", "tool"]
    assert [t.id for t in turns[1:3]] == ["h1", "a1"]


@pytest.mark.parametrize(
    "bad, words",
    [
        ("", "empty"),
        ("   ", "empty"),
        ([], "empty list"),
        (42, "must be a string"),
        ([{"role": "user"}], "needs 'content'"),
        ([{"role": "wizard", "content": "x"}], "unknown role"),
        ([{"role": "user", "content": "x", "colour": "red"}], "unknown keys"),
        ([{"role": "user", "content": 5}], "content must be"),
        ([{"content": "a", "id": "x"}, {"content": "b", "id": "x"}], "more than once"),
        ([{"content": "a", "timestamp": "not a date"}], "not a date"),
        ([{"content": "a", "id": ""}], "id must be"),
        ("x" * 100_001, "limit"),
    ],
)
def test_bad_messages_raise_clear_errors(bad: object, words: str) -> None:
    with pytest.raises(ValidationError, match=words):
        parse_messages(bad)


def test_parse_time_accepts_epoch_and_rejects_other_types() -> None:
    assert parse_time(0) == datetime(1970, 1, 1, tzinfo=timezone.utc)
    with pytest.raises(ValidationError, match="ISO-8601"):
        parse_time(object())


def test_a_bad_message_in_a_batch_stores_nothing(fake_memory: Memory) -> None:
    with pytest.raises(ValidationError, match="message 1"):
        fake_memory.remember(
            [{"role": "user", "content": "fine"}, {"role": "user", "content": ""}],
            user_id="a",
            session_id="s",
        )
    assert fake_memory.count(user_id="a") == 0
