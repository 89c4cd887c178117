"""``PrismMemoryBlock`` inside the real ``llama_index.core.memory.Memory`` and a FunctionAgent.

The known pitfall is tested explicitly: one block instance serving several sessions must not
carry state from one call to the next (LlamaIndex's ``VectorMemoryBlock`` appends the first
session's filter to shared kwargs and serves that session's memories to later ones).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest
from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.memory import Memory as LlamaMemory
from llama_index.core.storage.chat_store.sql import MessageStatus
from llama_index.core.tools import FunctionTool

from llamaindex_prism import PrismMemoryBlock
from prism_memory import ConfigError, Memory, ScopeError
from prism_memory.tokens import count_tokens

FILLER = [
    "Tell me something about the weather in spring, please, in a few sentences.",
    "Spring is mild: rain showers, blooming trees and longer days come back.",
    "And what about summer evenings by the lake, are they usually warm enough?",
    "Summer evenings by the lake are usually warm, though the wind can pick up.",
]


def chat_memory(session_id: str, block: PrismMemoryBlock, token_limit: int = 120) -> LlamaMemory:
    """A LlamaIndex Memory with a small short-term window so turns get flushed to the block."""
    return LlamaMemory.from_defaults(
        session_id=session_id,
        memory_blocks=[block],
        token_limit=token_limit,
        chat_history_token_ratio=0.5,
        token_flush_size=40,
    )


async def say(mem: LlamaMemory, fact: str) -> None:
    """Put a fact and enough chatter after it that the fact leaves the short-term queue."""
    await mem.aput(ChatMessage(role="user", content=fact))
    await mem.aput(ChatMessage(role="assistant", content="Noted."))
    for i, text in enumerate(FILLER):
        role = MessageRole.USER if i % 2 == 0 else MessageRole.ASSISTANT
        await mem.aput(ChatMessage(role=role, content=text))
    active = await mem.sql_store.get_messages(mem.session_id, status=MessageStatus.ACTIVE)
    assert fact not in [m.content for m in active], "the fact left the short-term queue"


def memory_text(messages: Sequence[ChatMessage]) -> str:
    return "\n".join(m.content or "" for m in messages if m.role == MessageRole.SYSTEM)


async def test_one_block_serves_many_sessions_without_leaking(
    memory: Memory, uid: Callable[[str], str]
) -> None:
    block = PrismMemoryBlock(memory)  # no user id: every session is its own scope
    before = block.model_dump()
    a = chat_memory(uid("session-a"), block)
    b = chat_memory(uid("session-b"), block)
    await say(a, "My locker code is 4411.")
    await say(b, "My favourite colour is teal.")

    got_a = memory_text(await a.aget(input="What is my locker code?"))
    got_b = memory_text(await b.aget(input="What is my locker code?"))
    assert "<prism_memory>" in got_a and "4411" in got_a
    assert "teal" not in got_a
    assert "4411" not in got_b  # the first session's memory never reaches the second
    # ask in the other order too: nothing the block saw first may stick
    got_b2 = memory_text(await b.aget(input="What is my favourite colour?"))
    got_a2 = memory_text(await a.aget(input="What is my favourite colour?"))
    assert "teal" in got_b2 and "teal" not in got_a2
    assert block.model_dump() == before  # no per-call state was written to the block


def test_user_scoped_block_shares_long_term_memory_across_sessions_sync(
    memory: Memory, uid: Callable[[str], str]
) -> None:
    alice_block = PrismMemoryBlock(memory, user_id=uid("alice"), name="alice_memory")
    bob_block = PrismMemoryBlock(memory=memory, user_id=uid("bob"), name="bob_memory")
    monday = chat_memory("monday", alice_block)
    monday.put(ChatMessage(role="user", content="I am allergic to peanuts."))
    for i, text in enumerate(FILLER):
        monday.put(ChatMessage(role="user" if i % 2 == 0 else "assistant", content=text))

    tuesday = chat_memory("tuesday", alice_block)
    assert "peanuts" in memory_text(tuesday.get(input="Can I eat satay sauce?"))
    bobs_tuesday = chat_memory("tuesday", bob_block)  # same session id, another user
    assert "peanuts" not in memory_text(bobs_tuesday.get(input="Can I eat satay sauce?"))


async def test_block_truncates_when_the_memory_is_over_its_token_limit(
    memory: Memory, uid: Callable[[str], str]
) -> None:
    user = uid("frank")
    block = PrismMemoryBlock(memory, user_id=user)
    facts = [
        "Frank's sister Mia lives in Lisbon and works as an architect.",
        "Frank's brother Tom lives in Oslo and teaches mathematics at a school.",
        "Frank's cousin Ana lives in Porto and runs a small bakery near the river.",
    ]
    for fact in facts:
        memory.add(fact, user_id=user, kind="fact")
    full = await block.aget([ChatMessage(role="user", content="Where do Frank's relatives live?")])
    assert all(city in full for city in ("Lisbon", "Oslo", "Porto"))

    cut = await block.atruncate(full, 20)
    assert cut is not None and count_tokens(cut) <= count_tokens(full) - 20
    assert cut.splitlines()[0] == full.splitlines()[0]
    assert cut.splitlines()[-1] == full.splitlines()[-1]  # the delimiters survive
    assert await block.atruncate(full, count_tokens(full)) is None

    # through LlamaIndex: a token limit below chat + block makes Memory call atruncate
    question = ChatMessage(role="user", content="Where do Frank's relatives live?")
    limit = count_tokens(full) + count_tokens(question.content or "") - 15
    small = LlamaMemory.from_defaults(
        session_id=uid("s"), memory_blocks=[block], token_limit=limit, token_flush_size=limit
    )
    await small.aput(question)
    shown = memory_text(await small.aget())
    assert "<prism_memory>" in shown
    assert sum(city in shown for city in ("Lisbon", "Oslo", "Porto")) == 2


async def test_function_agent_with_llamaindex_memory_and_prism_block(
    memory: Memory, uid: Callable[[str], str]
) -> None:
    user = uid("gina")
    block = PrismMemoryBlock(memory, user_id=user)
    # an earlier session, ejected from its short-term queue into the block
    await block.aput(
        [ChatMessage(role="user", content="I always fly with a window seat, never an aisle.")],
        from_short_term_memory=True,
        session_id="last-week",
    )
    sent: list[list[ChatMessage]] = []

    def script(messages: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
        sent.append(list(messages))
        return ChatMessage(role="assistant", content="Booked 14A, a window seat.")

    def book_seat(seat: str) -> str:
        """Book a seat."""
        return f"booked {seat}"

    agent = FunctionAgent(
        tools=[FunctionTool.from_defaults(fn=book_seat)],
        llm=MockFunctionCallingLLM(response_generator=script),
        system_prompt="You book flights.",
    )
    agent_memory = LlamaMemory.from_defaults(session_id="today", memory_blocks=[block])
    result = await agent.run("Book me a seat on the Lisbon flight.", memory=agent_memory)
    assert "14A" in str(result)
    first = "\n".join(m.content or "" for m in sent[0])
    assert "<prism_memory>" in first and "window seat" in first
    # the agent's memory still has its own short-term history
    contents = [m.content for m in await agent_memory.aget_all()]
    assert contents[0] == "Book me a seat on the Lisbon flight."


def test_block_configuration_errors(memory: Memory) -> None:
    with pytest.raises(ConfigError, match="Memory"):
        PrismMemoryBlock(None)
    with pytest.raises(ScopeError):
        PrismMemoryBlock(memory, user_id="")
    block = PrismMemoryBlock(memory)  # no scope: a call without a session cannot be scoped
    with pytest.raises(ScopeError, match="user_id"):
        block._scope(None)


async def test_default_llamaindex_memory_persists_every_turn_and_recalls_next_session(
    memory: Memory, uid: Callable[[str], str]
) -> None:
    """LlamaIndex's default ``Memory`` (30K tokens, nothing ejected): every turn still reaches
    PRISM, once, and a new session gets it back."""
    user = uid("hana")
    block = PrismMemoryBlock(memory, user_id=user)
    monday = LlamaMemory.from_defaults(session_id=uid("monday"), memory_blocks=[block])
    assert monday.token_limit == 30000  # the defaults, no tiny window
    await monday.aput(ChatMessage(role="user", content="I am allergic to peanuts."))
    await monday.aput(ChatMessage(role="assistant", content="Noted, no peanuts."))
    await monday.aput(ChatMessage(role="user", content="Suggest a snack for tonight."))
    first = memory_text(await monday.aget())  # what an agent does before each model call
    assert "allergic to peanuts" not in first  # the session's own turns are not repeated
    await monday.aget()  # again: nothing is stored twice
    await monday.aput(ChatMessage(role="assistant", content="Try hummus with carrots."))
    await block.asave_session(monday)  # the reply after the last get
    turns = memory.session_turns(user_id=user, session_id=monday.session_id)
    assert [r.text for r in turns] == [
        "I am allergic to peanuts.",
        "Noted, no peanuts.",
        "Suggest a snack for tonight.",
        "Try hummus with carrots.",
    ]

    tuesday = LlamaMemory.from_defaults(session_id=uid("tuesday"), memory_blocks=[block])
    got = memory_text(await tuesday.aget(input="Can I eat satay sauce with peanuts?"))
    assert "<prism_memory>" in got and "allergic to peanuts" in got


def test_block_and_chat_memory_accept_a_registered_intent_name(
    memory: Memory, uid: Callable[[str], str]
) -> None:
    from llamaindex_prism import PrismMemory

    user = uid("ivan")
    memory.register_intent("cooking", kinds=["preference"])
    memory.add("Ivan prefers spicy food", user_id=user, kind="preference")
    block = PrismMemoryBlock(memory, user_id=user, intent="cooking")
    chat = PrismMemory(memory, user_id=user, session_id=uid("s"), intent="cooking")
    question = ChatMessage(role="user", content="What should I cook?")
    assert "spicy" in memory_text(chat.get("What should I cook?"))
    assert "spicy" in block._get([question], {"user_id": user})
    typo = PrismMemory(memory, user_id=user, session_id=uid("s"), intent="cookin")
    with pytest.raises(ConfigError, match=r"'cookin' is not registered.*'cooking'"):
        typo.get("What should I cook?")


async def test_repeated_messages_are_each_stored_and_aget_never_raises(
    memory: Memory, uid: Callable[[str], str]
) -> None:
    """Issue 26: identity is the position in the session, not (role, text): two "ok" in one
    put, and a "thanks" said again later, are each a turn; re-sending a window adds nothing."""
    user = uid("rita")
    block = PrismMemoryBlock(memory, user_id=user)
    mem = LlamaMemory.from_defaults(session_id=uid("s"), memory_blocks=[block])
    await mem.aput_messages(
        [
            ChatMessage(role="user", content="ok"),
            ChatMessage(role="user", content="ok"),
            ChatMessage(role="assistant", content="thanks"),
        ]
    )
    await mem.aget()  # the block stores the window
    await mem.aget()  # the same window again: nothing new
    await mem.aput(ChatMessage(role="assistant", content="thanks"))  # said again, later
    await mem.aget()
    turns = [
        (r.metadata.get("role"), r.text)
        for r in memory.session_turns(user_id=user, session_id=mem.session_id)
    ]
    assert turns == [
        ("user", "ok"),
        ("user", "ok"),
        ("assistant", "thanks"),
        ("assistant", "thanks"),
    ]
    # a message PRISM cannot store as is (a two-line speaker name) is left out, never raised
    await mem.aput(ChatMessage(role="user", content="hi", additional_kwargs={"name": "a\nb"}))
    await mem.aget()
    assert len(memory.session_turns(user_id=user, session_id=mem.session_id)) == 4
    # a fresh block (another process) aligns with what is stored: no duplicates
    again = PrismMemoryBlock(memory, user_id=user)
    await LlamaMemory.from_defaults(session_id=mem.session_id, memory_blocks=[again]).aget()
    assert len(memory.session_turns(user_id=user, session_id=mem.session_id)) == 4
