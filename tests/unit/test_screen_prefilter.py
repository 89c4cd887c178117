"""The screen's literal prefilter is exact: it skips a family only where its pattern cannot match."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prism_memory.safety import poisoning
from prism_memory.safety._literals import LiteralIndex, Prefilter, holds, requirement

_ALPHABET = "ab c."


def _regex(depth: int = 3) -> st.SearchStrategy[str]:
    """Small regular expressions over a tiny alphabet: literals, classes, groups, repeats,
    alternations, word boundaries and lookarounds, nested."""
    leaf = st.one_of(
        st.text(alphabet="abc ", min_size=1, max_size=3).map(re.escape),
        st.sampled_from([r"\w", r"\s", r"[ab]", r"[^c]", r"\b", ".", r"(?=a)", r"(?!b)"]),
    )
    return st.recursive(
        leaf,
        lambda inner: st.one_of(
            st.lists(inner, min_size=2, max_size=3).map("".join),
            st.lists(inner, min_size=2, max_size=3).map(lambda xs: "(?:" + "|".join(xs) + ")"),
            st.tuples(inner, st.sampled_from(["?", "*", "+", "{1,2}", "{0,2}?", "{2}"])).map(
                lambda t: "(?:" + t[0] + ")" + t[1]
            ),
            inner.map(lambda x: "(" + x + ")"),
        ),
        max_leaves=8,
    )


@settings(deadline=None, max_examples=400)
@given(_regex(), st.lists(st.text(alphabet=_ALPHABET, max_size=10), min_size=1, max_size=6))
def test_a_pattern_never_matches_a_text_its_prefilter_rules_out(
    source: str, texts: list[str]
) -> None:
    pattern = re.compile(source)
    pre = Prefilter(pattern)
    for text in texts:
        if pattern.search(text) is not None:
            assert pre.may_match(text), (source, text, pre.need)


def test_what_the_common_shapes_need() -> None:
    send = requirement(re.compile(r"\bsend (?:it|them) to\b"))
    assert send is not None
    assert holds(send, {"send ", "them", " to"}) and not holds(send, {"send ", " to"})
    pay = requirement(re.compile(r"(?:wire|pay)\w* (?:now|today)"))
    assert pay is not None
    assert holds(pay, {" ", "pay", "now"}) and not holds(pay, {" ", "now", "today"})
    assert requirement(re.compile(r"(?i)transfer")) is None  # case-insensitive: nothing
    assert requirement(re.compile(r"(?:x|\d)")) is None  # a branch needs no letter


def _fixture_texts(limit: int) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    for path in sorted(
        Path(__file__).parents[1].joinpath("fixtures").glob("poisoning_blind*.jsonl")
    ):
        lines = path.read_text(encoding="utf-8").splitlines()
        rows += [(d["text"], d["source"]) for d in map(json.loads, lines[::10])]
    return rows[:limit]


def test_every_family_verdict_is_the_same_with_and_without_the_prefilter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Attacks and benign texts of the blind corpora get identical family hits either way."""
    texts = _fixture_texts(400)
    assert len(texts) > 250
    views = [t.lower() for t, _ in texts]
    with_prefilter = [poisoning._hits(v, user=s == "user") for v, (_, s) in zip(views, texts)]
    always = {p: Prefilter(re.compile("")) for p in poisoning._PREFILTERS}
    monkeypatch.setattr(poisoning, "_PREFILTERS", always)
    without = [poisoning._hits(v, user=s == "user") for v, (_, s) in zip(views, texts)]
    assert with_prefilter == without
    assert any(with_prefilter)  # the sample holds attacks the families find


def test_the_tree_of_required_words_rules_out_what_one_word_of_the_best_set_lets_through() -> None:
    """Each branch needs all of its words: a long text holding a few of them is skipped."""
    pattern = re.compile(r"\b(?:when|if) \w+ asks?\b[^.]{0,40}\btell\b|\bthe answer is\b")
    pre = Prefilter(pattern)
    text = "when she asks for help, tell her the truth"
    assert pattern.search(text) is not None and pre.may_match(text)
    ruled_out = "my boss will ask for the report on monday"  # " ask", but no "tell"
    assert " ask" in LiteralIndex.of([pre.need]).present(ruled_out)
    assert not pre.may_match(ruled_out)
    assert not pre.may_match(ruled_out, LiteralIndex.of([pre.need]).present(ruled_out))


@settings(deadline=None, max_examples=200)
@given(
    st.lists(st.text(alphabet=_ALPHABET, min_size=1, max_size=6), max_size=12),
    st.text(alphabet=_ALPHABET, max_size=40),
)
def test_the_literal_index_finds_exactly_the_literals_a_text_holds(
    literals: list[str], text: str
) -> None:
    assert LiteralIndex(literals).present(text) == {lit for lit in literals if lit in text}


def test_an_outside_text_is_featurized_once_for_both_of_its_readings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Web content is read as the web's and as the user's words: one featurization, same P."""
    from prism_memory.safety import _model

    views = ["Book the 9:40 train and tell the hotel we arrive late. " * 60]
    model = poisoning.screen_model()
    expected = [
        model.probability(*_model.featurize(w, s))
        for w in _model.windows(views)
        for s in ("web", "user")
    ]
    calls: list[int] = []
    inner = _model.text_features
    monkeypatch.setattr(_model, "text_features", lambda v: calls.append(1) or inner(v))
    fired, p = model.fires(views, "web", external=True)
    assert not fired and p == max(expected)
    assert len(calls) == len(_model.windows(views))
