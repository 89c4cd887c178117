"""A passage keeps the sentence that answers the question's form (a number, a date, a name)."""

from __future__ import annotations

from prism_memory.retrieval.text import answer_kind, compress_text, content_terms

TURN = (
    "The road trip was something we had planned for years with friends from college. "
    "The road trip lasted two weeks. "
    "My sister loved the beaches and the seafood."
)


def test_the_sentence_with_the_asked_for_number_is_kept() -> None:
    query = "How many days did the road trip take?"
    terms = content_terms(query)
    shown, compressed = compress_text(TURN, terms, 12, asks=answer_kind(query))
    assert compressed and shown == "The road trip lasted two weeks."
    # without the question's form the longer sentence on the subject wins the same room
    plain, _ = compress_text(TURN, terms, 12)
    assert "two weeks" not in plain


def test_question_forms() -> None:
    assert answer_kind("how much did I pay for the bike?") == "number"
    assert answer_kind("Which year did we meet?") == "date"
    assert answer_kind("Who did I go hiking with?") == "name"
    assert answer_kind("Where did I put my keys?") is None
    assert answer_kind("我什么时候搬家的？") is None  # no English form: ranking unchanged
