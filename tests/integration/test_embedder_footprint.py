"""The packaged model's footprint and its vectors: what an agent process hosting PRISM pays."""

from __future__ import annotations

import numpy as np

from prism_bench import footprint
from prism_memory import FastEmbedEmbedder, Memory
from prism_memory.embeddings.fastembed import _offline_paths
from prism_memory.embeddings.packaged import PackagedMiniLM, shared_runner


def test_open_add_recall_with_the_default_embedder_stays_small() -> None:
    """A fresh process that opens a store, adds one text and recalls stayed at ~445 MB RSS
    (two ONNX sessions, fastembed imported, a memory arena holding a batch's activations);
    one shared session without the arena held ~110 MB less (337 MB); the payload indexes'
    file pages left mapped after open (~95 MB) and tiktoken's Python copy of its ranks
    (~15 MB) came off next (226 MB), and embedding still works.

    The bound on the process's own heap (``RssAnon``, ~165 MB) is the tight one: the
    file-backed part of RSS (shared libraries) moves by ~25 MB with the page cache from one
    machine or venv to the next, so the total gets a looser bound."""
    steps = footprint.measure("default", rounds=1)
    assert steps["recall"]["RssAnon"] < 190, steps
    assert steps["recall"]["VmRSS"] < 280, steps
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
