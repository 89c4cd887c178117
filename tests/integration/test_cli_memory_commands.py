"""``prism recall / remember / get / update / --version`` and the per-scope ``stats``, driven
through ``main(argv)`` on the real embedded store with the real offline embedder."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from prism_memory import FastEmbedEmbedder, Memory, __version__
from prism_memory.cli import main


@pytest.fixture
def store(tmp_path: Path) -> str:
    return str(tmp_path / "store")


def run(
    capsys: pytest.CaptureFixture[str], embedder: FastEmbedEmbedder, *argv: str
) -> tuple[int, str, str]:
    code = main(list(argv), embedder=embedder)
    out, err = capsys.readouterr()
    return code, out, err


def test_version(capsys: pytest.CaptureFixture[str], real_embedder: FastEmbedEmbedder) -> None:
    code, out, _ = run(capsys, real_embedder, "--version")
    assert code == 0 and out.strip() == f"prism {__version__}"


def test_remember_from_args_and_stdin_then_recall(
    capsys: pytest.CaptureFixture[str],
    real_embedder: FastEmbedEmbedder,
    store: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scope = ["--user", "alice", "--session", "s1"]
    code, out, err = run(
        capsys, real_embedder, "--path", store, "remember", "I moved to Lyon last month.",
        *scope, "--json",
    )  # fmt: skip
    assert code == 0, err
    result = json.loads(out)
    assert result["messages"] == 1 and result["added"]

    messages = [
        {"role": "user", "content": "I am allergic to peanuts.", "id": "m1"},
        {"role": "assistant", "content": "Noted, no peanuts."},
    ]
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(messages)))
    code, out, err = run(
        capsys, real_embedder, "--path", store, "remember", *scope, "--end-session", "--json"
    )
    assert code == 0, err
    assert json.loads(out)["messages"] == 2
    # retried message id: skipped, not stored twice
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(messages[:1])))
    code, out, err = run(capsys, real_embedder, "--path", store, "remember", *scope, "--json")
    assert code == 0 and json.loads(out)["added"] == []

    # plain text lines from stdin, with role prefixes
    monkeypatch.setattr(
        "sys.stdin", io.StringIO("My sister Maya lives in Porto.\nassistant: Good to know.\n")
    )
    code, out, err = run(capsys, real_embedder, "--path", store, "remember", "--user", "alice")
    assert code == 0, err
    assert out.startswith("remembered 2 messages:")

    code, out, err = run(
        capsys, real_embedder, "--path", store, "recall", "What can't I eat?", "--user", "alice"
    )
    assert code == 0, err
    assert "peanuts" in out
    code, out, _ = run(
        capsys, real_embedder, "--path", store, "recall", "Where does my sister live?",
        "--user", "alice", "--budget", "200", "--json",
    )  # fmt: skip
    ctx = json.loads(out)
    assert "Porto" in ctx["text"] and ctx["tokens"] <= 200 and ctx["records"]
    code, out, _ = run(capsys, real_embedder, "--path", store, "recall", "peanuts", "--user", "bob")
    assert code == 0 and "peanuts" not in out


def test_remember_rejects_broken_json(
    capsys: pytest.CaptureFixture[str], real_embedder: FastEmbedEmbedder, store: str
) -> None:
    code, _, err = run(
        capsys, real_embedder, "--path", store, "remember", '[{"role": "user"', "--user", "a"
    )
    assert code == 2 and "not valid JSON" in err


def test_get_and_update(
    capsys: pytest.CaptureFixture[str], real_embedder: FastEmbedEmbedder, store: str
) -> None:
    with Memory(path=store, embedder=real_embedder) as m:
        rid = m.add("Alice's budget is 1500 euros", user_id="alice").id
    code, out, err = run(capsys, real_embedder, "--path", store, "get", rid, "--user", "alice")
    assert code == 0, err
    assert f"id: {rid}" in out and "text: Alice's budget is 1500 euros" in out
    code, out, err = run(
        capsys, real_embedder, "--path", store, "update", rid, "Alice's budget is 1800 euros",
        "--user", "alice", "--importance", "0.9", "--json",
    )  # fmt: skip
    assert code == 0, err
    updated = json.loads(out)
    assert updated["id"] == rid and updated["text"] == "Alice's budget is 1800 euros"
    code, out, _ = run(
        capsys, real_embedder, "--path", store, "get", rid, "--user", "alice", "--json"
    )
    assert json.loads(out)["text"] == "Alice's budget is 1800 euros"
    code, out, _ = run(
        capsys, real_embedder, "--path", store, "search", "budget euros", "--user", "alice",
        "--json",
    )  # fmt: skip
    assert json.loads(out)[0]["record"]["text"] == "Alice's budget is 1800 euros"
    code, _, err = run(capsys, real_embedder, "--path", store, "get", rid, "--user", "bob")
    assert code == 2 and "no memory" in err  # another user's id is not found


def test_stats_shows_only_the_scope(
    capsys: pytest.CaptureFixture[str], real_embedder: FastEmbedEmbedder, store: str
) -> None:
    with Memory(path=store, embedder=real_embedder) as m:
        m.add_many(["Alice likes tea", "Alice lives in Lyon"], user_id="alice")
        m.add_many([f"Bob fact number {i}" for i in range(5)], user_id="bob")
    code, out, err = run(
        capsys, real_embedder, "--path", store, "stats", "--user", "alice", "--json"
    )
    assert code == 0, err
    stats = json.loads(out)
    assert stats["total"] == 2
    assert not {"points", "indexed_vectors", "segments"} & set(stats["engine"])
    code, out, _ = run(capsys, real_embedder, "--path", store, "stats", "--user", "alice")
    assert "memories: 2" in out and "points=" not in out
    code, out, err = run(capsys, real_embedder, "--path", store, "stats", "--all-scopes", "--json")
    assert code == 0, err
    whole = json.loads(out)
    assert whole["store_total"]["points"] == 7 and "total" not in whole
    code, out, _ = run(capsys, real_embedder, "--path", store, "stats", "--all-scopes")
    assert "every tenant" in out and "points=7" in out and "memories:" not in out
    code, _, err = run(
        capsys, real_embedder, "--path", store, "stats", "--all-scopes", "--user", "alice"
    )
    assert code == 2 and "not both" in err
