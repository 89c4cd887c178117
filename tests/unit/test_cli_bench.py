"""``prism bench <name>``: benchmarks are discovered at run time by the module convention."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

import prism_bench
from prism_bench.scale import make_queries, make_texts, percentile, render_markdown
from prism_memory.cli import available_benchmarks, main

TOY = '''
"""Toy benchmark used by the CLI tests."""
import argparse

def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--answer", type=int, default=0)

def run(args: argparse.Namespace) -> int:
    print(f"toy answer={args.answer} path={args.path}")
    return 0 if args.answer == 42 else 3
'''


@pytest.fixture
def extra_bench_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory appended to ``prism_bench.__path__``, as a new bench module would be."""
    bench_dir = tmp_path / "benches"
    bench_dir.mkdir()
    (bench_dir / "toybench.py").write_text(textwrap.dedent(TOY))
    (bench_dir / "brokenbench.py").write_text("import no_such_module_anywhere\n")
    (bench_dir / "notabench.py").write_text('"""Has no run()."""\n')
    monkeypatch.setattr(prism_bench, "__path__", [*prism_bench.__path__, str(bench_dir)])
    yield bench_dir
    import sys

    for name in ("toybench", "brokenbench", "notabench"):
        sys.modules.pop(f"prism_bench.{name}", None)


def test_new_bench_module_is_listed_and_runs_without_cli_edits(
    extra_bench_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    benches = available_benchmarks()
    assert benches["toybench"] == "Toy benchmark used by the CLI tests."
    assert benches["scale"].startswith("ingest throughput")
    assert "scale" in benches
    assert "brokenbench" not in benches and "notabench" not in benches
    assert main(["--path", "/tmp/x", "bench", "toybench", "--answer", "42"]) == 0
    assert "toy answer=42 path=/tmp/x" in capsys.readouterr().out
    assert main(["bench", "toybench", "--answer", "1"]) == 3


def test_bench_help_lists_benchmarks(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--help"]) == 0
    out = capsys.readouterr().out
    assert "scale" in out and "available benchmarks" in out


def test_bench_without_name_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench"]) == 2
    assert "scale" in capsys.readouterr().out


def test_unknown_bench_is_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "nosuchbench"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("prism: error: no benchmark named 'nosuchbench'") and "scale" in err


def test_bench_module_option_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "scale", "--sizes"]) == 2
    assert "--sizes" in capsys.readouterr().err


def test_scale_bad_sizes_are_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "scale", "--sizes", "ten"]) == 2
    assert capsys.readouterr().err.startswith("prism: error: --sizes 'ten'")


def test_synthetic_data_is_deterministic_and_varied() -> None:
    a, b = make_texts(500, seed=3), make_texts(500, seed=3)
    assert a == b
    assert len({t for _, t in a}) > 450  # short but varied texts
    assert {k for k, _ in a} == {"fact", "preference", "event"}
    assert make_texts(50, seed=4) != make_texts(50, seed=3)
    qs = make_queries(100, users=7)
    assert qs == make_queries(100, users=7)
    assert {u for u, _ in qs} <= {f"user-{i:04d}" for i in range(7)}


def test_percentile() -> None:
    assert percentile([1.0, 2.0, 3.0, 4.0, 5.0], 50) == 3.0
    assert percentile([10.0] * 19 + [100.0], 95) == pytest.approx(14.5)


def test_markdown_report_states_targets_and_pool_reuse() -> None:
    results = {
        "date": "2024-01-01T00:00:00+00:00",
        "version": "0.1.0",
        "wall_s": 1.0,
        "peak_rss_mb": 100.0,
        "machine": {"cpus": 2, "python": "3.11"},
        "settings": {
            "sizes": [1000],
            "users": 10,
            "queries": 5,
            "baseline_queries_cap": 2,
            "baseline_budget_s": 5.0,
            "unique_texts_embedded": 500,
            "embedder": "m",
            "limit": 10,
            "prefetch_limit": 40,
            "seed": 7,
        },
        "ingest": {
            "texts": 10,
            "batch": 5,
            "wall_s": 0.1,
            "texts_per_s": 100.0,
            "embedding_s": 0.05,
            "rest_s": 0.05,
            "mean_chars": 40.0,
        },
        "bulk_embedding": {"texts": 500, "seconds": 1.0, "texts_per_s": 500.0},
        "sizes": [
            {
                "size": 1000,
                "load": {
                    "records_built_s": 0.1,
                    "edge_upsert_s": 0.1,
                    "edge_optimize_s": 0.1,
                    "baseline_upsert_s": None,
                },
                "edge_hybrid_query": {"n": 5, "p50_ms": 1.0, "p95_ms": 2.0, "mean_ms": 1.2},
                "edge_memory_search": {"n": 5, "p50_ms": 4.0, "p95_ms": 6.0, "mean_ms": 4.2},
                "rss_mb": 90.0,
                "edge_disk_mb": 3.0,
            }
        ],
        "targets": {
            "at_size": 1000,
            "ingest_texts_per_s": {"target": ">= 300", "value": 100.0, "met": False},
        },
    }
    md = render_markdown(results)
    assert "repeats them to reach 1000 memories" in md
    assert "| ingest_texts_per_s | >= 300 | 100.0 | no |" in md
    assert "not installed" in md and "skipped" in md


def test_extraction_bench_scores_labelled_cases(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from prism_bench.extraction import contains_all, without_quotes

    assert contains_all("rent 1350 euros", ["1,350"]) and not contains_all("21350", ["1350"])
    assert contains_all("red eye flights", ["red-eye"]) and contains_all("x b y", ["a|b"])
    quoted = without_quotes("User likes tea (I really like green tea)", ["I really like green tea"])
    assert "green" not in quoted

    def turn(text: str, when: str = "2026-03-14T10:00:00+00:00") -> dict[str, str]:
        return {"speaker": "Rosa", "role": "user", "text": text, "time": when}

    cases = [
        {
            "id": "c1",
            "kind": "single",
            "lang": "en",
            "turns": [turn("I teach piano in Leeds.")],
            "expect": [{"type": "fact", "about": "user", "must": ["piano"], "date": None}],
        },
        {
            "id": "c2",
            "kind": "negative",
            "lang": "en",
            "turns": [turn("Is it sunny in Leeds?")],
            "expect": [],
        },
        {
            "id": "c3",
            "kind": "update",
            "lang": "en",
            "turns": [
                turn("My rent is 700 pounds."),
                turn("Our rent went up to 760 pounds.", "2026-04-14T10:00:00+00:00"),
            ],
            "expect": [{"type": "fact", "about": "user", "must": ["760"], "date": None}],
            "stale": [{"must": ["700"]}],
        },
        {
            "id": "c4",
            "kind": "temporal",
            "lang": "en",
            "turns": [turn("I see my GP tomorrow.")],
            "expect": [{"type": "event", "about": "user", "must": ["gp"], "date": "2026-03-15"}],
        },
    ]
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(json.dumps(c) for c in cases), encoding="utf-8")
    out = tmp_path / "results"
    args = ["bench", "extraction", str(path), "--in-memory", "--fake-embedder", "--out", str(out)]
    assert main(args) == 0
    report = json.loads((out / "extraction.json").read_text())
    score = report["score"]
    assert score["recall_strict"]["all"]["recall"] == 1.0
    assert score["negatives_with_a_record"]["cases"] == 0
    assert score["stale_retired"]["rate"] == 1.0 and score["stale_retired"]["old_value_in_history"]
    assert score["date_accuracy"]["all dated items"]["accuracy"] == 1.0
    assert report["timing"]["extract_cpu_ms_per_user_turn"] > 0
    assert (out / "extraction.md").read_text().startswith("# Extraction on cases.jsonl")
    assert "Recall of expected items" in capsys.readouterr().out


def test_bench_without_the_bench_package_names_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "prism_bench", None)  # as if prism-memory-bench were absent
    for argv in (["bench", "--help"], ["bench", "scale", "--sizes", "10"]):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1
        assert "prism-memory-bench" in err and "pip install -e ./benchmarks" in err
