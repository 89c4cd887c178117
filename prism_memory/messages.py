"""How messages become remembered text: the public face of ``remember``'s message parsing.

Design: one rule for every surface. ``content_text`` turns a message's content (a string, or
OpenAI / LangChain / Anthropic / LlamaIndex content parts) into the text PRISM stores and
shows: text parts joined, images, audio, video and files as one-line references (type, URL or
content hash, MIME type, file name, alt text), never silently dropped; ``calls_text`` renders
an assistant message's tool calls. ``parse_messages`` is what ``Memory.remember`` runs. The
adapters use these functions, so the text of a message in a prompt and the text of its stored
turn are the same (which is how recall leaves out what the thread already shows).

>>> content_text([{"type": "text", "text": "my boarding pass"},
...               {"type": "file", "file": {"file_id": "file-9", "filename": "pass.pdf"}}])
'my boarding pass\\n[file: file id file-9; pass.pdf]'
"""

from __future__ import annotations

from ._messages import ROLES, Turn, calls_text, content_text, parse_messages

__all__ = ["ROLES", "Turn", "calls_text", "content_text", "parse_messages"]
