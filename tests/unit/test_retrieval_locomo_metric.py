"""The LoCoMo benchmark's evidence-coverage rule and file parsing (what the numbers mean)."""

from __future__ import annotations

import json
from pathlib import Path

from prism_bench.locomo import (
    answer_recall,
    covered_turns,
    load_conversations,
    pack_lines,
    parse_session_time,
)
from prism_memory import MemoryRecord
from prism_memory.records import Provenance

TURNS = {
    "D1:1": "I adopted a puppy named Rex from the shelter",
    "D1:2": "That is wonderful news about Rex",
    "D1:3": "We hiked the Blue Ridge trail with the kids",
    "D1:4": "Painting sunsets keeps me calm",
}


def rec(text: str, sources: list[str]) -> MemoryRecord:
    return MemoryRecord(text=text, user_id="u", provenance=Provenance(source_ids=sources))


def test_one_or_two_sources_are_covered_whatever_the_text() -> None:
    assert covered_turns([rec("x", ["D1:1"])], TURNS) == {"D1:1"}
    assert covered_turns([rec("x", ["D1:1", "some-uuid"])], TURNS) == {"D1:1"}


def test_a_summary_covers_only_turns_whose_words_it_carries() -> None:
    summary = rec(
        "Adopted puppy Rex from shelter; hiked Blue Ridge trail with kids.",
        ["D1:1", "D1:2", "D1:3", "D1:4"],
    )
    assert covered_turns([summary], TURNS) == {"D1:1", "D1:3"}


def test_answer_recall_counts_answer_words_in_the_text() -> None:
    assert answer_recall("We went on 7 May 2023 to the lake", "7 May 2023") == 1.0
    assert answer_recall("nothing here", "Adoption agencies") == 0.0


def test_loading_skips_adversarial_and_splits_malformed_evidence(tmp_path: Path) -> None:
    data = {
        "speaker_a": "Ann",
        "speaker_b": "Bo",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [{"speaker": "Ann", "dia_id": "D1:1", "text": "Hi", "blip_caption": "a dog"}],
        "qa": [
            {"question": "q1", "answer": "a", "evidence": ["D1:1; D1:2"], "category": 1},
            {"question": "q5", "adversarial_answer": "a", "evidence": ["D1:1"], "category": 5},
        ],
    }
    path = tmp_path / "c.json"
    path.write_text(json.dumps(data))
    (conv,) = load_conversations([path])
    assert [q.evidence for q in conv.questions] == [["D1:1", "D1:2"]]
    assert conv.turn_text["D1:1"] == "Hi [shares an image: a dog]"
    assert parse_session_time("1:56 pm on 8 May, 2023").isoformat().startswith("2023-05-08T13:56")


def test_baseline_packing_respects_the_budget() -> None:
    recs = [rec(TURNS[k], [k]) for k in TURNS]
    assert len(pack_lines(recs, 10_000)) == 4
    assert len(pack_lines(recs, 25)) < 4


def test_summary_reports_per_evidence_length() -> None:
    from prism_bench.locomo import markdown, summarise

    def row(cat: int, long_: bool, value: float) -> dict[str, object]:
        per_budget = {str(b): value for b in (250, 500, 1000, 2000)}
        return {
            "category": cat,
            "long_evidence": long_,
            "prism": per_budget,
            "strict": per_budget,
            "answer": per_budget,
            "tokens": per_budget,
            "latency_ms": 1.0,
        }

    report = summarise([row(1, True, 0.0), row(4, False, 1.0), row(4, False, 0.5)])
    lengths = report["per_evidence_length"]
    assert lengths["long (>= 600 chars)"] == {
        "questions": 1,
        "prism": {"250": 0.0, "500": 0.0, "1000": 0.0, "2000": 0.0},
    }
    assert lengths["short (< 600 chars)"]["prism"]["1000"] == 0.75
    report.update(command="c", conversations=["x"], memories=3, ingest_s=1.0)
    assert "Per evidence length" in markdown(report, "t")
