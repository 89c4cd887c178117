"""Issue 26: messages in the ecosystem's shapes are accepted, and what is not text is kept as
a reference, never silently dropped."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from prism_memory import Memory
from prism_memory.messages import content_text, parse_messages


def test_openai_chat_completions_messages_are_accepted() -> None:
    turns = parse_messages(
        [
            {"role": "system", "content": "You book tables."},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Here is the menu"},
                    {
                        "type": "image_url",
                        "image_url": {"url": "https://x.org/menu.png", "detail": "low"},
                    },
                ],
                "name": "carol",
            },
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "book", "arguments": '{"time": "20:00"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "Booked for 8pm."},
            {"role": "assistant", "content": None, "refusal": "I can't share that."},
        ]
    )
    assert [t.role for t in turns] == ["system", "user", "assistant", "tool", "assistant"]
    assert turns[1].text == "Here is the menu\n[image: https://x.org/menu.png]"
    assert turns[1].name == "carol"
    assert turns[2].text == '[tool call: book {"time": "20:00"}]'
    assert turns[3].text == "Booked for 8pm."
    assert turns[4].text == "[refused: I can't share that.]"


def test_media_is_a_reference_with_hash_mime_name_and_alt() -> None:
    text = content_text(
        [
            {"type": "image", "base64": "aGVsbG8=", "mime_type": "image/png", "alt": "a cat"},
            {
                "type": "file",
                "file": {"file_data": "data:application/pdf;base64,AAA", "filename": "a.pdf"},
            },
            {"type": "input_audio", "input_audio": {"data": "UklGR", "format": "wav"}},
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/jpeg", "data": "xyz"},
            },
        ]
    )
    lines = text.splitlines()
    assert lines[0].startswith("[image: sha256:") and lines[0].endswith('; image/png; "a cat"]')
    assert lines[1].startswith("[file: sha256:") and "a.pdf" in lines[1]
    assert lines[2].startswith("[audio: sha256:") and lines[2].endswith("; wav]")
    assert lines[3].startswith("[image: sha256:") and "image/jpeg" in lines[3]
    assert "aGVsbG8=" not in text  # the bytes are never stored


def test_langchain_messages_with_images_and_tool_calls_are_remembered(fake_memory: Memory) -> None:
    res = fake_memory.remember(
        [
            HumanMessage(
                [
                    {"type": "text", "text": "my cat"},
                    {"type": "image", "url": "https://x.org/c.jpg"},
                ]
            ),
            AIMessage("", tool_calls=[{"name": "lookup", "args": {"q": "cat"}, "id": "t1"}]),
            ToolMessage("A tabby.", tool_call_id="t1", name="lookup"),
        ],
        user_id="u",
        session_id="s",
    )
    texts = [c.record.text for c in res.added]
    assert texts == [
        "my cat\n[image: https://x.org/c.jpg]",
        '[tool call: lookup {"q": "cat"}]',
        "A tabby.",
    ]


def test_llamaindex_blocks_become_references() -> None:
    from llama_index.core.base.llms.types import ChatMessage, DocumentBlock, ImageBlock, TextBlock

    from llamaindex_prism._convert import message_text

    msg = ChatMessage(
        role="user",
        blocks=[
            TextBlock(text="the floor plan"),
            ImageBlock(url="https://x.org/plan.png", image_mimetype="image/png"),
            DocumentBlock(
                data=b"%PDF-1.4 tiny", title="lease.pdf", document_mimetype="application/pdf"
            ),
        ],
    )
    lines = message_text(msg).splitlines()
    assert lines[0] == "the floor plan"
    assert lines[1] == "[image: https://x.org/plan.png; image/png]"
    assert lines[2].startswith("[file: sha256:") and "lease.pdf" in lines[2]


def test_tool_output_is_labelled_and_acknowledgements_take_no_budget(fake_memory: Memory) -> None:
    fake_memory.remember(
        [
            {"role": "user", "content": "Book the tabby cat cafe for 8pm"},
            {"role": "assistant", "content": "Noted."},
            {"role": "tool", "name": "book_table", "content": "Confirmation 4711, table for two."},
            {"role": "assistant", "content": "Got it, thanks!"},
        ],
        user_id="u",
        session_id="s1",
    )
    fake_memory.flush_buffer(user_id="u", session_id="s1")
    text = fake_memory.recall("cafe booking confirmation table", user_id="u").text
    assert "tool output (book_table): Confirmation 4711, table for two." in text
    assert "Noted." not in text and "Got it" not in text
