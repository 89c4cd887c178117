"""The packaged model's footprint and its vectors: what an agent process hosting PRISM pays."""

from __future__ import annotations

import numpy as np

from prism_bench import footprint
from prism_memory import FastEmbedEmbedder, Memory
from prism_memory.embeddings.fastembed import _offline_paths
from prism_memory.embeddings.onnx_graph import gather_before_dequantise
from prism_memory.embeddings.packaged import PackagedMiniLM, shared_runner


def test_open_add_recall_with_the_default_embedder_stays_small() -> None:
    """A fresh process that opens a store, adds one text and recalls stayed at ~445 MB RSS
    (two ONNX sessions, fastembed imported, a memory arena holding a batch's activations);
    one shared session without the arena held ~110 MB less (337 MB); the payload indexes'
    file pages left mapped after open (~95 MB), tiktoken's Python copy of its ranks (~15 MB)
    and the float copy of the word-embedding table (~33 MB) came off next (192 MB), and
    embedding still works.

    The bound on the process's own heap (``RssAnon``, ~130 MB) is the tight one: the
    file-backed part of RSS (shared libraries) moves by ~25 MB with the page cache from one
    machine or venv to the next; the total is held to the issue's 250 MB."""
    steps = footprint.measure("default", rounds=1)
    assert steps["recall"]["RssAnon"] < 150, steps
    assert steps["recall"]["VmRSS"] < 250, steps
    # opening a store does not leave its index files mapped (it left ~105 MB)
    assert steps["open"]["RssFile"] - steps["import"]["RssFile"] < 40, steps
    assert steps["embed"]["texts_per_s"] > 0
    # a batch of long texts does not leave its activations behind
    assert steps["embed"]["VmRSS"] - steps["recall"]["VmRSS"] < 40, steps


def test_packaged_vectors_match_fastembed_and_repeats_are_embedded_once() -> None:
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    texts = [
        "I prefer window seats",
        "Ana moved to Lisbon in May 2023.",
        "word " * 400,  # cut to the first 256 word pieces, as sentence-transformers does
        "I prefer window seats",
    ]
    tok_dir, onnx = _offline_paths()
    name = "test/packaged-minilm-reference"
    if name not in {m["model"] for m in TextEmbedding.list_supported_models()}:
        TextEmbedding.add_custom_model(
            model=name,
            pooling=PoolingType.MEAN,
            normalization=True,
            sources=ModelSource(hf="sentence-transformers/all-MiniLM-L6-v2"),
            dim=384,
            model_file=onnx,
        )
    reference = TextEmbedding(name, specific_model_path=tok_dir)
    expected = [v for v in reference.embed(texts[:2], batch_size=2)]
    emb = FastEmbedEmbedder()
    runner = emb._load()
    assert isinstance(runner, PackagedMiniLM)
    assert runner is shared_runner(tok_dir, onnx, None)  # one session per process
    calls: list[int] = []
    original = runner.embed_ids

    def counting(batch: list[list[int]]) -> list[list[float]]:
        calls.append(len(batch))
        return original(batch)

    runner.embed_ids = counting  # type: ignore[method-assign]
    try:
        got = emb.embed_documents(texts)
    finally:
        del runner.embed_ids
    assert sum(calls) == 3  # the repeated text went to the model once
    assert got[0] == got[3]
    for vec, ref in zip(got[:2], expected):
        assert np.allclose(vec, ref, atol=1e-5)
    long_ids = runner.tokenize([texts[2]])[0]
    assert len(long_ids[0]) == 256 and long_ids[1]  # cut, and known to be cut


def test_two_memories_in_one_process_share_the_model(tmp_path: object) -> None:
    import pathlib

    base = pathlib.Path(str(tmp_path))
    with Memory(path=base / "a") as a, Memory(path=base / "b", embedder=FastEmbedEmbedder()) as b:
        a.add("I live in Porto", user_id="u")
        b.add("I live in Braga", user_id="u")
        assert a.embedder._load() is b.embedder._load()  # type: ignore[attr-defined]


def test_the_int8_embedding_table_gives_the_model_s_own_outputs() -> None:
    """The session looks rows up in the int8 word-embedding table and dequantises only those
    (33 MB less heap than the float table ONNX Runtime folds): same hidden states as the
    packaged model run as shipped."""
    import onnxruntime as ort

    tok_dir, onnx = _offline_paths()
    with open(onnx, "rb") as fh:
        shipped = fh.read()
    rewritten = gather_before_dequantise(shipped)
    assert rewritten != shipped
    assert gather_before_dequantise(rewritten) is rewritten  # nothing left to rewrite
    runner = shared_runner(tok_dir, onnx, None)
    batch = [ids for ids, _ in runner.tokenize(["Ana moved to Lisbon in May 2023.", "word " * 300])]
    width = max(len(ids) for ids in batch)
    input_ids = np.array([ids + [0] * (width - len(ids)) for ids in batch], dtype=np.int64)
    feed = {
        "input_ids": input_ids,
        "attention_mask": (input_ids != 0).astype(np.int64),
        "token_type_ids": np.zeros_like(input_ids),
    }
    reference = ort.InferenceSession(onnx, providers=["CPUExecutionProvider"])
    expected = reference.run(None, feed)[0]
    got = runner.session.run(None, feed)[0]
    assert got.shape == expected.shape
    assert np.abs(got - expected).max() <= 1e-6
