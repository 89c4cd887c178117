"""``prism`` end to end with the real embedded engine and the real offline embedding model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from prism_memory import FastEmbedEmbedder
from prism_memory.cli import main
from prism_memory.demo import load_conversation


def test_demo_answers_every_question_and_reruns_identically(
    tmp_path: Path, real_embedder: FastEmbedEmbedder, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(tmp_path / "demo")
    assert main(["demo", "--path", store, "--json"], embedder=real_embedder) == 0
    first = json.loads(capsys.readouterr().out)
    conv = load_conversation()
    assert first["ingested"]["sessions"] == len(conv["sessions"]) == 3
    assert first["ingested"]["turns"] == sum(len(s["turns"]) for s in conv["sessions"])
    assert [a["question"] for a in first["answers"]] == [q["question"] for q in conv["questions"]]
    for a in first["answers"]:
        assert a["found"], f"{a['question']!r}: {a['expect']!r} not in what the agent gets"
        assert a["hits"], a
        for hit in a["hits"]:
            assert hit["layer"] in {"buffer", "working", "episodic", "semantic"}
    # a rerun wipes the demo scope first: same memories, same answers
    assert main(["demo", "--path", store, "--json"], embedder=real_embedder) == 0
    second = json.loads(capsys.readouterr().out)
    assert second["ingested"] == first["ingested"]
    assert [[h["text"] for h in a["hits"]] for a in second["answers"]] == [
        [h["text"] for h in a["hits"]] for a in first["answers"]
    ]


def test_prism_demo_as_a_subprocess(tmp_path: Path) -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "prism_memory.cli", "demo", "--path", str(tmp_path / "demo")],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "ingested 3 sessions" in out
    assert "answered 5/5 questions from memory" in out
    assert "Traceback" not in proc.stderr
    # each hit line shows score, layer/kind and routes
    assert any("episodic/" in line or "semantic/" in line for line in out.splitlines())


def test_real_search_through_the_cli(
    tmp_path: Path, real_embedder: FastEmbedEmbedder, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(tmp_path / "s")
    for text in (
        "I prefer window seats",
        "My budget is 1800 euros",
        "Tom is allergic to shellfish",
    ):
        assert main(["--path", store, "add", text, "--user", "maya"], embedder=real_embedder) == 0
    capsys.readouterr()
    code = main(
        ["--path", store, "search", "what can Tom not eat?", "--user", "maya", "-k", "1", "--json"],
        embedder=real_embedder,
    )
    hits = json.loads(capsys.readouterr().out)
    assert code == 0
    assert hits[0]["record"]["text"] == "Tom is allergic to shellfish"
    assert "dense" in hits[0]["routes"]


def test_bench_scale_writes_results(
    tmp_path: Path, real_embedder: FastEmbedEmbedder, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results"
    argv = [
        "bench", "scale", "--sizes", "300,600", "--users", "10", "--ingest-sample", "100",
        "--queries", "15", "--baseline-queries", "3", "--out", str(out),
    ]  # fmt: skip
    assert main(argv, embedder=real_embedder) == 0
    results = json.loads((out / "scale.json").read_text())
    assert [row["size"] for row in results["sizes"]] == [300, 600]
    for row in results["sizes"]:
        assert row["edge_points"] == row["size"]
        assert row["edge_hybrid_query"]["n"] == 15
        assert row["hits_per_query"] == 10  # 30-60 memories per user: a full page in scope
        assert row["baseline_hybrid_query"]["n"] == 3
        assert row["baseline_over_edge_p50"] > 0
    assert results["ingest"]["texts"] == 100 and results["ingest"]["embedding_s"] > 0
    assert results["targets"]["at_size"] == 600
    md = (out / "scale.md").read_text()
    assert "| 600 |" in md and "## Targets" in md
    assert "wrote" in capsys.readouterr().err


def test_text_longer_than_the_model_is_kept_whole_without_noise(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The cut to the model's 256 word pieces is routine (long chat turns): it is logged at
    INFO, which the CLI does not print; the whole text is stored and searchable."""
    long_text = " ".join(f"word{i} about the Lisbon trip" for i in range(400))  # ~2000 tokens
    embedder = FastEmbedEmbedder()
    store = str(tmp_path / "s")
    code = main(["--path", store, "add", long_text, "--user", "maya", "--json"], embedder=embedder)
    out, err = capsys.readouterr()
    assert code == 0
    assert json.loads(out)["text"] == long_text
    assert not [line for line in err.splitlines() if line.startswith("prism: warning:")]
    code = main(
        ["--path", store, "search", "word399", "--user", "maya", "--json"], embedder=embedder
    )
    out, _ = capsys.readouterr()
    assert code == 0 and json.loads(out)[0]["record"]["text"] == long_text
