"""The ``prism`` command run in-process with the fake embedder: every command and its output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prism_memory import FakeEmbedder, Memory
from prism_memory.cli import main

DIM = 64


@pytest.fixture
def store(tmp_path: Path) -> str:
    return str(tmp_path / "store")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv), embedder=FakeEmbedder(dim=DIM))
    out, err = capsys.readouterr()
    return code, out, err


def add(
    capsys: pytest.CaptureFixture[str], store: str, text: str, *extra: str
) -> dict[str, object]:
    code, out, err = run(capsys, "--path", store, "add", text, "--user", "alice", "--json", *extra)
    assert code == 0, err
    record: dict[str, object] = json.loads(out)
    return record


def seed(store: str, *items: str | dict[str, object]) -> None:
    """Write memories for alice through the library (one store open instead of one per item)."""
    with Memory(path=store, embedder=FakeEmbedder(dim=DIM)) as m:
        m.add_many(list(items), user_id="alice")


def test_add_then_search_finds_it_with_score_and_routes(
    capsys: pytest.CaptureFixture[str], store: str
) -> None:
    add(capsys, store, "I prefer window seats on long flights", "--kind", "preference")
    add(capsys, store, "My budget for the trip is 1800 euros")
    code, out, _ = run(
        capsys, "--path", store, "search", "window seats", "--user", "alice", "--json"
    )
    assert code == 0
    hits = json.loads(out)
    assert hits[0]["record"]["text"] == "I prefer window seats on long flights"
    assert hits[0]["record"]["kind"] == "preference"
    assert hits[0]["score"] > 0
    assert "bm25" in hits[0]["routes"]


def test_human_search_output_names_layer_kind_and_routes(
    capsys: pytest.CaptureFixture[str], store: str
) -> None:
    seed(store, "Tom is allergic to shellfish")
    code, out, _ = run(capsys, "--path", store, "search", "shellfish allergy", "--user", "alice")
    assert code == 0
    first = out.splitlines()[0]
    assert "semantic/fact" in first and "Tom is allergic to shellfish" in first
    assert "bm25" in first


def test_store_options_work_before_or_after_the_command(
    capsys: pytest.CaptureFixture[str], store: str
) -> None:
    seed(store, "alpha memory")
    code, out, _ = run(capsys, "list", "--path", store, "--user", "alice", "--json")
    assert code == 0
    assert [r["text"] for r in json.loads(out)["records"]] == ["alpha memory"]


def test_search_is_confined_to_the_scope(capsys: pytest.CaptureFixture[str], store: str) -> None:
    seed(store, "alice's secret plan")
    code, out, _ = run(capsys, "--path", store, "search", "secret plan", "--user", "bob", "--json")
    assert code == 0
    assert json.loads(out) == []


def test_add_with_metadata_event_time_and_entities(
    capsys: pytest.CaptureFixture[str], store: str
) -> None:
    record = add(
        capsys,
        store,
        "Meeting with Priya about leave",
        "--kind",
        "event",
        "--metadata",
        '{"topic": "work"}',
        "--event-time",
        "2024-05-13T10:00:00Z",
        "--entity",
        "Priya",
    )
    assert record["metadata"] == {"topic": "work"}
    assert str(record["event_time"]).startswith("2024-05-13T10:00:00")
    assert record["entities"] == [{"type": "thing", "name": "Priya"}]


def test_list_pages_with_a_cursor(capsys: pytest.CaptureFixture[str], store: str) -> None:
    seed(store, *(f"memory number {i}" for i in range(5)))
    code, out, _ = run(capsys, "--path", store, "list", "--user", "alice", "--limit", "3", "--json")
    page1 = json.loads(out)
    assert code == 0 and len(page1["records"]) == 3 and page1["next_cursor"]
    code, out, _ = run(
        capsys, "--path", store, "list", "--user", "alice", "--limit", "3", "--cursor",
        page1["next_cursor"], "--json",
    )  # fmt: skip
    page2 = json.loads(out)
    texts = {r["text"] for r in page1["records"] + page2["records"]}
    assert texts == {f"memory number {i}" for i in range(5)}
    assert page2["next_cursor"] is None


def test_search_filter_flag(capsys: pytest.CaptureFixture[str], store: str) -> None:
    seed(
        store,
        {"text": "window seat please", "kind": "preference"},
        {"text": "window cleaning on Friday", "kind": "event"},
    )
    code, out, _ = run(
        capsys, "--path", store, "search", "window", "--user", "alice", "--filter",
        "kind=preference", "--json",
    )  # fmt: skip
    assert code == 0
    assert [h["record"]["text"] for h in json.loads(out)] == ["window seat please"]


def test_delete_by_id_and_all(capsys: pytest.CaptureFixture[str], store: str) -> None:
    first = add(capsys, store, "to be deleted")
    seed(store, "kept for now")
    code, out, _ = run(capsys, "--path", store, "delete", str(first["id"]), "--user", "alice")
    assert code == 0 and "deleted 1 memory" in out
    code, out, _ = run(capsys, "--path", store, "delete", "--all", "--user", "alice", "--json")
    got = json.loads(out)
    assert code == 0 and got["deleted"] == 1  # only "kept for now" was left
    assert got["by_layer"] == {"semantic": 1} and sum(got["by_surface"].values()) == 1
    with Memory(path=store, embedder=FakeEmbedder(dim=DIM)) as m:
        assert m.count(user_id="alice") == 0


def test_delete_of_an_unknown_id_exits_1_and_says_so(
    capsys: pytest.CaptureFixture[str], store: str
) -> None:
    seed(store, "something")
    missing = "00000000-0000-0000-0000-000000000001"
    code, _, err = run(capsys, "--path", store, "delete", missing, "--user", "alice")
    assert code == 1
    assert missing in err


def test_export_then_import_into_another_store(
    capsys: pytest.CaptureFixture[str], store: str, tmp_path: Path
) -> None:
    seed(store, "first fact", {"text": "second preference", "kind": "preference"})
    dump = tmp_path / "dump.jsonl"
    code, out, _ = run(capsys, "--path", store, "export", str(dump), "--user", "alice")
    assert code == 0 and "exported 2 memories" in out
    assert len(dump.read_text().splitlines()) == 2
    other = str(tmp_path / "other")
    code, out, _ = run(capsys, "--path", other, "import", str(dump), "--json")
    assert code == 0 and json.loads(out) == {"imported": 2, "skipped": 0, "errors": []}
    code, out, _ = run(capsys, "--path", other, "list", "--user", "alice", "--json")
    assert {r["text"] for r in json.loads(out)["records"]} == {"first fact", "second preference"}


def test_export_to_stdout(capsys: pytest.CaptureFixture[str], store: str) -> None:
    seed(store, "streamed out")
    code, out, err = run(capsys, "--path", store, "export", "-", "--user", "alice")
    assert code == 0
    assert json.loads(out.splitlines()[0])["text"] == "streamed out"
    assert "exported 1 memory" in err


def test_stats_human_and_json(capsys: pytest.CaptureFixture[str], store: str) -> None:
    seed(store, "a fact", {"text": "a preference", "kind": "preference"})
    code, out, _ = run(capsys, "--path", store, "stats", "--user", "alice", "--json")
    stats = json.loads(out)
    assert code == 0 and stats["total"] == 2
    assert stats["kinds"] == {"fact": 1, "preference": 1}
    code, out, _ = run(capsys, "--path", store, "stats", "--user", "alice")
    assert "memories: 2" in out and "qdrant-edge" in out


def test_location_memory_engine(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--location", ":memory:", "add", "x y z", "--user", "u", "--json")
    assert code == 0 and json.loads(out)["text"] == "x y z"


def test_no_command_prints_usage_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys)
    assert code == 2 and "usage: prism" in err


def test_library_can_read_what_the_cli_wrote(
    capsys: pytest.CaptureFixture[str], store: str
) -> None:
    add(capsys, store, "written by the command line")
    with Memory(path=store, embedder=FakeEmbedder(dim=DIM)) as m:
        assert [r.text for r in m.list(user_id="alice")] == ["written by the command line"]
