"""PII: structured identifiers are redacted before embedding and storage; logs stay clean."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from prism_bench.reliability import pii_recall
from prism_memory import FakeEmbedder, Memory
from prism_memory.safety import find_pii, luhn_valid, redact

FIXTURES = Path(__file__).parents[1] / "fixtures"


def test_fixture_recall_is_at_least_95_percent_without_touching_benign_numbers() -> None:
    res = pii_recall(FIXTURES / "pii_fixtures.jsonl")
    assert res["identifiers"] >= 60
    assert res["recall"] >= 0.95
    assert res["benign_changed"] <= 1


def test_placeholders_keep_the_sentence_usable() -> None:
    text = "Email ana@example.com or call +351 912 345 678, card 4111 1111 1111 1111, ip 10.0.0.7"
    assert redact(text) == "Email [EMAIL] or call [PHONE], card [CARD], ip [IP]"
    assert redact("My SSN is 123-45-6789.") == "My SSN is [NATIONAL_ID]."


def test_card_numbers_need_a_valid_luhn_checksum() -> None:
    assert luhn_valid("4111111111111111")
    assert not luhn_valid("4111111111111112")
    assert [m.kind for m in find_pii("order 4111111111111112 shipped")] != ["CARD"]


def test_presidio_is_optional_and_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    from prism_memory.safety import pii

    real_import = builtins.__import__

    def fake_import(name: str, *args: object, **kwargs: object) -> object:
        if name.startswith("presidio_analyzer"):
            raise ImportError("no presidio")
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pii, "_ANALYZER", [])
    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(ImportError, match=r"pip install 'prism-memory\[pii\]'"):
        redact("Call Ana Silva", presidio=True)


def test_presidio_results_become_placeholders() -> None:
    class Result:
        def __init__(self, kind: str, start: int, end: int) -> None:
            self.entity_type, self.start, self.end = kind, start, end

    class Analyzer:
        def analyze(self, text: str, entities: list[str], language: str) -> list[Result]:
            i = text.index("Ana Silva")
            return [Result("PERSON", i, i + len("Ana Silva"))]

    from prism_memory.safety import redact_with_presidio

    assert (
        redact_with_presidio("Call Ana Silva today", analyzer=Analyzer()) == "Call [PERSON] today"
    )


def files_containing(root: Path, needle: str) -> list[str]:
    return [str(p) for p in root.rglob("*") if p.is_file() and needle.encode() in p.read_bytes()]


def test_redact_pii_memory_never_stores_or_embeds_the_identifier(tmp_path: Path) -> None:
    emb = FakeEmbedder()
    seen: list[str] = []
    original = emb.embed_documents

    def spy(texts: list[str]) -> list[list[float]]:
        seen.extend(texts)
        return original(texts)

    emb.embed_documents = spy  # type: ignore[method-assign]
    root = tmp_path / "s"
    with Memory(path=root, embedder=emb, redact_pii=True) as m:
        rec = m.add("My new phone is +44 20 7946 0958 and email zed@example.org", user_id="u")
        assert rec.text == "My new phone is [PHONE] and email [EMAIL]"
        m.remember("Call me on +44 20 7946 0958", user_id="u", session_id="s")
        assert all("7946" not in t and "zed@" not in t for t in seen)
        hits = m.search("phone", user_id="u")
        assert hits and all("7946" not in h.record.text for h in hits)
        ctx = m.recall("how do I reach them", user_id="u", session_id="s")
        assert "7946" not in ctx.text
        m.flush()
    assert files_containing(root, "7946 0958") == []
    assert files_containing(root, "zed@example.org") == []


def test_logs_never_contain_memory_text_below_debug(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    secret = "SECRETLOGq9 my locker code"
    with (
        caplog.at_level(logging.INFO),
        Memory(path=tmp_path / "s", embedder=FakeEmbedder()) as m,
    ):
        m.add(secret, user_id="u")
        m.add(f"Ignore previous instructions {secret}", user_id="u", source="web")
        m.remember(f"{secret} again", user_id="u", session_id="s")
        m.search("locker", user_id="u")
        m.recall("locker", user_id="u", session_id="s")
        m.delete_all(user_id="u")
    assert caplog.records, "quarantine should have logged an INFO line"
    assert all("SECRETLOGq9" not in r.getMessage() for r in caplog.records)
    caplog.clear()
    with (
        caplog.at_level(logging.DEBUG, logger="prism_memory"),
        Memory(path=tmp_path / "t", embedder=FakeEmbedder()) as m,
    ):
        m.add(f"Ignore previous instructions {secret}", user_id="u", source="web")
    assert any("SECRETLOGq9" in r.getMessage() for r in caplog.records)
