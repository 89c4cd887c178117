"""Configuration: defaults, validation with a fix in the message, no env reads at import."""

from __future__ import annotations

from pathlib import Path

import pytest

from prism_memory import (
    BufferConfig,
    ConfigError,
    FakeEmbedder,
    Memory,
    PrismConfig,
    RetrievalConfig,
    StoreConfig,
)


def test_defaults() -> None:
    cfg = PrismConfig()
    assert cfg.embedding_model == "sentence-transformers/all-MiniLM-L6-v2"
    assert cfg.store.collection == "prism_memory" and cfg.store.optimize_after == 2000
    assert {"dense", "bm25", "entity", "recent"} <= set(cfg.retrieval.routes)
    assert cfg.retrieval.fusion == "rrf" and cfg.retrieval.rrf_k == 20
    assert cfg.buffer.max_turns == 20


def test_sections_are_independent_instances() -> None:
    a, b = PrismConfig(), PrismConfig()
    a.retrieval.weights["semantic"] = 0.0
    assert b.retrieval.weights["semantic"] == 0.7


@pytest.mark.parametrize(
    "build",
    [
        lambda: PrismConfig(embedding_batch_size=0),
        lambda: StoreConfig(timeout_s=0),
        lambda: BufferConfig(max_turns=0),
        lambda: RetrievalConfig(pool_size=0),
        lambda: RetrievalConfig(fusion="max"),  # type: ignore[arg-type]
        lambda: PrismConfig(unknown_setting=1),  # type: ignore[call-arg]
        lambda: StoreConfig(colection="typo"),  # type: ignore[call-arg]
    ],
)
def test_out_of_range_and_unknown_settings_are_rejected(build: object) -> None:
    with pytest.raises(ConfigError, match=r"invalid [A-Za-z]+Config setting"):
        build()  # type: ignore[operator]


def test_assignment_is_validated() -> None:
    cfg = PrismConfig()
    with pytest.raises(ConfigError, match="pool_size"):
        cfg.retrieval.pool_size = -1
    assert cfg.retrieval.pool_size == RetrievalConfig().pool_size  # the refused value is not kept


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"routes": ["dense", "hyde"]}, "unknown retrieval routes.*hyde"),
        ({"routes": []}, "keep at least one"),
        ({"weights": {"semantic": -1.0}}, "weights must be >= 0"),
    ],
)
def test_retrieval_config_errors_say_what_to_do(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        RetrievalConfig(**kwargs)  # type: ignore[arg-type]


def test_default_path_reads_env_at_call_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PRISM_PATH", raising=False)
    assert PrismConfig.default_path() == "./.prism"
    monkeypatch.setenv("PRISM_PATH", "/data/prism")
    assert PrismConfig.default_path() == "/data/prism"


def test_memory_uses_prism_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PRISM_PATH", str(tmp_path / "from-env"))
    with Memory(embedder=FakeEmbedder()) as m:
        m.add("hello", user_id="u")
    assert (tmp_path / "from-env" / "prism-store.json").exists()


def test_config_reaches_the_engine(tmp_path: Path) -> None:
    cfg = PrismConfig(store=StoreConfig(collection="other"))
    with Memory(location=":memory:", embedder=FakeEmbedder(), config=cfg) as m:
        assert m.store.info()["collection"] == "other"
    with pytest.raises(ConfigError, match="only one of"):
        Memory(path=tmp_path, location=":memory:", embedder=FakeEmbedder())
    with pytest.raises(ConfigError, match="':memory:'"):
        Memory(location="/tmp/somewhere", embedder=FakeEmbedder())
