"""Second hops on data they cannot follow: recall answers, the odd datum is skipped."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

from prism_memory import FakeEmbedder, Memory
from prism_memory.config import RetrievalConfig


def test_an_imported_relation_to_a_foreign_id_does_not_break_recall(tmp_path: Path) -> None:
    # relations are followed by default; a target that is no record id (an import from another
    # system) made the embedded engine raise "failed to parse storm-42 as UUID" on every recall
    with Memory(path=tmp_path / "s", embedder=FakeEmbedder(dim=16)) as m:
        m.add("the beach weekend got called off", user_id="u")
        m.export_jsonl(tmp_path / "e.jsonl", user_id="u")
        line = json.loads((tmp_path / "e.jsonl").read_text().splitlines()[0])
        line["relations"] = [{"type": "caused_by", "target_id": "storm-42"}]
        m.delete_all(user_id="u")
        (tmp_path / "e.jsonl").write_text(json.dumps(line) + "\n")
        assert m.import_jsonl(tmp_path / "e.jsonl").imported == 1
        ctx = m.recall("beach weekend", user_id="u", config=RetrievalConfig(cache_size=0))
        assert [r.text for r in ctx.records] == ["the beach weekend got called off"]


def test_the_time_hop_holds_at_the_ends_of_the_calendar(tmp_path: Path) -> None:
    cfg = RetrievalConfig(
        routes=["dense", "bm25", "entity", "time", "recent", "graph_time"], cache_size=0
    )
    with Memory(path=tmp_path / "s", embedder=FakeEmbedder(dim=16)) as m:
        for year in (1, 9999):
            when = datetime(year, 12 if year > 1 else 1, 31 if year > 1 else 1, tzinfo=timezone.utc)
            m.add(
                f"grandpa's farm story {year}", user_id="u", session_id=f"s{year}", event_time=when
            )
            assert m.recall("grandpa's farm", user_id="u", config=cfg).records
