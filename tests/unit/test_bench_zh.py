"""``prism bench zh``: the zh-dev protocol's scorer and command on a tiny haystack."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from prism_bench import zh
from prism_memory import FakeEmbedder
from prism_memory.errors import ConfigError

MINI = Path(__file__).parent.parent / "fixtures" / "zh-mini"


def test_a_turn_is_covered_by_its_id_or_by_90_percent_of_its_bigrams() -> None:
    q = zh.load_questions(MINI)[0]
    turn = q.turn_text["md#1"]
    assert zh.covered([(["md#1"], "unrelated")], q) == {"md#1"}
    assert zh.covered([(["x"], f"用户：{turn}")], q) == {"md#1"}
    # a templated sibling shares most bigrams but not 90% of them
    assert not zh.covers("我新买的车是红色的宝马。", turn)
    assert zh.covered([(["x"], "我新买的车是红色的宝马。")], q) == set()


def test_load_questions_subsets_and_bad_directories(tmp_path: Path) -> None:
    assert [q.qid for q in zh.load_questions(MINI)] == ["01_a", "02_b"]
    assert [q.qid for q in zh.load_questions(MINI, every=2)] == ["01_a"]
    assert [q.qid for q in zh.load_questions(MINI, limit=1)] == ["01_a"]
    with pytest.raises(ConfigError, match=r"index\.json"):
        zh.load_questions(tmp_path)


def test_the_command_writes_a_report_with_baselines_per_type_and_costs(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    zh.add_arguments(parser)
    args = parser.parse_args(
        [str(MINI), "--out", str(tmp_path), "--name", "zh-mini", "--cjk-model", "none"]
    )
    args.embedder = FakeEmbedder(dim=32)
    assert zh.run(args, log=lambda _: None) == 0
    report = json.loads((tmp_path / "zh-mini.json").read_text())
    assert set(report["overall"]) >= {"questions", "prism", "dense", "bm25", "rrf"}
    assert report["overall"]["questions"] == 2
    assert set(report["per_type"]) == {"simple", "conditional"}
    assert set(report["overall"]["prism"]) == {"500", "1000", "2000"}
    # two small haystacks: every system shows the evidence at 2000 tokens
    assert all(report["overall"][s]["2000"] == 1.0 for s in zh.SYSTEMS)
    assert report["ingest"]["turns"] == 10 and report["ingest"]["turns_per_s"] > 0
    assert report["recall_latency_ms"]["calls"] == 6
    assert "--cjk-model none" in report["command"]
    md = (tmp_path / "zh-mini.md").read_text()
    assert "RRF(dense, BM25)" in md and "turns/s" in md
