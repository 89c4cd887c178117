"""The keyword route for every script: CJK runs as character bigrams, English unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from qdrant_edge import Bm25, Bm25Config

from prism_memory import ConfigError, FakeEmbedder, Memory, PrismConfig
from prism_memory.sparse import SPARSE_VERSION, SparseEncoder, cjk_bigrams, has_cjk

ENGLISH = [
    "I prefer window seats on long flights",
    "My budget for the Lisbon trip is 500 euros!",
    "Zhang moved to Shanghai for a new job (in May 2023).",
    "don't, won't & can't: café naïve résumé",
    "",
    "   ",
    "Ünïcödé ünd Ümläute, 東 without spaces? no: only ASCII here",
]


def _old(text: str, query: bool = False) -> tuple[list[int], list[float]]:
    """What the encoder produced before CJK bigrams: the engine's BM25 on the raw text."""
    model = Bm25(Bm25Config(language="english", avg_len=40.0))
    v = model.embed_query(text) if query else model.embed_document(text)
    return list(v.indices), [float(x) for x in v.values]


@pytest.mark.parametrize("text", [t for t in ENGLISH if not has_cjk(t)])
def test_english_vectors_are_byte_identical_to_the_word_tokenizer(text: str) -> None:
    enc = SparseEncoder()
    doc, query = enc.document(text), enc.query(text)
    assert (doc.indices, doc.values) == _old(text)
    assert (query.indices, query.values) == _old(text, query=True)


def test_a_chinese_word_inside_a_clause_is_a_shared_term() -> None:
    enc = SparseEncoder()
    doc = set(enc.document("李明杰是我的下属，其年龄是32岁。").indices)
    assert set(enc.query("李明杰").indices) <= doc  # 李明, 明杰
    # the word tokenizer kept the clause whole: a name inside it matched nothing
    assert not set(_old("李明杰", query=True)[0]) & set(_old("李明杰是我的下属，其年龄是32岁。")[0])


def test_mixed_text_keeps_english_words_and_adds_bigrams() -> None:
    enc = SparseEncoder()
    doc = set(enc.document("我搬到了杭州 for a new job").indices)
    assert set(enc.query("job").indices) <= doc
    assert set(enc.query("杭州").indices) <= doc
    assert cjk_bigrams("東京タワー").split() == ["東京", "京タ", "タワ", "ワー"]
    assert cjk_bigrams("한국어 공부").split() == ["한국", "국어", "공부"]


def test_version_1_keeps_the_word_tokenizer_and_unknown_versions_fail() -> None:
    text = "我搬到了杭州"
    v1 = SparseEncoder(version=1).document(text)
    assert (v1.indices, v1.values) == _old(text)
    with pytest.raises(ConfigError, match="upgrade prism-memory"):
        SparseEncoder(version=7)


def test_a_new_store_records_the_tokenizer_and_an_old_one_keeps_its_own(tmp_path: Path) -> None:
    emb = FakeEmbedder(dim=16)
    path = tmp_path / "store"
    cfg = PrismConfig(cjk_embedding_model=None)  # the keyword route alone
    with Memory(path=path, embedder=emb, config=cfg) as m:
        assert m.sparse.version == SPARSE_VERSION == 2
        m.add("我住在上海", user_id="u")
    meta_path = path / "prism-store.json"
    meta = json.loads(meta_path.read_text())
    assert meta["sparse"] == 2
    # a store written before tokenizer versions existed has no "sparse" key
    del meta["sparse"]
    meta_path.write_text(json.dumps(meta))
    with Memory(path=path, embedder=emb, config=cfg) as m:
        assert m.sparse.version == 1
        assert [h.record.text for h in m.search("我住在上海", user_id="u")] == ["我住在上海"]
    assert "sparse" not in json.loads(meta_path.read_text())  # opening does not rewrite it


def test_qdrant_client_collection_records_the_tokenizer() -> None:
    from qdrant_client import QdrantClient

    from prism_memory.stores import QdrantStore

    client = QdrantClient(location=":memory:")
    store = QdrantStore(dim=8, client=client, collection="c")
    assert store.sparse_version == 2
    info = client.get_collection("c")
    assert (info.config.metadata or {})["prism_sparse"] == 2
    # a collection created before the version was recorded keeps the word tokenizer
    from qdrant_client import models

    client.create_collection(
        "old",
        vectors_config={"dense": models.VectorParams(size=8, distance=models.Distance.COSINE)},
        sparse_vectors_config={"bm25": models.SparseVectorParams(modifier=models.Modifier.IDF)},
    )
    assert QdrantStore(dim=8, client=client, collection="old").sparse_version == 1


def test_a_long_chinese_turn_yields_the_passage_the_query_needs() -> None:
    from prism_memory.retrieval.text import compress_text, content_terms, split_sentences

    turn = (
        "今天天气很好，我们在公园里散步了很久。后来去了一家新开的咖啡馆，环境很安静。"
        "对了，我妹妹下个月要搬到成都去工作！晚上我们一起吃了火锅，聊得很开心。"
    )
    assert len(split_sentences(turn)) == 4
    shown, compressed = compress_text(turn, content_terms("我妹妹要搬到哪里？"), 30)
    assert compressed and shown == "对了，我妹妹下个月要搬到成都去工作！"
    # English sentences and terms are what they were
    assert split_sentences("Hi! I moved. [shares an image]") == [
        "Hi!",
        "I moved.",
        "[shares an image]",
    ]
    assert content_terms("She painted sunrises at the lake") == {"lake", "paint", "sunris"}
