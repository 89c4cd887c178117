"""Export carries the dense vectors; an import with the same model reuses them (no embedding
call), writes in batches and reports progress after each batch; every line is still checked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from prism_memory import FastEmbedEmbedder, ImportDataError, Memory


class Counting:
    """The real embedder, counting the texts it embeds (``name`` can be changed)."""

    def __init__(self, inner: FastEmbedEmbedder, name: str | None = None) -> None:
        self.inner, self.texts = inner, 0
        self._name = name or inner.name

    @property
    def name(self) -> str:
        return self._name

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.texts += len(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory, real_embedder: FastEmbedEmbedder) -> Path:
    tmp = tmp_path_factory.mktemp("export")
    path = tmp / "alice.jsonl"
    with Memory(path=tmp / "src", embedder=real_embedder) as m:
        m.add_many(
            [f"Alice's note number {i} about trains and bikes" for i in range(100)], user_id="alice"
        )
        m.add("Alice prefers window seats on long flights", user_id="alice", kind="preference")
        assert m.export_jsonl(path, user_id="alice") == 101
    return path


def test_same_model_import_reuses_vectors_in_batches(
    export: Path, tmp_path: Path, real_embedder: FastEmbedEmbedder
) -> None:
    lines = [json.loads(line) for line in export.read_text().splitlines()]
    assert all(d["_embedding"]["model"] == real_embedder.name for d in lines)
    assert all(d["_embedding"]["dim"] == 384 for d in lines)
    counting = Counting(real_embedder)
    with Memory(path=tmp_path / "dst", embedder=counting) as m:
        steps: list[int] = []
        report = m.import_jsonl(export, progress=steps.append, batch_size=64)
        assert report.imported == 101 and counting.texts == 0  # nothing embedded again
        assert steps == [64, 37]  # the bar moves after every batch
        hit = m.search("which seat on a plane?", user_id="alice", limit=1)[0]
        assert hit.record.text == "Alice prefers window seats on long flights"


def test_other_model_or_reembed_embeds_again(
    export: Path, tmp_path: Path, real_embedder: FastEmbedEmbedder
) -> None:
    other = Counting(real_embedder, name="another-model")
    with Memory(path=tmp_path / "dst1", embedder=other) as m:
        assert m.import_jsonl(export).imported == 101 and other.texts == 101
    same = Counting(real_embedder)
    with Memory(path=tmp_path / "dst2", embedder=same) as m:
        assert m.import_jsonl(export, reembed=True).imported == 101 and same.texts == 101
    plain = tmp_path / "plain.jsonl"
    with Memory(path=tmp_path / "src2", embedder=real_embedder) as m:
        m.add("one fact", user_id="bob")
        m.export_jsonl(plain, user_id="bob", vectors=False)
    assert "_embedding" not in json.loads(plain.read_text())


@pytest.mark.parametrize(
    ("embedding", "message"),
    [
        ({"model": "m", "dim": 384}, "expected"),
        ({"model": "m", "dim": 2, "f32": "!!!"}, "not base64"),
        ({"model": "m", "dim": 3, "f32": "AAAAAAAAAAA="}, "bytes for dim 3"),
        ({"model": "m", "dim": 1, "f32": "AADAfw=="}, "NaN"),
    ],
)
def test_a_bad_vector_is_a_bad_line(
    export: Path, tmp_path: Path, real_embedder: FastEmbedEmbedder, embedding: Any, message: str
) -> None:
    lines = export.read_text().splitlines()
    broken = json.loads(lines[4])
    broken["_embedding"] = embedding
    lines[4] = json.dumps(broken)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    with Memory(path=tmp_path / "dst", embedder=real_embedder) as m:
        with pytest.raises(ImportDataError, match=f"line 5: _embedding: .*{message}"):
            m.import_jsonl(bad)
        assert m.count(user_id="alice") == 0  # nothing was imported
        report = m.import_jsonl(bad, skip_bad=True)
        assert (report.imported, report.skipped) == (100, 1)
