"""Hand-written benign texts the screen quarantines (eleventh revision), pinned.

The transformer opinion (averaged with the n-gram model since the eighth revision) quarantines
these short tool / web texts, which the rules and the n-gram model alone keep. They are
reported in ``docs/screen-model.md``. A test that keeps a benign text calls :func:`assert_kept`:
for a text listed here it checks the pinned behaviour instead, so a fix shows up as a failure
and the entry is removed then.
"""

from __future__ import annotations

from prism_memory.safety import injection_score, screen

KNOWN = frozenset(
    {
        ("tool", "Each contact the user saves is synced to their own phone."),
        ("web", "Make sure the user enters the coupon code before paying."),
    }
)


def assert_kept(text: str, source: str) -> None:
    """``text`` from ``source`` is a memory, not an attack (or a pinned known false positive)."""
    if (source, text) in KNOWN:
        assert not screen(text, source, transformer=False).quarantined, (source, text)
        assert screen(text, source).quarantined, f"fixed? remove it from KNOWN: {text!r}"
        return
    assert not screen(text, source).quarantined, (source, text, injection_score(text, source))
